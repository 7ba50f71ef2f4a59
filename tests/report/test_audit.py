"""The report's Audit tab: the audit's figures and its most telling flagged checks in the
page data; no tab before any verdict."""

from __future__ import annotations

from pathlib import Path

from checkbench.report.assemble import build_report
from checkbench.schema import Response
from checkbench.store import RunStore
from tests.audit.runs import ability_rule, build_run, plain_items


def _rule(m: int, item_id: str, check_id: str, sample: int, judge: str) -> bool:
    if (item_id, check_id) == ("i1", "c2"):
        return m < 3  # the weak models pass it
    return (item_id, check_id) == ("i0", "c2") or ability_rule(m, item_id, check_id, sample, judge)


def test_the_audit_section_lists_the_most_telling_flags_first(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run", plain_items(6), 6, _rule)
    with RunStore.existing(run) as store:
        data = build_report(store).data["audit"]
    assert data["checks"] == 18 and data["flagged_checks"] == 2
    assert [c["flags"][0]["kind"] for c in data["flagged"]] == ["negative", "all-pass"]
    assert data["full"]["separability"]["n"] == 15
    assert "check_audits" not in data


def test_no_audit_before_any_verdict(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run") as store:
        store.add_items(plain_items(1))
        store.put_response(Response(item_id="i0", model="m0", content="x"))
    with RunStore.existing(tmp_path / "run") as store:
        assert build_report(store).data["audit"] is None
