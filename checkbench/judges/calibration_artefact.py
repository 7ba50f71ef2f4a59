"""The calibration artefact (judges.calibration fits it): versioned JSON kept in the run or in
a file, and the calibrated verdicts it turns a log-prob judge's P(yes) into."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, Field, ValidationError, model_validator

from checkbench.choices import CalibrationMethod as Method
from checkbench.choices import Decision
from checkbench.errors import InputError
from checkbench.inputs import read_input_text
from checkbench.jsonl import loads
from checkbench.judges.reference import CALIBRATION_RECORD
from checkbench.schema import Check, Item, Verdict
from checkbench.store import RunStore

CALIBRATION_FORMAT = "checkbench.calibration"
CALIBRATION_VERSION = 1
"""Layout version of the artefact; another version is refused, never guessed at."""
ALL = "*"
"""Group name of the curve fitted on every training verdict."""
_EPS = 1e-6
Finite = Annotated[float, Field(allow_inf_nan=False)]
Probability = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class Curve(BaseModel):
    """P(yes) -> calibrated P(pass): logistic on logit P(yes), isotonic knots (linear between,
    flat beyond), or a constant where the training verdicts hold one class only."""

    kind: Literal["logistic", "isotonic", "constant"]
    coef: Finite = 0.0
    intercept: Finite = 0.0
    x: list[Probability] = []
    y: list[Probability] = []
    p: Probability = 0.0
    train_verdicts: int = Field(ge=0)
    train_positive: int = Field(ge=0)

    @model_validator(mode="after")
    def _knots(self) -> Curve:
        """An isotonic curve needs as many values as knots, at least one, knots ascending."""
        if self.kind != "isotonic":
            return self
        if not self.x or len(self.x) != len(self.y):
            raise ValueError(
                f"an isotonic curve needs as many y values as x knots, at least one "
                f"(got {len(self.x)} and {len(self.y)})"
            )
        if any(b < a for a, b in zip(self.x, self.x[1:], strict=False)):
            raise ValueError("an isotonic curve's x knots must ascend")
        return self

    def predict(self, p_yes: np.ndarray) -> np.ndarray:
        p_yes = np.asarray(p_yes, dtype=float)
        if self.kind == "logistic":
            logit = _logit(p_yes)
            return 1.0 / (1.0 + np.exp(-(self.coef * logit + self.intercept)))
        if self.kind == "isotonic":
            return np.interp(p_yes, self.x, self.y)
        return np.full(p_yes.shape, self.p)


class CalibrationSettings(BaseModel):
    """What a calibration maps (judge -> reference) and how: shared by the artefact and the
    report of its fit."""

    version: int = CALIBRATION_VERSION
    name: str
    """The calibrated judge's id in verdicts, e.g. "<judge>#calibrated"."""
    judge: str
    reference: str
    method: Method
    by: str | None
    decision: Decision
    threshold: Probability
    """A check passes when its calibrated P(pass) is at least this."""
    seed: int


class Calibration(CalibrationSettings):
    """A fitted calibration: its settings, its curves, and the items it was fitted and tested on."""

    format: Literal["checkbench.calibration"] = CALIBRATION_FORMAT
    test_fraction: Probability
    min_group: int
    train_items: list[str]
    test_items: list[str]
    curves: dict[str, Curve]

    def group(self, item: Item, check: Check) -> str:
        """The curve a check uses: its group's own, else the whole-run one."""
        key = group_key(self.by, item, check)
        return key if key in self.curves else ALL

    def probability(self, item: Item, check: Check, p_yes: float) -> float:
        return float(self.curves[self.group(item, check)].predict(np.array([p_yes]))[0])


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, _EPS, 1.0 - _EPS)
    return np.log(p / (1.0 - p))


def group_key(by: str | None, item: Item, check: Check) -> str:
    """A check's group: "" for none, its first category, or its item's first tag value."""
    if by is None:
        return ALL
    if by == "category":
        return check.categories[0] if check.categories else ""
    if by.startswith("tag:"):
        values = item.tag(by[4:])
        return values[0] if values else ""
    raise InputError(f"group by 'category' or 'tag:FACET', not {by!r}", field="by")


