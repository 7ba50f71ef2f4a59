"""A cascade of judges: a cheap log-prob judge (a local server answering P(yes) from the check's
text) grades every check, the checks in the band go to a strong judge (the replay judge,
answering with the reference judge's stored verdicts)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from checkbench import api
from checkbench.errors import InputError
from checkbench.judges.cascade import (
    CASCADE_RECORD,
    CascadeSettings,
    cascade_name,
    escalated,
    fit_band,
)
from checkbench.judges.reference import CALIBRATION_RECORD
from checkbench.llm import ModelOptions
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.stats.notation import FEW_NOTE
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, ReplayJudge, completion
from tests.conftest import run_cli

GRID = (0.05, 0.3, 0.45, 0.55, 0.7, 0.95)
"""The cheap judge's P(yes) per check: check k of item i gets GRID[(i + k) % 6], so each value
is a sixth of the checks."""
PASS_FROM = 0.6
"""The reference passes a check from this P(yes): the cheap judge (yes from 0.5) is wrong on
the checks at 0.55 only."""
ITEMS, MODELS, CHECKS = 6, ("m1", "m2"), 3
PRICE = {"input": 2.5, "output": 10.0}


def _p(item: int, check: int) -> float:
    return GRID[(item + check) % len(GRID)]


def _run(tmp_path: Path) -> Path:
    """Items whose check texts carry the cheap judge's P(yes), answers by two models, and the
    reference judge "ref"'s verdicts."""
    run_dir = tmp_path / "run"
    with RunStore(run_dir) as store:
        verdicts = []
        for i in range(ITEMS):
            item = Item(
                id=f"q{i}",
                messages=[Message(role="user", content=f"question {i}")],
                checklist=[Check(id=f"c{k}", text=f"p={_p(i, k)}") for k in range(CHECKS)],
                tags={"parity": ["even" if i % 2 == 0 else "odd"]},
            )
            store.add_items([item])
            for model in MODELS:
                store.put_response(Response(item_id=item.id, model=model, content=f"{model} {i}"))
                for k in range(CHECKS):
                    p = _p(i, k)
                    key = {"item_id": item.id, "model": model, "check_id": f"c{k}"}
                    verdicts.append(Verdict(judge="ref", passed=p >= PASS_FROM, **key))
        store.put_verdicts(verdicts)
    return run_dir


def _p_yes(body: dict[str, Any], _headers: dict[str, str]) -> tuple[int, dict]:
    """A log-prob answer whose P(yes) is the p=... of the check asked about."""
    prompt = body["messages"][-1]["content"]
    p = float(re.findall(r"p=([0-9.]+)", prompt)[-1])
    top = [{"token": "yes", "logprob": math.log(p)}, {"token": "no", "logprob": math.log(1 - p)}]
    reply = completion("yes", 50, 1)
    reply["choices"][0]["logprobs"] = {"content": [{"token": "yes", "logprob": top[0]["logprob"],
                                                    "top_logprobs": top}]}  # fmt: skip
    return 200, reply


CHEAP_PRICE = {"input": 0.1, "output": 0.4}


