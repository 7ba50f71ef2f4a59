"""Calibrated checklist grading for cheap judges (after RocketEval): map a log-prob judge's
P(yes) per check to the probability that a reference judge (or a human) passes the check,
fitted on a labelled subset, and grade with it.

Items are split by a seeded draw into training and held-out items (no item in both; all of an
item's responses and checks go to one side). A curve is fitted on the training verdicts,
logistic regression on logit P(yes) or isotonic regression on P(yes) (scikit-learn), for the
whole run and optionally per group of checks (a check category, or an item tag facet), a group
with too few or one-class training verdicts using the whole-run curve. The fitted calibration is
a versioned JSON artefact kept in the run. Its report shows figures on held-out items only:
agreement with the reference and the ranking effect, before and after calibration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from checkbench.errors import InputError
from checkbench.judges.calibration_artefact import (
    ALL,
    CALIBRATION_FORMAT,
    CALIBRATION_VERSION,
    Calibration,
    CalibrationSettings,
    Curve,
    Decision,
    Method,
    calibrated_verdicts,
    check_index,
    fit_curve,
    group_key,
    load_calibration,
    read_calibration,
)
from checkbench.judges.reference import (
    CALIBRATION_RECORD,
    ReferenceAgreement,
    compare_verdicts,
    reference_verdicts_for,
)
from checkbench.judges.samples import refuse_samples
from checkbench.schema import Check, Item, Verdict
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.stats.agreement import VerdictAgreement
from checkbench.store import RecordKind, RunStore

__all__ = [
    "CALIBRATION_FORMAT",
    "CALIBRATION_RECORD",
    "CALIBRATION_VERSION",
    "REPORT_RECORD",
    "Calibration",
    "CalibrationFit",
    "CalibrationReport",
    "Curve",
    "Decision",
    "Method",
    "SplitFacts",
    "apply_calibration",
    "calibration_warning",
    "calibrate_run",
    "stored_warning",
    "store_calibrated_verdicts",
    "calibrated_verdicts",
    "fit_calibration",
    "load_calibration",
    "read_calibration",
    "split_items",
]


class SplitFacts(BaseModel):
    """One side of the split: items, usable verdicts (P(yes) and a reference label), passes."""

    items: int
    verdicts: int
    reference_positive: int


class CalibrationReport(CalibrationSettings):
    """What a calibration did, on held-out items only: `before` is the judge's own verdicts
    (P(yes) >= 0.5), `after` the calibrated ones, both against the reference."""

    train: SplitFacts
    test: SplitFacts
    unusable: int
    """Judge verdicts without P(yes) (unscored) or without a reference label: not fitted on."""
    groups: dict[str, int]
    """Group -> its training verdicts, for groups with their own curve."""
    fallback_groups: dict[str, str] = {}
    """Group -> why it got no curve of its own (too few training checks, or one class): its
    checks use the whole-run curve."""
    before: ReferenceAgreement
    after: ReferenceAgreement
    warning: str | None = None
    """One line when the calibrated judge cannot be trusted on the held-out items: its
    verdicts are (nearly) constant, or its kappa with the reference is not above 0."""


REPORT_RECORD = RecordKind("calibration_report", CalibrationReport)
"""Record kind of a CalibrationReport in the run store, keyed by the calibrated judge."""


@dataclass(frozen=True)
class CalibrationFit:
    """What `calibrate` fits and how, built once by the CLI (or a caller) and taken as it is:
    log-prob judge `judge`'s P(yes) against a reference, the judge `reference` of the run or
    the verdicts of `reference_file` (one of the two); the curve (`method`, per group of
    checks `by`: "category" or "tag:FACET", a group needing `min_group` training checks),
    the `decision`, the seeded share of items held out (`test_fraction`, `seed`), the
    calibrated judge's `name` (default "<judge>#calibrated"), whether to `apply` it (store its
    verdicts) and where to `export` the artefact; `b` and `level` are the intervals'."""

    judge: str
    reference: str | None = None
    reference_file: str | Path | None = None
    method: Method = "logistic"
    by: str | None = None
    decision: Decision = "bayes"
    test_fraction: float = 0.5
    seed: int = DEFAULT_SEED
    min_group: int = 20
    name: str | None = None
    apply: bool = False
    export: str | Path | None = None
    b: int = DEFAULT_B
    level: float = 0.95