def fit_curve(p_yes: np.ndarray, labels: np.ndarray, method: Method) -> Curve:
    """One curve from training P(yes) values and reference labels (scikit-learn)."""
    counts = {"train_verdicts": len(labels), "train_positive": int(labels.sum())}
    if len(set(labels.tolist())) < 2:
        return Curve(kind="constant", p=float(labels.mean()) if len(labels) else 0.0, **counts)
    from sklearn.isotonic import IsotonicRegression
    from sklearn.linear_model import LogisticRegression

    if method == "logistic":
        model = LogisticRegression().fit(_logit(p_yes).reshape(-1, 1), labels)
        coef, intercept = float(model.coef_[0][0]), float(model.intercept_[0])
        return Curve(kind="logistic", coef=coef, intercept=intercept, **counts)
    model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(p_yes, labels)
    x, y = model.X_thresholds_.tolist(), model.y_thresholds_.tolist()
    return Curve(kind="isotonic", x=x, y=y, **counts)


def check_index(items: Iterable[Item]) -> dict[tuple[str, str], tuple[Item, Check]]:
    """(item id, check id) -> (item, check)."""
    return {(item.id, check.id): (item, check) for item in items for check in item.checklist}


def calibrated_verdicts(
    calibration: Calibration, items: Sequence[Item], verdicts: Sequence[Verdict]
) -> list[Verdict]:
    """The calibrated judge's verdicts from the judge's: P(pass) in p_yes, passed at the
    threshold; a verdict without P(yes) stays unscored."""
    checks = check_index(items)
    out = []
    for v in verdicts:
        if v.judge != calibration.judge:
            raise InputError(
                f"calibration {calibration.name!r} is for judge {calibration.judge!r}, "
                f"not {v.judge!r}",
                field="calibration",
            )
        update: dict[str, object] = {"judge": calibration.name}
        if v.p_yes is None:
            update.update(passed=None, reason=f"unscored: no P(yes) to calibrate ({v.reason})")
        else:
            found = checks.get((v.item_id, v.check_id))
            if found is None:
                raise InputError(f"verdict for unknown check {v.check_id!r} of {v.item_id!r}")
            q = calibration.probability(*found, v.p_yes)
            reason = (
                f"calibrated P(pass) = {q:.3f} from P(yes) = {v.p_yes:.3f} "
                f"({calibration.method} v{calibration.version})"
            )
            update.update(passed=q >= calibration.threshold, p_yes=q, reason=reason)
        out.append(v.model_copy(update=update))
    return out


def read_calibration(data: object, where: str) -> Calibration:
    """A calibration artefact from its JSON data; another format or version is refused."""
    if not isinstance(data, dict) or data.get("format") != CALIBRATION_FORMAT:
        raise InputError(f"not a {CALIBRATION_FORMAT} artefact", path=where, field="format")
    if data.get("version") != CALIBRATION_VERSION:
        raise InputError(
            f"calibration artefact version {data.get('version')!r} is not this checkbench's "
            f"({CALIBRATION_VERSION}): fit it again with this checkbench",
            path=where,
            field="version",
        )
    try:
        return Calibration.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        raise InputError(message, path=where, field=field) from None


def load_calibration(store: RunStore, name: str) -> Calibration:
    """A calibration kept in the run under `name`, else one from a JSON file at path `name`."""
    stored = store.records(CALIBRATION_RECORD)
    if name in stored:
        return read_calibration(stored[name], f"{store.run_dir} (calibration {name!r})")
    path = Path(name)
    if not path.is_file():
        found = ", ".join(stored) or "none"
        raise InputError(
            f"no calibration {name!r} in the run (calibrations: {found}) and no such file",
            field="calibration",
        )
    try:
        data = loads(read_input_text(path), path)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg})", path=path, line=exc.lineno) from None
    return read_calibration(data, str(path))
