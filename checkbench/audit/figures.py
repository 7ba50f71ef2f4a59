"""Per benchmark: how well the leaderboard separates its models and how stable its order is,
and how many independent things its checks measure.

- separability: the share of model pairs whose 95% leaderboard intervals do not overlap, read
  from the very intervals the protocol's leaderboard prints (as arena-hard-auto reports it);
- paired separability: the share of pairs whose paired item bootstrap of the difference of
  their mean item scores gives a 95% interval without 0 (the same items in both means);
- rank stability: the mean Kendall tau_b (scipy.stats.kendalltau's, computed for every resample
  at once) between the models' order by mean item score and that order in each item bootstrap
  resample, with its 2.5-97.5 percentiles;
- effective number of checks: the participation ratio (sum of eigenvalues)^2 / sum of squared
  eigenvalues of the correlation matrix of the checks across models (checks every model passes
  alike left out), computed as trace(G)^2 / |G|_F^2 of the models' Gram matrix, with a
  bootstrap over checks: at most models - 1, since the correlations are across models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from pydantic import BaseModel
from scipy import stats

from checkbench.scoring import ItemScores


class Figure(BaseModel):
    """A figure with its 95% interval (None, with `note` saying why, when it has none) and
    `n`, what it was computed over (`of`)."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int
    of: str
    note: str | None = None


class Figures(BaseModel):
    separability: Figure
    paired_separability: Figure
    rank_stability: Figure
    effective_checks: Figure


@dataclass(frozen=True)
class Board:
    """A protocol's leaderboard as the audit reads it: per model its score and 95% interval
    (NaN when it has none), and how it counted unscored items."""

    models: list[str]
    scores: np.ndarray
    low: np.ndarray
    high: np.ndarray
    policy: str

    @classmethod
    def of(cls, board: Any) -> Board:
        """From FB-Bench's leaderboard (rows, overall) or Conv-to-Bench's scores (models)."""
        rows = getattr(board, "rows", None)
        cells = (
            [(r.model, r.overall, r.overall_ci) for r in rows]
            if rows is not None
            else [(r.model, r.score, r.ci) for r in board.models]
        )
        nan = float("nan")
        return cls(
            [model for model, _, _ in cells],
            np.array([nan if s is None else s for _, s, _ in cells], dtype=float),
            np.array([nan if ci is None else ci[0] for _, _, ci in cells], dtype=float),
            np.array([nan if ci is None else ci[1] for _, _, ci in cells], dtype=float),
            board.policy,
        )

    def score_of(self, models: list[str]) -> np.ndarray:
        """The scores of `models` in that order, NaN for a model not on the board."""
        at = dict(zip(self.models, self.scores.tolist(), strict=True))
        return np.array([at.get(model, np.nan) for model in models], dtype=float)


def _none(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def separability(board: Board) -> Figure:
    """The share of model pairs, among those with intervals, whose intervals do not overlap."""
    has = ~np.isnan(board.low)
    pairs = [(i, j) for i, j in combinations(np.flatnonzero(has).tolist(), 2)]
    of = "model pairs with intervals"
    if not pairs:
        return Figure(value=None, n=0, of=of, note="fewer than two models with an interval")
    apart = sum(board.low[i] > board.high[j] or board.low[j] > board.high[i] for i, j in pairs)
    return Figure(
        value=apart / len(pairs),
        n=len(pairs),
        of=of,
        note="a count over this run's pairs: no interval",
    )


def item_matrix(
    scores: Mapping[str, ItemScores], models: list[str], items: int, policy: str
) -> np.ndarray:
    """(models, items): item scores, NaN where not answered (or unscored, with "exclude");
    unscored items are 0 with "zero"."""
    table = np.full((len(models), items), np.nan)
    for m, model in enumerate(models):
        found = scores.get(model)
        if found is not None:
            values = found.values
            table[m, found.positions] = np.nan_to_num(values) if policy == "zero" else values
    return table


def _draw_means(table: np.ndarray, b: int, seed: int) -> np.ndarray:
    """(b, models): each model's mean item score in b item bootstrap resamples (the same
    resampled items for every model), by multinomial counts of the items."""
    present = ~np.isnan(table)
    values = np.where(present, table, 0.0)
    rng = np.random.default_rng(seed)
    n = table.shape[1]
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=b).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ values.T) / (counts @ present.T.astype(float))


def paired_separability(table: np.ndarray, b: int, seed: int) -> Figure:
    """The share of model pairs whose paired bootstrap interval of the difference of mean
    item scores excludes 0."""
    of = "model pairs"
    if table.shape[0] < 2 or table.shape[1] < 2:
        return Figure(value=None, n=0, of=of, note="needs two models and two items")
    means = _draw_means(table, b, seed)
    i, j = np.triu_indices(table.shape[0], 1)
    diff = means[:, i] - means[:, j]
    low, high = np.nanpercentile(diff, [2.5, 97.5], axis=0)
    apart = (low > 0) | (high < 0)
    return Figure(value=float(apart.mean()), n=len(i), of=of, note="a count over this run's pairs")


