"""One comparison: the candidate's item scores against the baseline's on the items both
answered, weighed as the protocol's score weighs them (`scoring.ScoreLayout`), so that the
delta of the headline is the difference of the two leaderboard scores on those items."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from checkbench.compare import stats
from checkbench.compare.result import (
    Comparison,
    Delta,
    FlippedCheck,
    Flips,
    MovedItem,
    TagDelta,
)
from checkbench.compare.runs import CompareSettings
from checkbench.compare.sides import Checks, Side, positions_in
from checkbench.scoring import ItemScores


def _column(
    scores: ItemScores | None, to_base: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """A side's item scores at the baseline run's positions (NaN: unscored) and whether it
    answered each."""
    values, answered = np.full(n, np.nan), np.zeros(n, dtype=bool)
    if scores is not None:
        at = to_base[scores.positions]
        inside = at >= 0
        values[at[inside]] = scores.values[inside]
        answered[at[inside]] = True
    return values, answered


def _round(value: float) -> float:
    return round(value, 4)


class _Paired:
    """The paired differences (points) at the kept baseline positions, with their strata."""

    def __init__(
        self, positions: np.ndarray, d: np.ndarray, strata: np.ndarray, s: CompareSettings
    ):
        self.positions, self.d, self.strata, self.settings = positions, d, strata, s
        self.at = {int(p): k for k, p in enumerate(positions.tolist())}

    def delta(self, members: np.ndarray | None = None) -> Delta:
        """The delta on the kept items among `members` (baseline positions; None: all)."""
        if members is None:
            chosen = np.arange(len(self.d))
        else:
            chosen = np.array(
                [self.at[p] for p in members.tolist() if p in self.at], dtype=np.int64
            )
        d, strata, s = self.d[chosen], self.strata[chosen], self.settings
        if not d.size:
            return Delta(None, None, 0, None)
        found = stats.paired_bootstrap(d, strata, b=s.resamples, seed=s.seed, level=1 - s.alpha)
        ci = (_round(found.low), _round(found.high)) if found.has_interval else None
        p = stats.sign_flip_p(d, strata, resamples=s.resamples, seed=s.seed)
        return Delta(_round(found.value), ci, int(d.size), p)


def compare_sides(base: Side, cand: Side, settings: CompareSettings) -> Comparison:
    """The candidate against the baseline (see `Comparison`)."""
    run = base.run
    n = len(run.ids)
    b_val, b_ans = _column(run.scores.get(base.model), positions_in(run, run), n)
    c_val, c_ans = _column(cand.run.scores.get(cand.model), positions_in(run, cand.run), n)
    both = b_ans & c_ans
    unscored_pair = both & (np.isnan(b_val) | np.isnan(c_val))
    layout = run.layout
    kept = both if layout.policy == "zero" else both & ~unscored_pair
    positions = np.flatnonzero(kept)
    b_kept, c_kept = np.nan_to_num(b_val[positions]), np.nan_to_num(c_val[positions])
    paired = _Paired(positions, (c_kept - b_kept) * 100, layout.group[positions], settings)
    headline = paired.delta()
    parts = {name: paired.delta(np.flatnonzero(mask)) for name, mask in layout.parts.items()}
    cells = [
        (facet, value, paired.delta(members))
        for facet, by_value in (layout.facets if settings.tags else {}).items()
        for value, members in by_value.items()
    ]
    cells = [cell for cell in cells if cell[2].n]
    adjusted = stats.benjamini_hochberg([delta.p_value for _, _, delta in cells])
    by_tag = [
        TagDelta(d.delta, d.ci, d.n, d.p_value, facet, value, p)
        for (facet, value, d), p in zip(cells, adjusted, strict=True)
    ]
    answered_both = int(both.sum())
    checks = (_side_checks(base, base), _side_checks(cand, base))
    return Comparison(
        baseline=base.label,
        candidate=cand.label,
        judge=run.judge if run.judge == cand.run.judge else f"{run.judge} / {cand.run.judge}",
        different_judges=run.judge != cand.run.judge,
        protocol=run.scorer.name,
        policy=layout.policy,
        n=headline.n,
        only_baseline=int(b_ans.sum()) - answered_both,
        only_candidate=_answered(cand) - answered_both,
        unscored=int(unscored_pair.sum()),
        delta=headline.delta,
        ci=headline.ci,
        p_value=headline.p_value,
        level=1 - settings.alpha,
        alpha=settings.alpha,
        margin=settings.margin,
        worse=_worse(headline, settings),
        parts=parts,
        flips=_flips(checks, np.flatnonzero(both)),
        by_tag=by_tag,
        items=_moved(base, cand, checks, paired, (b_val, c_val), settings.top),
    )


def _answered(side: Side) -> int:
    scores = side.run.scores.get(side.model)
    return 0 if scores is None else len(scores.positions)


def _worse(headline: Delta, settings: CompareSettings) -> bool:
    """Whether the candidate is worse beyond chance, or by more than the margin."""
    if headline.delta is None or headline.delta >= 0:
        return False
    beyond_chance = headline.p_value is not None and headline.p_value < settings.alpha
    return beyond_chance or (settings.margin is not None and headline.delta < -settings.margin)


UnitChecks = dict[tuple[int, int], Checks]
"""(baseline position, sample) -> a side's verdicts on that answer."""