class Judges:
    """The two servers and the models file naming them (the strong one priced, the cheap one
    too with `cheap_priced`; both known by their `endpoint_name` with `named`)."""

    def __init__(
        self,
        run_dir: Path,
        tmp_path: Path,
        stack: ExitStack,
        strong_delay_s: float = 0.0,
        *,
        cheap_priced: bool = False,
        named: bool = False,
    ) -> None:
        self.cheap = stack.enter_context(OpenAIServer(_p_yes))
        self.replay = ReplayJudge(run_dir, "ref")
        self.strong = stack.enter_context(OpenAIServer(self.replay, delay_s=strong_delay_s))
        cheap_price = (
            f"price = {{ input = {CHEAP_PRICE['input']}, output = {CHEAP_PRICE['output']} }}\n"
            if cheap_priced
            else ""
        )
        cheap_name = 'endpoint_name = "cheap-lab"\n' if named else ""
        strong_name = 'endpoint_name = "replay-of-ref"\n' if named else ""
        self.models = tmp_path / "checkbench.toml"
        self.models.write_text(
            f'[models.cheap]\nmodel = "cheap"\nbase_url = "{self.cheap.base_url}"\n'
            f"{cheap_price}{cheap_name}"
            f'[models.strong]\nmodel = "strong"\nbase_url = "{self.strong.base_url}"\n'
            f"{strong_name}"
            f"price = {{ input = {PRICE['input']}, output = {PRICE['output']} }}\n"
        )
        self.options = ModelOptions(models_file=self.models, retries=0)

    def run(self, run_dir: Path, settings: CascadeSettings) -> api.CascadeSummary:
        return api.cascade(run_dir, "cheap", "strong", settings, options=self.options)


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[Path, Judges]]:
    run_dir = _run(tmp_path)
    with ExitStack() as stack:
        yield run_dir, Judges(run_dir, tmp_path, stack)


def _escalated_checks(store: RunStore, judge: str) -> list[Verdict]:
    return [v for v in store.verdicts(judge) if v.decided_by == "strong"]


def test_the_band_escalates_uncertain_checks_to_the_strong_judge(setup) -> None:
    run_dir, judges = setup
    summary = judges.run(run_dir, CascadeSettings(band=(0.2, 0.8), reference="ref"))
    name = cascade_name("cheap#logprob", "strong", (0.2, 0.8))
    assert summary.judge == name == "cascade:cheap#logprob>strong@0.2-0.8"
    with RunStore.existing(run_dir) as store:
        cheap = {(v.item_id, v.model, v.check_id): v.p_yes for v in store.verdicts("cheap#logprob")}
        own = store.verdicts(name)
        records = store.records(CASCADE_RECORD)
    total = ITEMS * len(MODELS) * CHECKS
    assert len(cheap) == len(own) == summary.checks == total
    # Every check in the band, and only those, was decided by the strong judge.
    for v in own:
        inside = 0.2 <= cheap[(v.item_id, v.model, v.check_id)] <= 0.8
        assert v.decided_by == ("strong" if inside else "cheap#logprob")
        assert v.passed is not None
    inside = [v for v in own if v.decided_by == "strong"]
    assert summary.escalated == len(inside) == total * 4 // 6
    assert summary.escalated_share == pytest.approx(4 / 6)
    # One strong call per reply with an escalated check, asking about those checks only.
    assert summary.escalated_replies == summary.strong_calls == len(judges.strong.requests)
    assert summary.replies == ITEMS * len(MODELS) and summary.calls_saved == 0
    assert judges.replay.asked == summary.escalated
    # The strong judge is the reference here, so the cascade agrees wherever it escalated.
    assert summary.agreement.agreement.value == 1.0
    wrong = sum(p == 0.55 for p in cheap.values())
    assert summary.cheap_agreement.agreement.value == pytest.approx(1 - wrong / total)
    # Cost: the strong judge's tokens at its price; every reply would cost as much per call.
    usage = judges.strong.requests
    assert summary.strong_cost_in_run_usd > 0 and len(usage) == summary.strong_calls_in_run
    per_call = summary.strong_cost_in_run_usd / summary.strong_calls_in_run
    assert summary.strong_cost_usd == pytest.approx(per_call * summary.escalated_replies)
    assert summary.all_strong_cost_usd == pytest.approx(per_call * summary.replies)
    assert summary.saved_usd == pytest.approx(per_call * summary.calls_saved)
    assert records[name] == summary


