"""Judge-vs-human agreement on a run's checklist verdicts (FB-Bench's consistency rate, kappa,
per-class F1), from a JSONL file of human verdicts on a sample of the run's responses, or from
the labels a person gave in the run (`view --annotate`), named by their judge id `human:NAME`.

Each line: {"item_id": ..., "model": ..., "check_id": ..., "passed": true | false | null}; a
null verdict (the annotator could not decide) has no reference and is counted as such. Other
fields (annotator, notes) are ignored. Every line must name a check of a response in the run,
once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from checkbench.errors import InputError
from checkbench.inputs import input_file
from checkbench.jsonl import iter_json_lines, validate
from checkbench.judges.samples import refuse_samples
from checkbench.schema import Verdict
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.stats.agreement import VerdictAgreement, verdict_agreement
from checkbench.store import RecordKind, RunStore
from checkbench.store.labels import is_human, model_judges

HUMAN = "human"


class _HumanLine(BaseModel):
    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)

    item_id: str
    model: str
    check_id: str
    passed: bool | None


def _unknown(
    row: _HumanLine, checks: dict[str, set[str]], responses: set[tuple[str, str]]
) -> tuple[str, str] | None:
    """(field, problem) when the line names no check of a response in the run."""
    if row.item_id not in checks:
        return "item_id", f"no item {row.item_id!r} in the run"
    if (row.item_id, row.model) not in responses:
        return "model", f"no response of {row.model!r} to item {row.item_id!r} in the run"
    if row.check_id not in checks[row.item_id]:
        return "check_id", f"item {row.item_id!r} has no check {row.check_id!r}"
    return None


def load_human_verdicts(path: str | Path, store: RunStore) -> list[Verdict]:
    """Human verdicts, each checked against the run's items, responses and checks."""
    checks = {item.id: {c.id for c in item.checklist} for item in store.items()}
    responses = {(r.item_id, r.model) for r in store.responses()}
    first_line: dict[tuple[str, str, str], int] = {}
    verdicts = []
    for line, data in iter_json_lines(path):
        row = validate(_HumanLine, data, path=path, line=line)
        key = (row.item_id, row.model, row.check_id)
        problem = _unknown(row, checks, responses)
        if problem is None and key in first_line:
            problem = (
                "check_id",
                f"a second verdict for this check (first at line {first_line[key]})",
            )
        if problem is not None:
            raise InputError(problem[1], path=path, line=line, field=problem[0])
        first_line[key] = line
        verdicts.append(Verdict(judge=HUMAN, **row.model_dump()))
    return verdicts


def _labels(store: RunStore, judge: str) -> list[Verdict]:
    """A person's labels kept in the run, as the human verdicts."""
    labels = store.verdicts(judge)
    if not labels:
        people = ", ".join(j for j in store.judges() if is_human(j)) or "none"
        raise InputError(f"no labels by {judge!r} in this run (people: {people})", field="human")
    return labels


class JudgeAgreement(VerdictAgreement):
    """One judge's agreement with the human verdicts."""

    judge: str


AGREEMENT_RECORD = RecordKind("judge_agreement", JudgeAgreement)
"""Record kind of each judge's agreement with the human verdicts in the run store, by judge."""


def judge_agreement(
    run_dir: str | Path,
    human: str | Path,
    *,
    judges: Sequence[str] = (),
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> list[JudgeAgreement]:
    """Agreement with the human verdicts (a file, or a person's labels in the run named
    `human:NAME`) of each named judge, or of every model judge in the run; each result is also
    kept in the run (for its HTML report)."""
    stored = is_human(str(human))
    if not stored:
        input_file(human)  # a bad path fails before the run is opened
    with RunStore.existing(run_dir) as store:
        refuse_samples(store, "agreement")
        found = store.judges()
        if not found:
            raise InputError("no verdicts in this run yet: judge it first", path=run_dir)
        for judge in judges:
            if judge not in found:
                raise InputError(
                    f"no verdicts by judge {judge!r} (judges: {', '.join(found)})", field="judge"
                )
        gold = _labels(store, str(human)) if stored else load_human_verdicts(human, store)
        results = [
            JudgeAgreement(
                judge=judge,
                **verdict_agreement(gold, store.verdicts(judge), b=b, seed=seed).model_dump(),
            )
            for judge in judges or model_judges(found)
        ]
        for result in results:
            store.put_record(AGREEMENT_RECORD, result.judge, result)
        return results