def _side_checks(side: Side, base: Side) -> UnitChecks:
    """The side's verdicts keyed by (baseline position, sample)."""
    to_base = positions_in(base.run, side.run)
    return {
        (int(to_base[position]), sample): checks
        for (position, sample), checks in side.run.verdicts.get(side.model, {}).items()
        if to_base[position] >= 0
    }


def _flips(checks: tuple[UnitChecks, UnitChecks], positions: np.ndarray) -> Flips:
    """The checks judged on both sides of each paired (item, sample) and those that flipped."""
    b_checks, c_checks = checks
    wanted = set(positions.tolist())
    total = to_fail = to_pass = 0
    for unit, before in b_checks.items():
        after = c_checks.get(unit)
        if after is None or unit[0] not in wanted:
            continue
        for check, met in before.items():
            now = after.get(check)
            if met is None or now is None:
                continue
            total += 1
            to_fail += met and not now
            to_pass += now and not met
    return Flips(total, to_fail, to_pass, stats.mcnemar_p(to_fail, to_pass))


def _moved(
    base: Side,
    cand: Side,
    checks: tuple[UnitChecks, UnitChecks],
    paired: _Paired,
    values: tuple[np.ndarray, np.ndarray],
    top: int,
) -> list[MovedItem]:
    """The `top` items whose score moved most (ties by position), with both first answers and
    the checks that flipped."""
    b_val, c_val = values
    order = sorted(
        (k for k in range(len(paired.d)) if paired.d[k] != 0),
        key=lambda k: (-abs(paired.d[k]), k),
    )[:top]
    if not order:
        return []
    b_checks, c_checks = checks
    b_answers, c_answers = base.run.answers(base.model), cand.run.answers(cand.model)
    moved = []
    for k in order:
        position = int(paired.positions[k])
        item_id = base.run.ids[position]
        texts = {check.id: check.text for check in base.run.items[item_id].checklist}
        flipped = [
            FlippedCheck(check, texts.get(check, check), sample, met, now)
            for sample, before in _samples(b_checks, position)
            if (after := c_checks.get((position, sample))) is not None
            for check, met in before.items()
            if met is not None and (now := after.get(check)) is not None and now != met
        ]
        moved.append(
            MovedItem(
                id=item_id,
                baseline_score=_points(b_val[position]),
                candidate_score=_points(c_val[position]),
                delta=_round(float(paired.d[k])),
                baseline_answer=_content(b_answers.get(item_id)),
                candidate_answer=_content(c_answers.get(item_id)),
                flipped=flipped,
            )
        )
    return moved


def _samples(checks: UnitChecks, position: int) -> Iterator[tuple[int, Checks]]:
    """(sample, verdicts) of the answers to the item at `position`, by sample."""
    sample = 0
    while (position, sample) in checks:
        yield sample, checks[position, sample]
        sample += 1


def _points(value: float) -> float | None:
    return None if math.isnan(value) else _round(float(value) * 100)


def _content(response: object) -> str | None:
    return getattr(response, "content", None)
