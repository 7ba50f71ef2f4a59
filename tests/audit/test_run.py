"""What a run allows the audit to tell: one model, no verdicts, an unknown judge, and the
published FB-Bench judgments."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench.audit.run import audit_run
from checkbench.audit.settings import AuditSettings
from checkbench.errors import InputError
from checkbench.schema import Response
from checkbench.store import RunStore
from tests.audit.runs import ability_rule, build_run, import_fbbench, needs_fbbench, plain_items


def test_a_one_model_run_says_what_it_can_and_cannot_audit(tmp_path: Path) -> None:
    items = plain_items(4)
    items[0] = items[0].model_copy(
        update={
            "checklist": [
                *items[0].checklist[:2],
                items[0].checklist[2].model_copy(update={"text": "..."}),
            ]
        }
    )
    report = audit_run(build_run(tmp_path / "run", items, 1, lambda *_: True))
    assert report.models == ["m0"]
    assert report.limits[0].startswith("one model: no check can be found passed or failed")
    assert any("item response model needs 5" in line for line in report.limits)
    assert report.flags == {"placeholder": 1}  # no check is "passed by every model" alone
    assert report.full.separability.value is None
    assert report.full.separability.note == "fewer than two models with an interval"
    assert report.full.rank_stability.note == "needs two models and two items"
    assert report.full.effective_checks.note == "needs three models"
    assert report.irt is None
    assert all(c.pass_rate == 1.0 and c.discrimination is None for c in report.check_audits)


def test_a_run_without_verdicts_is_named(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run") as store:
        store.add_items(plain_items(1))
        store.put_response(Response(item_id="i0", model="m0", content="x"))
    with pytest.raises(InputError, match="no verdicts in this run"):
        audit_run(tmp_path / "run")


def test_an_unknown_judge_is_named_with_the_run_s_judges(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run", plain_items(2), 2, ability_rule)
    with pytest.raises(InputError, match=r"no verdicts by judge 'x' \(judges: judge-a\)"):
        audit_run(run, AuditSettings(judge="x"))


@needs_fbbench
def test_the_published_judgments(tmp_path: Path) -> None:
    report = audit_run(import_fbbench(tmp_path / "run"))
    assert (report.checks, report.items, len(report.models)) == (1596, 591, 6)
    assert report.flags["all-pass"] == 260
    assert report.flags["all-fail"] == 335
    assert report.flags["negative"] > 0
    assert report.irt is not None and report.irt.converged
    ability = report.irt.ability
    assert ability["DeepSeek-V3"] > ability["gemma-2-9b-it"]
    assert report.refined.rank_stability.value >= report.full.rank_stability.value