def split_items(
    item_ids: Sequence[str], test_fraction: float = 0.5, seed: int = DEFAULT_SEED
) -> tuple[list[str], list[str]]:
    """A seeded split of distinct items into (train, test), each sorted and never empty."""
    ids = sorted(set(item_ids))
    if len(ids) < 2:
        raise InputError(
            f"calibration needs labelled verdicts on at least 2 items, found {len(ids)}"
        )
    if not 0.0 < test_fraction < 1.0:
        raise InputError(
            f"test fraction must be in (0, 1), got {test_fraction}", field="test_fraction"
        )
    order = np.random.default_rng(seed).permutation(len(ids))
    n_test = min(len(ids) - 1, max(1, round(len(ids) * test_fraction)))
    test = sorted(ids[i] for i in order[:n_test])
    train = sorted(ids[i] for i in order[n_test:])
    return train, test


@dataclass(frozen=True)
class _Unit:
    item: Item
    check: Check
    p_yes: float
    label: bool


def _units(
    items: Sequence[Item], judge: Sequence[Verdict], reference: Sequence[Verdict]
) -> tuple[list[_Unit], int]:
    """(P(yes), reference label) pairs matched on (item, model, check), and the judge verdicts
    left without one."""
    gold = {(v.item_id, v.model, v.check_id): v.passed for v in reference}
    checks = check_index(items)
    units, unusable = [], 0
    for v in judge:
        label = gold.get((v.item_id, v.model, v.check_id))
        found = checks.get((v.item_id, v.check_id))
        if v.p_yes is None or label is None or found is None:
            unusable += 1
            continue
        units.append(_Unit(*found, p_yes=v.p_yes, label=label))
    return units, unusable


def _fit_curves(
    train: list[_Unit], method: Method, by: str | None, min_group: int
) -> tuple[dict[str, Curve], dict[str, str]]:
    """The curves (the whole-run one, and each group's that can be fitted), and the groups
    left to the whole-run curve with the reason."""

    def fit(units: list[_Unit]) -> Curve:
        p = np.array([u.p_yes for u in units])
        return fit_curve(p, np.array([int(u.label) for u in units]), method)

    curves = {ALL: fit(train)}
    fallback: dict[str, str] = {}
    groups: dict[str, list[_Unit]] = {}
    for unit in train:
        if by is not None:
            groups.setdefault(group_key(by, unit.item, unit.check), []).append(unit)
    for key, units in sorted(groups.items()):
        passed = sum(u.label for u in units)
        if len(units) < min_group:
            fallback[key] = f"{len(units)} training checks (fewer than {min_group})"
        elif passed in (0, len(units)):
            side = "passed" if passed else "failed"
            fallback[key] = f"one class: all {len(units)} training checks {side}"
        else:
            curves[key] = fit(units)
    return curves, fallback


NEAR_CONSTANT = 0.02
"""A judge whose held-out verdicts hold at most this share of one answer is near constant."""


def calibration_warning(name: str, agreement: VerdictAgreement) -> str | None:
    """One line when a calibrated judge's held-out verdicts are (nearly) constant or its kappa
    with the reference is not above 0: its raw agreement then measures the base rate."""
    scored = agreement.judged_positive + agreement.judged_negative
    problems = []
    if scored:
        minority = min(agreement.judged_positive, agreement.judged_negative)
        if minority <= NEAR_CONSTANT * scored:
            problems.append(
                f"its held-out verdicts are {'nearly ' if minority else ''}constant "
                f"({agreement.judged_positive} pass, {agreement.judged_negative} fail)"
            )
    kappa = agreement.kappa.value
    if kappa is None or kappa <= 0:
        problems.append("kappa is undefined" if kappa is None else f"kappa {kappa:.3f} <= 0")
    if not problems:
        return None
    raw, base = agreement.agreement.value, agreement.base_rate
    told = (
        f"; its raw agreement {raw:.3f} reflects the base rate (the reference passes "
        f"{base:.3f} of the checks)"
        if raw is not None and base is not None
        else ""
    )
    return f"WARNING: calibrated judge {name} is not informative: {', '.join(problems)}{told}"


def _threshold(calibration: Calibration, train: list[_Unit]) -> float:
    """0.5 (the likelier side), or the level at which as many training checks pass as the
    reference passed ("rate")."""
    if calibration.decision == "bayes":
        return 0.5
    q = np.array([calibration.probability(u.item, u.check, u.p_yes) for u in train])
    rate = np.mean([u.label for u in train])
    return float(np.quantile(q, 1.0 - rate)) if 0.0 < rate < 1.0 else 0.5


_SHARED = set(CalibrationSettings.model_fields)


def _facts(units: list[_Unit], items: int) -> SplitFacts:
    return SplitFacts(
        items=items, verdicts=len(units), reference_positive=sum(u.label for u in units)
    )


