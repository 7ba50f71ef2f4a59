"""Agreement between a judge's yes/no verdicts and gold labels, with cluster-bootstrap intervals.

Every statistic is a function of a confusion table `t[gold, judge]`, gold in {0, 1} and judge in
{0, 1, UNSCORED}. Unscored verdicts (None) are counted and never read as a pass or a fail: an
unscored verdict is a third answer that is wrong whatever the gold label. It lowers agreement,
kappa, sensitivity or specificity and the recall (hence F1) of its gold class, and is never a
positive or negative prediction of either class. Kappa and MCC treat the three judge answers as
categories (MCC in its multiclass, Gorodkin, form), so both equal their binary forms when nothing
is unscored; since an unscored verdict also leaves the chance-agreement term, abstaining can score
slightly above answering wrong, which is why the unscored count is always reported beside them.
Krippendorff's alpha keeps its own definition: a missing value makes a unit unpairable, so alpha
uses scored units only.
Units whose gold label is None have no reference; they are left out and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence

import numpy as np
from pydantic import AliasChoices, BaseModel, Field, computed_field

from checkbench.errors import InputError
from checkbench.schema import Verdict
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.stats.estimate import CONSTANT, Stat

UNSCORED = 2
"""Judge column of an unscored verdict in a confusion table."""

Binary = bool | int | None


def confusion_table(gold: Iterable[Binary], judged: Iterable[Binary]) -> np.ndarray:
    """The 2x3 table of (gold, judge) counts; units without a gold label are skipped."""
    table = np.zeros((2, 3), dtype=np.int64)
    for g, j in zip(gold, judged, strict=True):
        if g is not None:
            table[int(bool(g)), UNSCORED if j is None else int(bool(j))] += 1
    return table


# Statistics over tables of shape (..., 2, 3); undefined values are NaN.


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _n(t: np.ndarray) -> np.ndarray:
    return t.sum(axis=(-2, -1))


def _gold(t: np.ndarray) -> np.ndarray:
    return t.sum(axis=-1)


def _judged(t: np.ndarray) -> np.ndarray:
    return t.sum(axis=-2)


def _correct(t: np.ndarray) -> np.ndarray:
    return t[..., 0, 0] + t[..., 1, 1]


def _chance(t: np.ndarray) -> np.ndarray:
    """Sum over classes of gold count x judged count (the chance-agreement numerator)."""
    return (_gold(t) * _judged(t)[..., :2]).sum(axis=-1)


def class_f1(t: np.ndarray, k: int) -> np.ndarray:
    """F1 of class k, 2 TP / (#judged k + #gold k). It is 0 whenever TP = 0, including when
    class k is neither in gold nor judged: the convention of the released IF-RewardBench code."""
    return np.nan_to_num(_ratio(2 * t[..., k, k], _judged(t)[..., k] + _gold(t)[..., k]))


def agreement_rate(t: np.ndarray) -> np.ndarray:
    """Share of units where the judge gave the gold label."""
    return _ratio(_correct(t), _n(t))


def sensitivity(t: np.ndarray) -> np.ndarray:
    """Share of gold positives the judge passed."""
    return _ratio(t[..., 1, 1], _gold(t)[..., 1])


def specificity(t: np.ndarray) -> np.ndarray:
    """Share of gold negatives the judge failed."""
    return _ratio(t[..., 0, 0], _gold(t)[..., 0])


def balanced_accuracy(t: np.ndarray) -> np.ndarray:
    """The mean of sensitivity and specificity: 0.5 for a judge that says one thing, whatever
    the base rate; undefined when the gold labels hold one class only."""
    return (sensitivity(t) + specificity(t)) / 2.0


def cohen_kappa(t: np.ndarray) -> np.ndarray:
    """(p_o - p_e) / (1 - p_e) in exact counts; undefined when p_e = 1."""
    n = _n(t)
    return _ratio(n * _correct(t) - _chance(t), n * n - _chance(t))


def mcc(t: np.ndarray) -> np.ndarray:
    """Matthews correlation (multiclass form); 0 when undefined, like sklearn and the released
    code."""
    n = _n(t)
    spread = (n * n - (_judged(t) ** 2).sum(axis=-1)) * (n * n - (_gold(t) ** 2).sum(axis=-1))
    return np.nan_to_num(_ratio(n * _correct(t) - _chance(t), np.sqrt(spread.astype(float))))


def krippendorff_alpha(t: np.ndarray) -> np.ndarray:
    """Nominal alpha for two coders over units both scored: 1 - (N - 1) D / (n_0 n_1), with N
    pairable values, D disagreeing units and n_c the values equal to c; undefined if one class."""
    disagree = t[..., 0, 1] + t[..., 1, 0]
    values = 2 * t[..., :, :2].sum(axis=(-2, -1))
    zeros = 2 * t[..., 0, 0] + disagree
    ones = 2 * t[..., 1, 1] + disagree
    return 1.0 - _ratio((values - 1) * disagree, zeros * ones)


_STATISTICS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], int]]] = {
    "agreement": (agreement_rate, _n),
    "kappa": (cohen_kappa, _n),
    "balanced_accuracy": (balanced_accuracy, _n),
    "alpha": (krippendorff_alpha, lambda t: t[:, :2].sum()),
    "sensitivity": (sensitivity, lambda t: _gold(t)[1]),
    "specificity": (specificity, lambda t: _gold(t)[0]),
    "positive_f1": (lambda t: class_f1(t, 1), _n),
    "negative_f1": (lambda t: class_f1(t, 0), _n),
    "mcc": (mcc, _n),
}
"""name -> (statistic, the number of units it is computed from)."""


class Agreement(BaseModel):
    """Judge-vs-gold agreement over binary labels; each Stat.n counts the units it uses."""

    n: int
    clusters: int
    unscored: int
    gold_missing: int
    gold_positive: int
    gold_negative: int
    agreement: Stat
    kappa: Stat
    alpha: Stat
    sensitivity: Stat
    specificity: Stat
    positive_f1: Stat
    negative_f1: Stat
    mcc: Stat
    balanced_accuracy: Stat | None = None
    """Mean of sensitivity and specificity (None in records stored before it was kept)."""
    judged_positive: int = 0
    judged_negative: int = 0
    """Units the judge passed, failed (the rest it left unscored)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def base_rate(self) -> float | None:
        """Share of the units with a gold label that the gold passed."""
        total = self.gold_positive + self.gold_negative
        return self.gold_positive / total if total else None


def _resample(tables: np.ndarray, b: int, seed: int) -> np.ndarray:
    """B bootstrap totals, each summing len(tables) clusters drawn with replacement; none for
    fewer than two clusters (no interval: one cluster cannot be resampled)."""
    k = len(tables)
    if k < 2:
        return np.zeros((0, 2, 3))
    rng = np.random.default_rng(seed)
    flat = tables.reshape(k, -1)
    draws = [np.bincount(rng.integers(0, k, size=k), minlength=k) @ flat for _ in range(b)]
    return np.stack(draws).reshape(b, 2, 3)


def agreement_from_tables(
    tables: np.ndarray,
    *,
    gold_missing: int = 0,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Agreement:
    """Agreement from one confusion table per cluster (shape (k, 2, 3)); the bootstrap
    resamples clusters (instructions, items) with replacement."""
    tables = np.asarray(tables, dtype=np.int64).reshape(-1, 2, 3)
    total = tables.sum(axis=0)
    draws = _resample(tables, b, seed)
    stats = {
        name: Stat.from_draws(float(fn(total)), fn(draws), int(support(total)), level).model_copy(
            update={"resampled": len(tables)}
        )
        for name, (fn, support) in _STATISTICS.items()
    }
    if min(total[:, 0].sum(), total[:, 1].sum()) == 0:  # the judge gave one verdict to all
        stats = {
            name: stat.model_copy(update={"why": CONSTANT})
            if stat.why is not None or stat.value is None
            else stat
            for name, stat in stats.items()
        }
    return Agreement(
        n=int(total.sum()),
        clusters=len(tables),
        unscored=int(total[:, UNSCORED].sum()),
        gold_missing=gold_missing,
        gold_positive=int(total[1].sum()),
        gold_negative=int(total[0].sum()),
        judged_positive=int(total[:, 1].sum()),
        judged_negative=int(total[:, 0].sum()),
        **stats,
    )


def agreement(
    gold: Sequence[Binary],
    judged: Sequence[Binary],
    clusters: Sequence[Hashable] | None = None,
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Agreement:
    """Agreement of `judged` with `gold`, unit by unit; `clusters` (one key per unit) groups
    units that the bootstrap resamples together (default: every unit on its own)."""
    keys = range(len(gold)) if clusters is None else clusters
    if len(keys) != len(gold) or len(judged) != len(gold):
        raise ValueError("gold, judged and clusters must have one entry per unit")
    groups: dict[Hashable, list[int]] = {}
    for unit, key in enumerate(keys):
        groups.setdefault(key, []).append(unit)
    tables = [
        confusion_table([gold[u] for u in units], [judged[u] for u in units])
        for units in groups.values()
    ]
    return agreement_from_tables(
        np.array(tables).reshape(-1, 2, 3),
        gold_missing=sum(g is None for g in gold),
        b=b,
        seed=seed,
        level=level,
    )


class VerdictAgreement(Agreement):
    """Agreement of a judge with reference verdicts (human ones, or a reference judge's), plus
    the verdicts only one side has."""

    only_reference: int = Field(validation_alias=AliasChoices("only_reference", "only_human"))
    """Reference verdicts the judge did not give (stored as `only_human` before)."""
    only_judge: int


VerdictKey = tuple[str, str, str]


def _by_key(verdicts: Iterable[Verdict], side: str) -> dict[VerdictKey, bool | None]:
    index: dict[VerdictKey, bool | None] = {}
    for v in verdicts:
        key = (v.item_id, v.model, v.check_id)
        if key in index:
            where = f"item {v.item_id!r}, model {v.model!r}, check {v.check_id!r}"
            raise InputError(f"two {side} verdicts for {where}")
        index[key] = v.passed
    return index


def verdict_agreement(
    human: Iterable[Verdict],
    judge: Iterable[Verdict],
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> VerdictAgreement:
    """Per-check agreement of judge verdicts with human ones (FB-Bench's "consistency rate" is
    `agreement`), matched on (item_id, model, check_id); the bootstrap resamples items."""
    gold, pred = _by_key(human, "human"), _by_key(judge, "judge")
    shared = sorted(gold.keys() & pred.keys())
    result = agreement(
        [gold[k] for k in shared],
        [pred[k] for k in shared],
        [k[0] for k in shared],
        b=b,
        seed=seed,
        level=level,
    )
    return VerdictAgreement(
        **result.model_dump(),
        only_reference=len(gold.keys() - pred.keys()),
        only_judge=len(pred.keys() - gold.keys()),
    )
