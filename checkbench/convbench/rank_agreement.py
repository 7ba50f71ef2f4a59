"""Agreement of a model ranking with a reference leaderboard: Spearman's rho and Kendall's tau_b,
each with a bootstrap interval over instructions.

The bootstrap resamples instructions (items), the unit the benchmark sampled: each draw takes
n items with replacement, recomputes every model's mean score over the drawn items, and
correlates those means with the fixed reference scores. Draws where a correlation is undefined
(all models tied) are left out of its interval.

A reference leaderboard is a JSON object {"model": score}, a JSON list of {"model", "score"}
objects, or a CSV file with a header holding `model` and `score` columns. A run's model
matches a reference name when the names are equal, or when the part after the backend prefix
("openai:gpt-4o" -> "gpt-4o") is.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from checkbench.errors import InputError
from checkbench.inputs import read_input_text
from checkbench.jsonl import parse_json_text
from checkbench.stats import DEFAULT_B, DEFAULT_SEED
from checkbench.stats.estimate import Stat
from checkbench.stats.ranking import ranks

Statistic = Callable[[Sequence[float], Sequence[float]], float]


class RankAgreement(BaseModel):
    """Correlations over the models found in both the run and the reference."""

    models: dict[str, str]
    """run model -> reference name, for the models compared."""
    unmatched_run: list[str]
    unmatched_reference: list[str]
    spearman: Stat
    kendall_tau_b: Stat


def load_reference(path: str | Path) -> dict[str, float]:
    """Reference scores by model name from a JSON or CSV leaderboard file."""
    path = Path(path)
    text = read_input_text(path)  # a byte-order mark (from spreadsheet programs) is stripped
    if not text.strip():
        raise InputError("file is empty", path=path)
    is_json = text.lstrip()[0] in "{["
    rows = _json_rows(path, text) if is_json else _csv_rows(path, text)
    scores: dict[str, float] = {}
    for line, prefix, model, score in rows:
        if not isinstance(model, str) or not model.strip():
            raise InputError("expected a model name", path=path, line=line, field=prefix + "model")
        value = _number(score)
        if value is None:
            raise InputError(
                f"score {score!r} is not a number", path=path, line=line, field=prefix + "score"
            )
        if model.strip() in scores:
            raise InputError(
                f"model {model!r} listed twice", path=path, line=line, field=prefix + "model"
            )
        scores[model.strip()] = value
    if len(scores) < 2:
        raise InputError("a reference leaderboard needs at least two models", path=path)
    return scores


Row = tuple[int | None, str, Any, Any]
"""(line, field prefix, model, score) of one leaderboard entry."""


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _json_rows(path: Path, text: str) -> list[Row]:
    data = parse_json_text(text, path)
    if isinstance(data, dict):
        return [(None, f"{model}.", model, score) for model, score in data.items()]
    if isinstance(data, list) and all(isinstance(row, dict) for row in data):
        return [(None, f"{i}.", row.get("model"), row.get("score")) for i, row in enumerate(data)]
    raise InputError('expected {"model": score, ...} or [{"model": ..., "score": ...}]', path=path)


def _csv_rows(path: Path, text: str) -> list[Row]:
    reader = csv.DictReader(text.splitlines())
    fields = [name.strip().lower() for name in reader.fieldnames or []]
    if "model" not in fields or "score" not in fields:
        found = ", ".join(repr(name) for name in fields)
        raise InputError(
            f"a CSV leaderboard needs a header with model and score (found {found})",
            path=path,
            line=1,
        )
    reader.fieldnames = fields
    return [(reader.line_num, "", row["model"], row["score"]) for row in reader]


def match_models(run_models: Sequence[str], reference: Mapping[str, float]) -> dict[str, str]:
    """run model -> reference name: an exact match first, else the name after its prefix."""
    matched: dict[str, str] = {}
    for model in run_models:
        bare = model.split(":", 1)[1] if ":" in model else model
        name = model if model in reference else bare if bare in reference else None
        if name is not None and name not in matched.values():
            matched[model] = name
    return matched


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: the Pearson correlation of average ranks; NaN if either side is constant."""
    return _pearson(_ranked(x), _ranked(y))


def _ranked(values: Sequence[float]) -> np.ndarray:
    rank = ranks(dict(enumerate(values)))
    return np.array([rank[i] for i in range(len(values))])


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    dx, dy = x - x.mean(), y - y.mean()
    denominator = math.sqrt(float((dx * dx).sum() * (dy * dy).sum()))
    return float((dx * dy).sum()) / denominator if denominator > 0 else math.nan


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau_b, which corrects for ties on either side; NaN if either side is constant:
    (C - D) / sqrt((C + D + T_x) (C + D + T_y)) over all pairs, T_x = pairs tied only in x."""
    ax, ay = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    upper = np.triu_indices(len(ax), k=1)
    sx = np.sign(ax[:, None] - ax[None, :])[upper]
    sy = np.sign(ay[:, None] - ay[None, :])[upper]
    product = sx * sy
    concordant_minus_discordant = float(product.sum())
    untied_x, untied_y = float(np.count_nonzero(sx)), float(np.count_nonzero(sy))
    if untied_x == 0 or untied_y == 0:
        return math.nan
    return concordant_minus_discordant / math.sqrt(untied_x * untied_y)


def rank_agreement(
    scores: Mapping[str, Mapping[str, float | None]],
    reference: Mapping[str, float],
    *,
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> RankAgreement:
    """Correlate the run's model means with the reference, bootstrapping over items.

    `scores` is model -> item id -> item score (None = left out, as the unscored policy says).
    """
    matched = match_models(sorted(scores), reference)
    if len(matched) < 2:
        raise InputError(
            f"fewer than two of the run's models ({', '.join(sorted(scores)) or 'none'}) are "
            f"in the reference leaderboard ({', '.join(sorted(reference))})"
        )
    models = sorted(matched)
    item_ids = sorted({item for model in models for item in scores[model]})
    table = np.array(
        [[_value(scores[m].get(item)) for item in item_ids] for m in models], dtype=float
    )
    truth = [reference[matched[m]] for m in models]
    draws = np.random.default_rng(seed).integers(0, len(item_ids), size=(b, len(item_ids)))
    stats = {}
    for name, statistic in (("spearman", spearman), ("kendall_tau_b", kendall_tau_b)):

        def correlate(columns: np.ndarray, statistic: Statistic = statistic) -> float:
            means = _means(columns)
            return math.nan if np.isnan(means).any() else statistic(means.tolist(), truth)

        boot = np.array([correlate(table[:, draw]) for draw in draws])
        stats[name] = Stat.from_draws(correlate(table), boot, len(item_ids), level)
    return RankAgreement(
        models={m: matched[m] for m in models},
        unmatched_run=sorted(set(scores) - set(matched)),
        unmatched_reference=sorted(set(reference) - set(matched.values())),
        **stats,
    )


def _value(score: float | None) -> float:
    return math.nan if score is None else score


def _means(table: np.ndarray) -> np.ndarray:
    """Each model's mean over its scored items; NaN for a model with none (the correlation of
    such a draw is undefined)."""
    counts = np.sum(~np.isnan(table), axis=1)
    return np.where(counts > 0, np.nansum(table, axis=1) / np.maximum(counts, 1), np.nan)