def fit_calibration(
    store: RunStore,
    fit: CalibrationFit,
    *,
    reference_verdicts: Sequence[Verdict] | None = None,
    save: bool = True,
) -> CalibrationReport:
    """Fit a calibration of `fit.judge`'s P(yes) to the reference judge's (or given) verdicts
    on a seeded share of the items, and measure it on the others. When `save`, the artefact
    (kind CALIBRATION_RECORD) and the report (kind REPORT_RECORD) are kept in the run."""
    refuse_samples(store, "calibrate")
    judge = fit.judge
    own = store.verdicts(judge)
    gold = reference_verdicts_for(store, fit.reference, reference_verdicts)
    if not own or not any(v.p_yes is not None for v in own):
        raise InputError(
            f"judge {judge!r} has no P(yes) verdicts: judge with --mode logprob", field="judge"
        )
    items = [item for item in store.items() if item.checklist]
    units, unusable = _units(items, own, gold)
    train_ids, test_ids = split_items([u.item.id for u in units], fit.test_fraction, fit.seed)
    train_set = set(train_ids)
    train = [u for u in units if u.item.id in train_set]
    name = fit.name or f"{judge}#calibrated"
    if name == judge:
        raise InputError("the calibrated judge needs a name of its own", field="name")
    calibration = Calibration(
        name=name,
        judge=judge,
        reference=gold[0].judge,
        method=fit.method,
        by=fit.by,
        decision=fit.decision,
        threshold=0.5,
        seed=fit.seed,
        test_fraction=fit.test_fraction,
        min_group=fit.min_group,
        train_items=train_ids,
        test_items=test_ids,
        curves={},
    )
    calibration.curves, fallback = _fit_curves(train, fit.method, fit.by, fit.min_group)
    calibration.threshold = _threshold(calibration, train)
    responses = store.responses()
    held_out = {"exclude_items": train_set, "b": fit.b, "seed": fit.seed, "level": fit.level}
    report = CalibrationReport(
        **calibration.model_dump(include=_SHARED),
        train=_facts(train, len(train_ids)),
        test=_facts([u for u in units if u.item.id not in train_set], len(test_ids)),
        unusable=unusable,
        groups={k: c.train_verdicts for k, c in calibration.curves.items() if k != ALL},
        fallback_groups=fallback,
        before=compare_verdicts(items, responses, own, gold, **held_out),
        after=compare_verdicts(
            items, responses, calibrated_verdicts(calibration, items, own), gold, **held_out
        ),
    )
    report.warning = calibration_warning(name, report.after.agreement)
    if save:
        store.put_record(CALIBRATION_RECORD, calibration.name, calibration.model_dump(mode="json"))
        store.put_record(REPORT_RECORD, calibration.name, report)
    return report


def store_calibrated_verdicts(store: RunStore, name: str) -> list[Verdict]:
    """Grade with a calibration (kept in the run, or a JSON file): the calibrated judge's
    verdicts on every response its judge judged, stored in the run and returned."""
    calibration = load_calibration(store, name)
    own = store.verdicts(calibration.judge)
    if not own:
        stored = name in store.records(CALIBRATION_RECORD, only=name)
        found = ", ".join(store.judges()) or "none"
        raise InputError(
            f"no verdicts by judge {calibration.judge!r} in the run to calibrate (judges: {found})",
            path=f"{store.run_dir} (calibration {name!r})" if stored else name,
            field="judge",
        )
    verdicts = calibrated_verdicts(calibration, store.items(), own)
    store.put_verdicts(verdicts)
    if not store.records(CALIBRATION_RECORD, only=calibration.name):
        store.put_record(CALIBRATION_RECORD, calibration.name, calibration.model_dump(mode="json"))
    judges = store.get_meta("judges", {})
    judges[calibration.name] = {
        "mode": f"calibrated {calibration.method} v{calibration.version} of {calibration.judge}",
        "prompts": judges.get(calibration.judge, {}).get("prompts", []),
    }
    store.set_meta("judges", judges)
    return verdicts


def apply_calibration(run_dir: str | Path, calibration: str | Path) -> Calibration:
    """Grade a run with a calibration (its name in the run, or an exported JSON file): the
    calibrated judge's verdicts are stored in the run under the calibration's name, which is
    returned with the rest of the artefact."""
    with RunStore.existing(run_dir, writer=True) as store:
        return calibrate_run(store, str(calibration))


def calibrate_run(store: RunStore, name: str) -> Calibration:
    """`apply_calibration` on an open store (a writer)."""
    artefact = load_calibration(store, name)
    store_calibrated_verdicts(store, name)
    return artefact


def stored_warning(store: RunStore, judge: str) -> str | None:
    """The warning of the stored report of the calibration that made judge `judge`, if it has
    one (None for another judge, or a calibration read from a file without its report here)."""
    reports = store.records(REPORT_RECORD, only=judge)
    return reports[judge].warning if judge in reports else None
