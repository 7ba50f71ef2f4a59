"""The order in which a person labels a run's checks: first what is worth their minute.

1. checks where the model judges disagree (most evenly split first; a calibrated judge speaks
   for the judge it calibrates);
2. checks whose P(yes) is uncertain, inside `UNCERTAIN` (closest to 0.5 first), calibrated
   when a calibration of the run has graded the check, the judge's own P(yes) otherwise;
3. checks whose verdicts differ between samples of the same item and model;
4. the rest, the least certain P(yes) first, then by item.

Each entry says why it is where it is. Human judges' verdicts are no signal here."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from checkbench.judges.reference import CALIBRATION_RECORD
from checkbench.store import RunStore
from checkbench.store.labels import labelled_units, verdict_signals

UNCERTAIN = (0.2, 0.8)
"""P(yes) strictly inside this band counts as uncertain."""
JUDGES_DISAGREE, UNCERTAIN_P, SAMPLES_DISAGREE, REST = range(4)


@dataclass(frozen=True, slots=True)
class QueueEntry:
    """One check of one response, with its rank's reasons (most important first)."""

    position: int
    """The item's position in the run."""
    item_id: str
    model: str
    sample: int
    check_id: str
    tier: int
    reasons: tuple[str, ...]


@dataclass(slots=True)
class _Signals:
    passed: dict[str, bool]
    """judge -> its scored verdict."""
    p_yes: dict[str, float]
    """judge -> its P(yes)."""


def _split(passes: int, total: int) -> float:
    """How evenly split `passes` of `total` are: 0 (unanimous) to 0.5 (even)."""
    return min(passes, total - passes) / total if total else 0.0


def _agreed(votes: list[bool]) -> str:
    if not votes:
        return "no verdict yet"
    return f"{len(votes)} judge{'s' * (len(votes) > 1)}, all {'pass' if votes[0] else 'fail'}"


def _uncertainty(signals: _Signals, calibrated: set[str]) -> tuple[float, str] | None:
    """(P(yes), what it is) closest to 0.5: a calibrated judge's if one graded the check."""
    chosen = signals.p_yes
    if calibrated and not calibrated.isdisjoint(chosen):
        chosen = {j: p for j, p in chosen.items() if j in calibrated}
    if not chosen:
        return None
    judge, p = min(chosen.items(), key=lambda kv: (abs(kv[1] - 0.5), kv[0]))
    kind = "calibrated P(yes)" if judge in calibrated else "P(yes)"
    return p, f"{kind} {p:.2f} by {judge}"


Unit = tuple[str, str, int, str]
"""(item id, model, sample, check id)."""


def _signals(
    store: RunStore,
) -> tuple[dict[Unit, _Signals], dict[tuple[str, str, str], tuple[float, str]]]:
    """The model judges' verdicts and P(yes) by unit, and by (item id, model, check id) how
    evenly its samples disagree and why, where they do (the most evenly split judge's)."""
    signals: dict[Unit, _Signals] = {}
    across: dict[tuple[str, str, str, str], list[bool]] = defaultdict(list)
    for item_id, model, sample, judge, check_id, passed, p_yes in verdict_signals(store):
        key = (item_id, model, sample, check_id)
        if (found := signals.get(key)) is None:
            found = signals[key] = _Signals({}, {})
        if passed not in (0, 1, None) or type(passed) is str:  # named by the store on close
            raise ValueError("a verdict's passed column is not 1, 0 or NULL")
        if passed is not None:
            found.passed[judge] = passed == 1
            across[item_id, model, check_id, judge].append(passed == 1)
        if type(p_yes) is float or type(p_yes) is int:
            found.p_yes[judge] = float(p_yes)
    split_samples: dict[tuple[str, str, str], tuple[float, str]] = {}
    for (item_id, model, check_id, judge), votes in across.items():
        split = _split(sum(votes), len(votes))
        if split > split_samples.get((item_id, model, check_id), (0.0, ""))[0]:
            reason = f"samples disagree: {sum(votes)} of {len(votes)} pass by {judge}"
            split_samples[item_id, model, check_id] = (split, reason)
    return signals, split_samples


def build_queue(store: RunStore) -> list[QueueEntry]:
    """Every check of every usable answer to an item with a checklist, in labelling order."""
    calibrations = store.records(CALIBRATION_RECORD)
    calibrated = set(calibrations)
    raw_of = {name: str(artefact.get("judge")) for name, artefact in calibrations.items()}
    signals, split_samples = _signals(store)
    ranked: list[tuple[tuple[float | int | str, ...], QueueEntry]] = []
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}
    """The distinct reasons, kept once (a large run repeats few)."""
    names: dict[str, str] = {}
    for position, item_id, model, sample, checks in labelled_units(store):
        model = names.setdefault(model, model)  # a model's name once, not once per check
        for order, (check_id, _) in enumerate(json.loads(checks)):
            check_id = names.setdefault(check_id, check_id)
            found = signals.get((item_id, model, sample, check_id)) or _Signals({}, {})
            reasons: list[tuple[int, float, str]] = []
            superseded = {raw_of[j] for j in found.passed if j in raw_of}
            votes = [v for j, v in found.passed.items() if j not in superseded]
            if split := _split(sum(votes), len(votes)):
                text = f"judges disagree: {sum(votes)} of {len(votes)} pass"
                reasons.append((JUDGES_DISAGREE, split, text))
            p = _uncertainty(found, calibrated)
            closeness = 0.5 - abs(p[0] - 0.5) if p else -1.0
            if p and UNCERTAIN[0] < p[0] < UNCERTAIN[1]:
                reasons.append((UNCERTAIN_P, closeness, p[1]))
            if (samples := split_samples.get((item_id, model, check_id))) is not None:
                reasons.append((SAMPLES_DISAGREE, *samples))
            if not reasons:
                text = p[1] if p else _agreed(votes)
                reasons.append((REST, closeness, text))
            tier, strength, _ = reasons[0]
            why = tuple(r[2] for r in reasons)
            why = shared.setdefault(why, why)
            entry = QueueEntry(position, item_id, model, sample, check_id, tier, why)
            ranked.append(((tier, -strength, -closeness, position, order, model, sample), entry))
    ranked.sort(key=lambda pair: pair[0])
    return [entry for _, entry in ranked]