def kendall_tau_b(x: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Kendall tau_b of x with each row of `draws` (NaN where either side is constant), over
    the pairs of positions: sum of sign products / sqrt(untied pairs of x * untied of the
    row); what scipy.stats.kendalltau gives, for every row at once."""
    i, j = np.triu_indices(len(x), 1)
    sx = np.sign(x[i] - x[j])
    sy = np.sign(draws[:, i] - draws[:, j])
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sy @ sx) / np.sqrt(np.count_nonzero(sx) * np.count_nonzero(sy, axis=1))


def rank_stability(table: np.ndarray, b: int, seed: int) -> Figure:
    """The mean Kendall tau_b between the models' order by mean item score and its order in
    each item bootstrap resample, with the 2.5-97.5 percentiles of the resamples' tau_b."""
    of = "items resampled"
    if table.shape[0] < 2 or table.shape[1] < 2:
        return Figure(value=None, n=table.shape[1], of=of, note="needs two models and two items")
    full = np.nanmean(table, axis=1)
    means = _draw_means(table, b, seed)
    taus = kendall_tau_b(full, means)
    taus = taus[~np.isnan(taus)]
    if not taus.size:
        return Figure(value=None, n=table.shape[1], of=of, note="every model ties")
    low, high = np.percentile(taus, [2.5, 97.5])
    return Figure(
        value=float(taus.mean()), low=float(low), high=float(high), n=table.shape[1], of=of
    )


def effective_checks(rates: np.ndarray, b: int, seed: int) -> Figure:
    """The participation ratio of the checks' correlation matrix across models, with a
    bootstrap interval over checks; `rates` is (checks, models) pass rates, NaN = none (a
    check's missing models take its mean)."""
    of = "checks that vary across models"
    if rates.shape[1] < 3:
        return Figure(value=None, n=0, of=of, note="needs three models")
    seen = (~np.isnan(rates)).sum(axis=1, keepdims=True)
    sums = np.nansum(rates, axis=1, keepdims=True)
    means = np.divide(sums, seen, out=np.full_like(sums, np.nan), where=seen > 0)  # no warning
    filled = np.where(np.isnan(rates), means, rates)  # a check no model has stays NaN: left out
    centred = filled - filled.mean(axis=1, keepdims=True)
    spread = np.sqrt((centred**2).sum(axis=1))
    z = centred[spread > 1e-12] / spread[spread > 1e-12, None]
    if len(z) < 2:
        return Figure(value=None, n=len(z), of=of, note="fewer than two checks vary")

    def ratio(gram: np.ndarray) -> np.ndarray:
        trace = np.trace(gram, axis1=-2, axis2=-1)
        return trace**2 / (gram**2).sum(axis=(-2, -1))

    value = float(ratio(z.T @ z))
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(len(z), np.full(len(z), 1.0 / len(z)), size=min(b, 200))
    outer = (z[:, :, None] * z[:, None, :]).reshape(len(z), -1)  # each check's z z^T
    grams = (weights.astype(float) @ outer).reshape(-1, z.shape[1], z.shape[1])
    draws = ratio(grams)
    low, high = np.percentile(draws, [2.5, 97.5])
    return Figure(value=value, low=float(low), high=float(high), n=len(z), of=of)


def figures(board: Board, table: np.ndarray, rates: np.ndarray, *, b: int, seed: int) -> Figures:
    """Every figure of one version of the benchmark (full or refined)."""
    return Figures(
        separability=separability(board),
        paired_separability=paired_separability(table, b, seed),
        rank_stability=rank_stability(table, b, seed),
        effective_checks=effective_checks(rates, b, seed),
    )


def leaderboard_tau(full: Board, refined: Board) -> Figure:
    """Kendall tau_b between the full and the refined leaderboards' scores (models on both),
    the interval left out: both are computed from the same verdicts."""
    scores = refined.score_of(full.models)
    kept = ~np.isnan(full.scores) & ~np.isnan(scores)
    of = "models on both leaderboards"
    if kept.sum() < 2:
        return Figure(value=None, n=int(kept.sum()), of=of, note="fewer than two models")
    tau = stats.kendalltau(full.scores[kept], scores[kept])
    return Figure(
        value=_none(float(tau.statistic)),
        n=int(kept.sum()),
        of=of,
        note=f"p = {tau.pvalue:.3g}; same verdicts on both sides, so no resampling interval",
    )