def test_a_rerun_resumes_without_duplicate_calls(setup) -> None:
    run_dir, judges = setup
    budget = judges.run(run_dir, CascadeSettings(budget_calls=2))
    assert budget.escalated_replies == budget.strong_calls == 2
    assert budget.calls_saved == ITEMS * len(MODELS) - 2
    cheap_calls = len(judges.cheap.requests)
    # The whole band now: the two replies' decided checks are reused, not asked again.
    full = judges.run(run_dir, CascadeSettings())
    assert full.reused >= 2 and len(judges.cheap.requests) == cheap_calls
    # The run paid for both cascades; each is costed by its own escalated replies.
    assert full.strong_calls_in_run == len(judges.strong.requests)
    assert full.saved_usd == pytest.approx(0.0) and budget.saved_usd > 0
    assert full.strong_calls == len(judges.strong.requests) - 2
    assert full.strong_calls == full.escalated_replies - len(
        {(k.item_id, k.model) for k in _budget_decided(run_dir, budget.judge)}
    )
    before = len(judges.strong.requests)
    with RunStore.existing(run_dir) as store:
        decided = store.verdicts(full.judge)
    again = judges.run(run_dir, CascadeSettings())
    assert len(judges.strong.requests) == before and len(judges.cheap.requests) == cheap_calls
    assert again.strong_calls == 0 and again.reused == again.escalated
    with RunStore.existing(run_dir) as store:
        assert store.verdicts(again.judge) == decided


def _budget_decided(run_dir: Path, judge: str) -> list[Verdict]:
    with RunStore.existing(run_dir) as store:
        return _escalated_checks(store, judge)


def test_a_budget_takes_the_most_uncertain_checks_first() -> None:
    def v(model: str, check: str, p: float | None) -> Verdict:
        return Verdict(item_id="q", model=model, judge="j", check_id=check, passed=None, p_yes=p)

    graded = [v("a", "c1", 0.3), v("b", "c1", 0.52), v("c", "c1", None), v("c", "c2", 0.9)]
    assert escalated(graded, (0.2, 0.8)) == {("q", m, 0, "c1") for m in "abc"}
    assert escalated(graded, (0.2, 0.8), budget=2) == {("q", "c", 0, "c1"), ("q", "b", 0, "c1")}
    assert escalated(graded, (0.2, 0.8), budget=0) == set()
    assert escalated(graded, (0.0, 1.0), budget=1) == {("q", "c", 0, "c1"), ("q", "c", 0, "c2")}


def test_a_target_agreement_fits_the_narrowest_band(setup) -> None:
    run_dir, judges = setup
    summary = judges.run(run_dir, CascadeSettings(target_agreement=1.0, reference="ref"))
    # The cheap judge is wrong at 0.55 only: the band reaches just that far from 0.5.
    assert summary.band == pytest.approx((0.45, 0.55))
    assert summary.band_fitted_on == ITEMS * len(MODELS) * CHECKS
    assert summary.escalated_share == pytest.approx(2 / 6)
    assert summary.agreement.agreement.value == 1.0
    loose = fit_band(
        [Verdict(item_id="q", model="m", judge="j", check_id="c", passed=True, p_yes=0.9)],
        [Verdict(item_id="q", model="m", judge="r", check_id="c", passed=True)],
        0.9,
    )
    assert loose == ((0.5, 0.5), 1)  # right already: nothing to escalate


