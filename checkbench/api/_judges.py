"""Judges you can trust: a judge against a reference judge (or a file of reference verdicts),
and the calibration of a log-prob judge's P(yes) to that reference, on a run directory.

Every input is checked before anything is kept in the run: a bad one is one InputError."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from checkbench.errors import InputError
from checkbench.inputs import input_file, output_file
from checkbench.jsonl import write_jsonl, write_text_atomic
from checkbench.judges import calibration as calib
from checkbench.judges.calibration import CalibrationFit, CalibrationReport
from checkbench.judges.reference import (
    REFERENCE_RECORD,
    ReferenceAgreement,
    load_reference_verdicts,
)
from checkbench.judges.reference import reference_agreement as _reference_agreement
from checkbench.schema import Verdict
from checkbench.scoring import UnscoredPolicy
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.store import RunStore
from checkbench.store.labels import human_judge, labels, model_judges


def _check_judge(store: RunStore, judge: str, field: str = "judge_id") -> None:
    found = store.judges()
    if judge not in found:
        raise InputError(
            f"no verdicts by judge {judge!r} (judges: {', '.join(found) or 'none'})", field=field
        )


def _reference(
    store: RunStore, reference: str | None, reference_file: str | Path | None
) -> tuple[str | None, list[Verdict] | None]:
    """(reference judge id, None) or (None, the file's verdicts): exactly one of the two."""
    if (reference is None) == (reference_file is None):
        raise InputError(
            "name a reference: a judge of the run (--reference-judge) or a file of verdicts "
            "(--reference-file), one of the two",
            field="reference",
        )
    if reference is not None:
        _check_judge(store, reference, "reference_judge")
        return reference, None
    return None, load_reference_verdicts(input_file(reference_file or ""), store)


def reference_agreement(
    run_dir: str | Path,
    reference: str | None = None,
    *,
    reference_file: str | Path | None = None,
    judges: Sequence[str] = (),
    policy: UnscoredPolicy = "zero",
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> list[ReferenceAgreement]:
    """Each named judge (default: every judge of the run but the reference and people) against the
    reference judge `reference` of the run, or against the verdicts of `reference_file`
    (JSONL lines item_id, model, check_id, passed): per-check agreement, and the model scores,
    their ranking and the largest shift when the judge replaces the reference. A calibrated
    judge is measured on its held-out items only. Each result is kept in the run."""
    if reference_file is not None:
        input_file(reference_file)  # a bad path fails before the run is opened
    with RunStore.existing(run_dir) as store:
        name, gold = _reference(store, reference, reference_file)
        for judge in judges:
            _check_judge(store, judge)
            if judge == name:
                raise InputError(f"judge {judge!r} is the reference itself", field="judge_id")
        chosen = list(judges) or [j for j in model_judges(store.judges()) if j != name]
        if not chosen:
            raise InputError(
                "no judge to compare with the reference: judge the run first", path=run_dir
            )
        results = [
            _reference_agreement(
                store,
                judge,
                name,
                reference_verdicts=gold,
                policy=policy,
                b=b,
                seed=seed,
                save=False,
            )
            for judge in chosen
        ]
        for result in results:  # kept once every judge has been measured
            store.put_record(REFERENCE_RECORD, result.judge, result)
        return results


def _check_by(store: RunStore, by: str | None) -> None:
    if by is None or by == "category":
        return
    facet = by.removeprefix("tag:")
    if not by.startswith("tag:") or not facet:
        raise InputError(f"group by 'category' or 'tag:FACET', not {by!r}", field="by")
    facets = sorted({name for item in store.items() for name in item.tags})
    if facet not in facets:
        raise InputError(
            f"no item has tag facet {facet!r} (facets: {', '.join(facets) or 'none'})", field="by"
        )


def calibrate(run_dir: str | Path, fit: CalibrationFit) -> CalibrationReport:
    """Fit a calibration of a log-prob judge's P(yes) to the reference (a judge of the run, or
    a file of verdicts) on a seeded share of the items, and report it on the held-out items
    only. The artefact is kept in the run under its name (default "<judge>#calibrated");
    `fit.apply` also stores the calibrated verdicts, `fit.export` writes the artefact as JSON."""
    if fit.reference_file is not None:
        input_file(fit.reference_file)
    if fit.export is not None:
        output_file(fit.export)
    with RunStore.existing(run_dir, writer=True) as store:
        _check_judge(store, fit.judge)
        _, gold = _reference(store, fit.reference, fit.reference_file)
        _check_by(store, fit.by)
        report = calib.fit_calibration(store, fit, reference_verdicts=gold)
        if fit.apply:
            calib.store_calibrated_verdicts(store, report.name)
        if fit.export is not None:
            artefact = calib.load_calibration(store, report.name)
            write_text_atomic(fit.export, artefact.model_dump_json(indent=2) + "\n")
        return report


def export_labels(run_dir: str | Path, out: str | Path, *, annotator: str | None = None) -> int:
    """Write the human labels of the run (of one annotator, when named) to `out` as JSONL,
    atomically, one label a line: item_id, model, sample, check_id, passed (the human-verdict
    format `agreement --human FILE` reads), with annotator, judge, note, at (seconds since the
    epoch) and queue_reason. Returns how many lines were written."""
    if annotator is not None:
        human_judge(annotator)
    output_file(out)
    with RunStore.existing(run_dir) as store:
        found = labels(store, annotator)
    return write_jsonl(out, [label.model_dump() | {"judge": label.judge} for label in found])
