"""The Judges section (page data "meta"): what the run store holds about its judges' quality.

Read from store records (`RunStore.put_record(kind, judge, report)`):
- the kinds registered protocols store per judge (`Protocol.judge_records`), e.g.
  IF-RewardBench's "meta_report" (F1 per class, edge accuracy, Kendall tau_b, breakdowns, and
  for a pairwise judge its position consistency);
- kind "judge_agreement": a `judges.human.JudgeAgreement` (verdicts against human ones:
  agreement, kappa, alpha, sensitivity, specificity, MCC);
- kind "reference_agreement": a `judges.reference.ReferenceAgreement` (verdicts against a
  reference judge's: agreement, and the model scores, ranking and shifts under each);
- kind "calibration_report": a `judges.calibration.CalibrationReport` (held-out figures of a
  calibrated judge before and after calibration), keyed by the calibrated judge.
A record that does not validate is listed as a problem on the page.
"""

from __future__ import annotations

from typing import Any

from checkbench import registry
from checkbench.judges.calibration import REPORT_RECORD
from checkbench.judges.human import AGREEMENT_RECORD
from checkbench.judges.reference import REFERENCE_RECORD
from checkbench.report.run import RunData
from checkbench.store import RecordKind

KINDS: tuple[RecordKind[Any], ...] = (AGREEMENT_RECORD, REFERENCE_RECORD, REPORT_RECORD)
"""The judge-quality results any run may hold, each by judge."""


def _protocol_kinds() -> list[RecordKind[Any]]:
    """The judge record kinds of the registered protocols."""
    return [
        kind
        for protocol in registry.protocols()
        if protocol.judge_records is not None
        for kind in protocol.judge_records()
    ]


def judges_section(run: RunData) -> dict[str, Any] | None:
    """Per judge, its stored meta-evaluation results; None when the run holds none."""
    problems: list[str] = []
    judges: dict[str, dict[str, Any]] = {}
    for kind in (*_protocol_kinds(), *KINDS):
        records = run.store.records(kind, only=run.options.judge, unreadable=problems)
        for key, record in records.items():
            judges.setdefault(key, {})[kind.name] = record.model_dump(mode="json")
    if not judges and not problems:
        return None
    return {"judges": judges, "problems": problems}
