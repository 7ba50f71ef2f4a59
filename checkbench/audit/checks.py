"""Per check, across a run's models, judges and samples: pass rate, discrimination, judge
disagreement, flip rate, unscored rate, and the flags they raise, each with its reason in words."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from checkbench.audit.matrix import VerdictMatrix
from checkbench.audit.settings import AuditSettings
from checkbench.audit.texts import TextFlags
from checkbench.choices import FlagKind


@dataclass(frozen=True)
class CheckStats:
    """Per check (run order), NaN where a figure has nothing to stand on: `verdicts` of the
    scored judge (with the unscored ones), `models` with a scored verdict, `pass_rate` over
    its scored verdicts, `r` and `p_negative` the correlation of the models' pass rates with
    their overall scores and its one-sided p-value, `disagreement` with the other judges,
    `flip` the share of models (of those with two scored samples or more) whose samples differ,
    `unscored` the share of verdicts given as unscored."""

    verdicts: np.ndarray
    models: np.ndarray
    pass_rate: np.ndarray
    r: np.ndarray
    p_negative: np.ndarray
    disagreement: np.ndarray
    flip: np.ndarray
    unscored: np.ndarray
    rates: np.ndarray = field(repr=False)
    """(checks, models): each model's pass rate of the check."""


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.maximum(den, 1), np.nan)


def correlations(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson r of each row of x (NaN = missing) with y over the row's present columns, and
    the one-sided p-value of r < 0 (Student's t, n - 2 degrees of freedom); NaN with fewer
    than three columns or no variance."""
    w = ~np.isnan(x) & ~np.isnan(y)[None, :]
    n = w.sum(1)
    x0, y0 = np.where(w, x, 0.0), np.where(w, y[None, :], 0.0)
    mx, my = _ratio(x0.sum(1), n), _ratio(y0.sum(1), n)
    dx, dy = np.where(w, x0 - mx[:, None], 0.0), np.where(w, y0 - my[:, None], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (dx * dy).sum(1) / np.sqrt((dx**2).sum(1) * (dy**2).sum(1))
        r = np.where(n >= 3, np.clip(r, -1.0, 1.0), np.nan)
        t = r * np.sqrt((n - 2) / np.maximum(1 - r**2, 1e-300))
    return r, np.where(np.isnan(r), np.nan, stats.t.cdf(t, np.maximum(n - 2, 1)))


def check_stats(matrix: VerdictMatrix, scores: np.ndarray) -> CheckStats:
    """The figures of every check; `scores`: each model's overall score (NaN when none)."""
    own = matrix.passed[0]
    scored = ~np.isnan(own)
    given = scored | matrix.unscored[0]
    rates = matrix.model_rates()
    r, p = correlations(rates, scores)
    several = scored.sum(2) >= 2
    differ = several & (
        np.nanmax(np.where(scored, own, -1), 2) != np.nanmin(np.where(scored, own, 2), 2)
    )
    agree_n = np.zeros(len(matrix.checks))
    differ_n = np.zeros(len(matrix.checks))
    for other in matrix.passed[1:]:
        both = scored & ~np.isnan(other)
        agree_n += both.sum((1, 2))
        differ_n += (both & (own != other)).sum((1, 2))
    return CheckStats(
        verdicts=given.sum((1, 2)),
        models=scored.any(2).sum(1),
        pass_rate=_ratio(np.where(scored, own, 0.0).sum((1, 2)), scored.sum((1, 2))),
        r=r,
        p_negative=p,
        disagreement=_ratio(differ_n, agree_n),
        flip=_ratio(differ.sum(1), several.sum(1)),
        unscored=_ratio(matrix.unscored[0].sum((1, 2)), given.sum((1, 2))),
        rates=rates,
    )


@dataclass(frozen=True)
class Flag:
    kind: FlagKind
    reason: str


def _percent(value: float) -> str:
    return f"{round(value * 100)}%"


def check_flags(found: CheckStats, texts: TextFlags, settings: AuditSettings) -> list[list[Flag]]:
    """Every check's flags, each with its reason in words."""
    rates = found.rates
    present = ~np.isnan(rates)
    enough = found.models >= 2
    all_pass = enough & np.all(~present | (rates == 1.0), axis=1)
    all_fail = enough & np.all(~present | (rates == 0.0), axis=1)
    negative = (found.r < 0) & (found.p_negative < settings.negative_p)
    flags: list[list[Flag]] = []
    for c in range(len(found.verdicts)):
        mine: list[Flag] = []
        if all_pass[c]:
            mine.append(Flag("all-pass", f"passed by every model ({found.models[c]})"))
        if all_fail[c]:
            mine.append(Flag("all-fail", f"failed by every model ({found.models[c]})"))
        if negative[c]:
            mine.append(
                Flag(
                    "negative",
                    f"discriminates negatively (r = {found.r[c]:.2f} over {found.models[c]} "
                    f"models, p = {found.p_negative[c]:.3f})",
                )
            )
        if found.disagreement[c] >= settings.disagreement:
            mine.append(Flag("disagree", f"judges disagree on {_percent(found.disagreement[c])}"))
        if found.flip[c] >= settings.flip:
            mine.append(
                Flag("flip", f"flips between samples for {_percent(found.flip[c])} of models")
            )
        if found.unscored[c] >= settings.unscored:
            mine.append(Flag("unscored", f"unscored in {_percent(found.unscored[c])} of verdicts"))
        if texts.duplicate_of[c]:
            mine.append(
                Flag(
                    "duplicate",
                    f"duplicate of check {texts.duplicate_of[c]} (cosine {texts.cosine[c]:.2f})",
                )
            )
        if texts.placeholder[c] is not None:
            mine.append(Flag("placeholder", texts.placeholder[c]))
        flags.append(mine)
    return flags
