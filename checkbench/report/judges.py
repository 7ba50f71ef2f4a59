"""The Judges section (page data "meta"): what the run store holds about its judges' quality.

Read from store records (`RunStore.put_record(kind, judge, report.model_dump(mode="json"))`):
- the kinds registered protocols store per judge (`Protocol.judge_records`), e.g.
  IF-RewardBench's "meta_report" (F1 per class, edge accuracy, Kendall tau_b, breakdowns, and
  for a pairwise judge its position consistency);
- kind "judge_agreement": a `stats.agreement.VerdictAgreement` (verdicts against human ones:
  agreement, kappa, alpha, sensitivity, specificity, MCC);
- kind "reference_agreement": a `judges.reference.ReferenceAgreement` (verdicts against a
  reference judge's: agreement, and the model scores, ranking and shifts under each);
- kind "calibration_report": a `judges.calibration.CalibrationReport` (held-out figures of a
  calibrated judge before and after calibration), keyed by the calibrated judge.
A record that does not validate is listed as a problem on the page.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from checkbench import registry
from checkbench.judges.calibration import REPORT_RECORD, CalibrationReport
from checkbench.judges.reference import REFERENCE_RECORD, ReferenceAgreement
from checkbench.report.records import stored_records
from checkbench.report.run import RunData
from checkbench.stats.agreement import VerdictAgreement

JUDGE_AGREEMENT = "judge_agreement"
KINDS: dict[str, type[BaseModel]] = {
    JUDGE_AGREEMENT: VerdictAgreement,
    REFERENCE_RECORD: ReferenceAgreement,
    REPORT_RECORD: CalibrationReport,
}


def _protocol_kinds() -> dict[str, type[BaseModel]]:
    """The judge record kinds of the registered protocols."""
    kinds: dict[str, type[BaseModel]] = {}
    for protocol in registry.protocols():
        if protocol.judge_records is not None:
            kinds.update(protocol.judge_records())
    return kinds


def judges_section(run: RunData) -> dict[str, Any] | None:
    """Per judge, its stored meta-evaluation results; None when the run holds none."""
    problems: list[str] = []
    judges: dict[str, dict[str, Any]] = {}
    for kind, model in {**_protocol_kinds(), **KINDS}.items():
        records = stored_records(run.store, kind, model, problems, only=run.options.judge)
        for key, record in records.items():
            judges.setdefault(key, {})[kind] = record.model_dump(mode="json")
    if not judges and not problems:
        return None
    return {"judges": judges, "problems": problems}