def _state(run_dir: Path) -> tuple:
    with RunStore.existing(run_dir) as store:
        return store.judges(), store.records(CASCADE_RECORD), store.usage()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--band", "0.3,1.2"), "0 <= LO <= HI <= 1"),
        (("--band", "0.8,0.2"), "0 <= LO <= HI <= 1"),
        (("--band", "half"), "the band must be LO,HI"),
        (("--target-agreement", "0.9"), "name the judge whose verdicts label it"),
        (("--target-agreement", "0.9", "--reference-judge", "nobody"), "no labelled part"),
        (("--budget-calls", "-1"), "0 or more"),
        (("--calibration", "none-such"), "no calibration 'none-such'"),
        (("--band", "-0.1,0.5"), "0 <= LO <= HI <= 1"),
        (("--target-agreement", "1.5", "--reference-judge", "ref"), "in (0, 1]"),
        (("--max-cost", "1"), "has no price"),
        (("--max-cost", "-1"), "greater than or equal to 0"),
        (("--tag", "colour=red"), "no item has the tag facet 'colour'"),
        (("--model", "m9"), "no model 'm9' in this run"),
    ],
)
def test_bad_cascade_input_is_one_line_and_exit_2(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    run_dir = _run(tmp_path)
    before = _state(run_dir)
    nowhere = "http://127.0.0.1:9/v1"
    result = run_cli(
        "judge", str(run_dir), "--judge", f"openai:cheap@{nowhere}",
        "--escalate-to", f"openai:strong@{nowhere}", *args,
    )  # fmt: skip
    [line] = result.stderr.strip().splitlines()
    assert result.returncode == 2 and message in line and line.startswith("error:"), line
    assert _state(run_dir) == before


def test_the_strong_judge_cannot_be_the_cheap_one(tmp_path: Path) -> None:
    run_dir = _run(tmp_path)
    before = _state(run_dir)
    spec = "openai:same@http://127.0.0.1:9/v1"
    result = run_cli("judge", str(run_dir), "--judge", spec, "--escalate-to", spec)
    [line] = result.stderr.strip().splitlines()
    assert result.returncode == 2 and "is the cheap judge" in line
    stray = run_cli("judge", str(run_dir), "--judge", spec, "--band", "0.1,0.9")
    assert stray.returncode == 2 and "--band go with --escalate-to" in stray.stderr
    assert _state(run_dir) == before
    with pytest.raises(InputError, match="0 or more"):
        api.cascade(run_dir, spec, "openai:other@http://127.0.0.1:9/v1", CascadeSettings(
            budget_calls=-3))  # fmt: skip


def test_the_cli_prints_the_cascade_summary(setup) -> None:
    run_dir, judges = setup
    result = run_cli(
        "judge", str(run_dir), "--judge", "cheap", "--escalate-to", "strong",
        "--models", str(judges.models), "--band", "0.4,0.6", "--reference-judge", "ref",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "cascade cascade:cheap#logprob>strong@0.4-0.6: band 0.4-0.6 (given)" in out
    # 0.45 and 0.55 are a third of the checks, in 4 items' windows of the grid: 8 replies.
    assert "escalated: 12 of 36 checks (0.333) from 8 of 12 replies" in out
    assert "strong judge strong: 8 calls now (0 cached)" in out and "saved ~$" in out
    assert "against ref (36 checks, 6 items): cascade 1.000 [" in out
    # Over 6 items (fewer than FEW_UNITS), each figure is marked, with the reason in words.
    assert "cheap judge alone 0.833 [0.72, 0.94]*" in out and f"({FEW_NOTE})" in out
    assert "cheap judge cheap: 36 calls in the run costing unknown (no price)" in out
    assert "--judge-id 'cascade:cheap#logprob>strong@0.4-0.6'" in out


def test_a_calibrated_cheap_judge_decides_what_it_has_learned(setup) -> None:
    from checkbench.judges.calibration import CalibrationFit, fit_calibration

    run_dir, judges = setup
    judges.run(run_dir, CascadeSettings(budget_calls=0))  # the cheap judge's verdicts only
    with RunStore.existing(run_dir, writer=True) as store:
        fit = CalibrationFit("cheap#logprob", "ref", method="isotonic", b=50)
        report = fit_calibration(store, fit)
    # The reference passes from 0.6: the isotonic curve maps P(yes) to 0 or 1, sure of all.
    calibrated = CascadeSettings(calibration=report.name, reference="ref")
    summary = judges.run(run_dir, calibrated)
    assert summary.cheap == "cheap#logprob#calibrated"
    assert summary.judge.startswith("cascade:cheap#logprob#calibrated>strong@")
    assert summary.escalated == 0 and summary.excluded_items == report.train.items
    assert summary.agreement.agreement.value == 1.0
    with RunStore.existing(run_dir) as store:
        assert {v.decided_by for v in store.verdicts(summary.judge)} == {summary.cheap}
    with RunStore.existing(run_dir, writer=True) as store:
        fit_calibration(store, CalibrationFit("cheap#logprob", "ref", name="other", b=50))
        store.put_record(
            CALIBRATION_RECORD,
            "other",
            {**store.records(CALIBRATION_RECORD)["other"], "judge": "someone"},
        )
    with pytest.raises(InputError, match="is for judge 'someone', not the cheap judge"):
        judges.run(run_dir, CascadeSettings(calibration="other"))


def test_a_killed_cascade_resumes_without_paying_twice(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    run_dir = _run(tmp_path)
    with ExitStack() as stack:
        judges = Judges(run_dir, tmp_path, stack, strong_delay_s=0.5)
        args = [
            sys.executable, "-m", "checkbench", "judge", str(run_dir), "--judge", "cheap",
            "--escalate-to", "strong", "--models", str(judges.models), "--concurrency", "1",
        ]  # fmt: skip
        child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 300
        while len(judges.strong.requests) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        asked = len(judges.strong.requests)
        assert 3 <= asked < ITEMS * len(MODELS)  # killed half-way through the escalations
        cheap_calls = len(judges.cheap.requests)
        summary = judges.run(run_dir, CascadeSettings())
    # Only the call in flight at the kill is asked again; the cheap judge is not asked again.
    assert len(judges.strong.requests) <= summary.escalated_replies + 1
    assert summary.strong_calls <= summary.escalated_replies - asked + 1
    assert len(judges.cheap.requests) == cheap_calls
    with RunStore.existing(run_dir) as store:
        assert all(v.passed is not None for v in store.verdicts(summary.judge))


def _cli(run_dir: Path, judges: Judges, *args: str) -> Any:
    return run_cli(
        "judge", str(run_dir), "--judge", "cheap", "--escalate-to", "strong",
        "--models", str(judges.models), *args,
    )  # fmt: skip


def test_the_cost_limit_stops_the_cascade_and_a_higher_one_resumes(tmp_path: Path) -> None:
    run_dir = _run(tmp_path)
    with ExitStack() as stack:
        judges = Judges(run_dir, tmp_path, stack, cheap_priced=True)
        # The cheap judge's 36 calls (one a check) fit, not the strong judge's 12: it stops
        # among them.
        stopped = _cli(run_dir, judges, "--max-cost", "0.008", "--concurrency", "1")
        assert stopped.returncode == 3, stopped.stderr
        [line] = stopped.stderr.strip().splitlines()
        assert line.startswith("stopped at the cost limit: spent $") and "left" in line
        assert "rerun with a higher --max-cost to resume" in line
        cheap_calls, asked = len(judges.cheap.requests), len(judges.strong.requests)
        assert cheap_calls == ITEMS * len(MODELS) * CHECKS and 0 < asked < ITEMS * len(MODELS)
        with RunStore.existing(run_dir) as store:
            spent = sum(
                (u.prompt_tokens * price["input"] + u.completion_tokens * price["output"]) / 1e6
                for u in store.usage()
                for price in [PRICE if u.model == "strong" else CHEAP_PRICE]
            )
        assert spent <= 0.008
        resumed = _cli(run_dir, judges, "--max-cost", "1", "--json")
        assert resumed.returncode == 0, resumed.stderr
    summary = api.CascadeSummary.model_validate_json(resumed.stdout)
    # Nothing asked twice: the cheap judge not again, the strong judge only for the rest.
    assert len(judges.cheap.requests) == cheap_calls
    assert len(judges.strong.requests) == summary.escalated_replies == ITEMS * len(MODELS)
    assert summary.strong_calls == summary.escalated_replies - asked
    # Both judges' costs, and the saving against the strong judge on every reply.
    assert summary.cheap_calls_in_run == cheap_calls and summary.cheap_cost_usd > 0
    assert summary.cascade_cost_usd == pytest.approx(
        summary.cheap_cost_usd + summary.strong_cost_usd
    )
    assert summary.net_saved_usd == pytest.approx(
        summary.all_strong_cost_usd - summary.cascade_cost_usd
    )
    assert summary.cheap_cost_usd + summary.strong_cost_in_run_usd <= 1.0


def test_an_unpriced_judge_under_a_cost_limit_is_refused_before_any_call(setup) -> None:
    run_dir, judges = setup  # the cheap judge has no price
    before = _state(run_dir)
    result = _cli(run_dir, judges, "--max-cost", "5")
    [line] = result.stderr.strip().splitlines()
    assert result.returncode == 2 and "model 'cheap' has no price" in line
    assert judges.cheap.requests == [] and judges.strong.requests == []
    assert _state(run_dir) == before
    # Priced with --price, it runs.
    priced = _cli(run_dir, judges, "--max-cost", "5", "--price", "cheap=0,0", "--json")
    assert priced.returncode == 0, priced.stderr
    summary = api.CascadeSummary.model_validate_json(priced.stdout)
    assert summary.cheap_cost_usd == 0.0 and summary.net_saved_usd is not None


@pytest.mark.parametrize(
    ("flags", "replies"),
    [
        (("--limit", "2"), {("q0", "m1"), ("q0", "m2"), ("q1", "m1"), ("q1", "m2")}),
        (("--tag", "parity=odd", "--model", "m2"), {(f"q{i}", "m2") for i in (1, 3, 5)}),
        (("--sample", "3", "--sample-seed", "1"), None),
    ],
)
def test_the_slice_flags_cascade_on_part_of_the_run(
    setup, flags: tuple[str, ...], replies: set[tuple[str, str]] | None
) -> None:
    run_dir, judges = setup
    result = _cli(run_dir, judges, *flags, "--reference-judge", "ref", "--json")
    assert result.returncode == 0, result.stderr
    summary = api.CascadeSummary.model_validate_json(result.stdout)
    with RunStore.existing(run_dir) as store:
        cheap = {(v.item_id, v.model) for v in store.verdicts("cheap#logprob")}
        own = {(v.item_id, v.model) for v in store.verdicts(summary.judge)}
        scope = store.judge_scope(summary.judge)
    if replies is None:  # a seeded sample of 3 items, both models
        assert len({item for item, _ in own}) == 3 and len(own) == 6
        replies = own
    assert cheap == own == replies and summary.replies == len(replies)
    assert summary.checks == len(replies) * CHECKS and summary.slice == scope.spec != ""
    assert len(judges.cheap.requests) == len(replies) * CHECKS  # one call a check
    assert summary.agreement.n == len(replies) * CHECKS  # the reference's outside left out
    # The same slice again resumes with no call; a narrower one is refused, nothing written.
    again = _cli(run_dir, judges, *flags, "--reference-judge", "ref", "--json")
    assert again.returncode == 0, again.stderr
    assert len(judges.cheap.requests) == len(replies) * CHECKS  # one call a check
    assert api.CascadeSummary.model_validate_json(again.stdout).strong_calls == 0
    before = _state(run_dir)
    narrower = _cli(run_dir, judges, "--limit", "0")
    [line] = narrower.stderr.strip().splitlines()
    assert narrower.returncode == 2 and "outside this slice" in line
    assert _state(run_dir) == before


def test_an_endpoint_name_resumes_a_judge_served_at_another_address(tmp_path: Path) -> None:
    run_dir = _run(tmp_path)
    with ExitStack() as stack:
        first = Judges(run_dir, tmp_path, stack, named=True)
        summary = first.run(run_dir, CascadeSettings())
        assert summary.strong_calls == summary.escalated_replies > 0
    # The servers come back on other ports; the models file names them the same.
    (tmp_path / "again").mkdir()
    with ExitStack() as stack:
        again = Judges(run_dir, tmp_path / "again", stack, named=True)
        assert again.strong.base_url != first.strong.base_url
        resumed = again.run(run_dir, CascadeSettings())
        assert resumed.judge == summary.judge and resumed.strong == "strong"
        assert resumed.strong_calls == 0 and resumed.reused == resumed.escalated
        assert again.strong.requests == [] and again.cheap.requests == []
    # Without the name, the server at a new address is another model: asked all over again.
    with ExitStack() as stack:
        (tmp_path / "unnamed").mkdir()
        unnamed = Judges(run_dir, tmp_path / "unnamed", stack)
        fresh = unnamed.run(run_dir, CascadeSettings())
        assert fresh.strong != "strong" and fresh.strong.startswith("strong~")
        assert fresh.strong_calls == fresh.escalated_replies == len(unnamed.strong.requests) > 0


def test_a_cascade_prints_a_table_or_json_only(tmp_path: Path) -> None:
    run_dir = _run(tmp_path)
    before = _state(run_dir)
    url = "openai:x@http://127.0.0.1:9/v1"
    result = run_cli("judge", str(run_dir), "--judge", url, "--escalate-to", url + "2",
                     "--format", "csv")  # fmt: skip
    [line] = result.stderr.strip().splitlines()
    assert result.returncode == 2 and "a table or as JSON" in line
    assert _state(run_dir) == before


def test_a_target_with_no_labelled_check_in_the_slice_is_refused(tmp_path: Path) -> None:
    run_dir = _run(tmp_path)
    with RunStore.existing(run_dir, writer=True) as store:  # labels on an even item only
        store.put_verdicts(
            v.model_copy(update={"judge": "ref-q0"}) for v in store.verdicts("ref")
            if v.item_id == "q0"
        )  # fmt: skip
    before = _state(run_dir)
    nowhere = "http://127.0.0.1:9/v1"
    result = run_cli(
        "judge", str(run_dir), "--judge", f"openai:cheap@{nowhere}",
        "--escalate-to", f"openai:strong@{nowhere}", "--target-agreement", "0.9",
        "--reference-judge", "ref-q0", "--tag", "parity=odd",
    )  # fmt: skip
    [line] = result.stderr.strip().splitlines()
    assert result.returncode == 2 and "no labelled part" in line and "parity=odd" in line
    assert _state(run_dir) == before


def test_a_cheap_judge_of_the_whole_run_serves_a_cascade_on_a_slice(setup) -> None:
    run_dir, judges = setup
    whole = run_cli(
        "judge", str(run_dir), "--judge", "cheap", "--mode", "logprob",
        "--models", str(judges.models),
    )  # fmt: skip
    assert whole.returncode == 0, whole.stderr
    cheap_calls = len(judges.cheap.requests)
    assert cheap_calls == ITEMS * len(MODELS) * CHECKS
    result = _cli(run_dir, judges, "--model", "m1", "--band", "0.4,0.6", "--json")
    assert result.returncode == 0, result.stderr
    summary = api.CascadeSummary.model_validate_json(result.stdout)
    # No cheap call again; the strong judge asked about m1's replies only.
    assert len(judges.cheap.requests) == cheap_calls
    assert summary.replies == ITEMS and summary.checks == ITEMS * CHECKS
    assert {r["messages"][-1]["content"].count("m1 ") for r in judges.strong.requests} == {1}
    with RunStore.existing(run_dir) as store:
        assert store.judge_scope("cheap#logprob").whole  # still the whole run's judge
        assert {v.model for v in store.verdicts(summary.judge)} == {"m1"}
