"""`audit`: every check of a run and the benchmark as a whole, from the stored verdicts, with
the refined benchmark's figures beside the full one's; no model is called."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel
from threadpoolctl import threadpool_limits

from checkbench import registry
from checkbench.audit.checks import Flag, check_flags, check_stats
from checkbench.audit.figures import Board, Figure, Figures, figures, item_matrix, leaderboard_tau
from checkbench.audit.irt import fit_2pl
from checkbench.audit.matrix import VerdictMatrix
from checkbench.audit.refine import Refinement, refine, write_refined
from checkbench.audit.settings import AuditSettings
from checkbench.audit.texts import Embed, text_flags
from checkbench.errors import InputError
from checkbench.inputs import output_file
from checkbench.scoring import store_scores
from checkbench.scoring.refined import by_position
from checkbench.scoring.settings import ScoringSettings
from checkbench.store import RunStore

IRT_METHOD = (
    "2PL (slope-intercept) by joint MAP with scipy.optimize.minimize (L-BFGS-B, analytic gradient)"
)


class FlagOut(BaseModel):
    kind: str
    reason: str


class CheckAudit(BaseModel):
    """One check's figures (None where there is nothing to stand on) and flags."""

    item_id: str
    check_id: str
    number: int
    text: str
    verdicts: int
    models: int
    pass_rate: float | None
    discrimination: float | None
    irt_a: float | None = None
    irt_b: float | None = None
    disagreement: float | None
    flip: float | None
    unscored: float | None
    flags: list[FlagOut]
    dropped: bool


class IRTSummary(BaseModel):
    method: str
    models: int
    checks: int
    iterations: int
    converged: bool
    ability: dict[str, float]


class RefinedSummary(BaseModel):
    """What the refined benchmark leaves out, and how its leaderboard orders the models
    against the full one's."""

    drop: list[str]
    checks_dropped: int
    items_changed: int
    items_kept_whole: int
    leaderboard_tau: Figure


class AuditReport(BaseModel):
    run: str
    protocol: str
    judge: str
    judges: list[str]
    models: list[str]
    items: int
    checks: int
    verdicts: int
    similarity: str
    limits: list[str]
    flags: dict[str, int]
    flagged_checks: int
    full: Figures
    refined: Figures
    refinement: RefinedSummary
    irt: IRTSummary | None
    check_audits: list[CheckAudit]
    seconds: float


TELLING = (
    "negative",
    "placeholder",
    "duplicate",
    "disagree",
    "flip",
    "unscored",
    "all-fail",
    "all-pass",
)
"""Flags from the rarer, more telling to the commonest: the order flagged checks are listed in."""


def flagged_first(report: AuditReport) -> list[CheckAudit]:
    """The flagged checks, those with the most telling flag first (run order within)."""
    return sorted(
        (check for check in report.check_audits if check.flags),
        key=lambda check: min(TELLING.index(flag.kind) for flag in check.flags),
    )


def _value(x: float) -> float | None:
    return None if np.isnan(x) else round(float(x), 4)


def _limits(matrix: VerdictMatrix, settings: AuditSettings) -> list[str]:
    """What this run cannot tell, in words."""
    models, judges = len(matrix.models), len(matrix.judges)
    samples = matrix.passed.shape[3]
    found = []
    if models < 2:
        found.append(
            "one model: no check can be found passed or failed by every model, and neither "
            "discrimination, separability nor rank stability can be measured; pass, unscored, "
            "flip and disagreement rates and the text checks are audited"
        )
    elif models < 3:
        found.append("two models: no discrimination (a correlation needs three)")
    if models < settings.irt_models:
        found.append(f"{models} model(s): the item response model needs {settings.irt_models}")
    if judges < 2:
        found.append("one judge: no judge disagreement (judge the run again with another)")
    if samples < 2:
        found.append("one sample per item: no flip rate (run with --samples K)")
    return found


def _judge(store: RunStore, judge: str | None) -> tuple[str, list[str]]:
    judges = store.judges()
    if not judges:
        raise InputError(
            "no verdicts in this run: run `checkbench judge` first", path=store.run_dir
        )
    if judge is not None and judge not in judges:
        raise InputError(f"no verdicts by judge '{judge}' (judges: {', '.join(judges)})")
    return judge or judges[0], judges


class _Audit:
    """The figures of one audit, kept for writing the refined benchmark."""

    def __init__(self, store: RunStore, settings: AuditSettings, embedder: Embed | None) -> None:
        start = time.perf_counter()
        judge, judges = _judge(store, settings.judge)
        self.matrix = matrix = VerdictMatrix.of(store, judge)
        scorer = registry.run_scorer(store)
        scoring = None if settings.policy is None else ScoringSettings(policy=settings.policy)
        full = Board.of(scorer.score(store, judge, scoring, headline=True))
        texts = store.check_texts()
        found = check_stats(matrix, full.score_of(matrix.models))
        position = matrix.checks.position
        by_text = text_flags(
            position,
            [t or "" for _, _, t, _ in texts],
            [p for *_, p in texts],
            similarity=settings.similarity,
            backend=settings.backend,
            embedder=embedder,
        )
        self.flags = check_flags(found, by_text, settings)
        self.refinement = refinement = refine(matrix.checks, self.flags, settings.drop)
        positions = by_position(store, refinement.checklists)
        refined = Board.of(scorer.score(store, judge, scoring, checklists=positions, headline=True))
        items = store.count_items()
        tables = [
            item_matrix(store_scores(store, judge, kept), matrix.models, items, full.policy)
            for kept in (None, positions)
        ]
        b, seed = settings.b, settings.seed
        irt = None
        fit = None
        if len(matrix.models) >= settings.irt_models:
            varies = np.nanmax(found.rates, 1) > np.nanmin(found.rates, 1)
            fit = fit_2pl(found.rates[varies])
            irt = IRTSummary(
                method=IRT_METHOD,
                models=len(matrix.models),
                checks=int(varies.sum()),
                iterations=fit.iterations,
                converged=fit.converged,
                ability={
                    m: round(float(t), 4) for m, t in zip(matrix.models, fit.theta, strict=True)
                },
            )
            a, bb = np.full(len(varies), np.nan), np.full(len(varies), np.nan)
            a[varies], bb[varies] = fit.a, fit.b
        counts = Counter(f.kind for mine in self.flags for f in mine)
        self.report = AuditReport(
            run=str(store.run_dir),
            protocol=scorer.name,
            judge=judge,
            judges=judges,
            models=matrix.models,
            items=items,
            checks=len(matrix.checks),
            verdicts=int((~np.isnan(matrix.passed) | matrix.unscored).sum()),
            similarity=f"{by_text.backend} cosine >= {settings.similarity}",
            limits=_limits(matrix, settings),
            flags=dict(sorted(counts.items())),
            flagged_checks=sum(bool(mine) for mine in self.flags),
            full=figures(full, tables[0], found.rates, b=b, seed=seed),
            refined=figures(refined, tables[1], found.rates[~refinement.dropped], b=b, seed=seed),
            refinement=RefinedSummary(
                drop=list(settings.drop),
                checks_dropped=int(refinement.dropped.sum()),
                items_changed=len(refinement.checklists),
                items_kept_whole=len(refinement.whole),
                leaderboard_tau=leaderboard_tau(full, refined),
            ),
            irt=irt,
            check_audits=[
                CheckAudit(
                    item_id=matrix.checks.item_ids[c],
                    check_id=matrix.checks.check_ids[c],
                    number=int(matrix.checks.number[c]),
                    text=texts[c][2] or "",
                    verdicts=int(found.verdicts[c]),
                    models=int(found.models[c]),
                    pass_rate=_value(found.pass_rate[c]),
                    discrimination=_value(found.r[c]),
                    irt_a=None if fit is None else _value(a[c]),
                    irt_b=None if fit is None else _value(bb[c]),
                    disagreement=_value(found.disagreement[c]),
                    flip=_value(found.flip[c]),
                    unscored=_value(found.unscored[c]),
                    flags=[FlagOut(kind=f.kind, reason=f.reason) for f in self.flags[c]],
                    dropped=bool(refinement.dropped[c]),
                )
                for c in range(len(matrix.checks))
            ],
            seconds=0.0,
        )
        self.report.seconds = round(time.perf_counter() - start, 3)

    def reasons(self) -> dict[tuple[str, str], list[str]]:
        checks = self.matrix.checks
        return {
            (checks.item_ids[c], checks.check_ids[c]): [f.reason for f in mine]
            for c, mine in enumerate(self.flags)
            if mine
        }


def audit_store(
    store: RunStore, settings: AuditSettings | None = None, *, embedder: Embed | None = None
) -> AuditReport:
    """The audit of an open run store (the report's Audit tab), BLAS on one thread."""
    with threadpool_limits(1, "blas"):
        return _Audit(store, settings or AuditSettings(), embedder).report


def audit_run(
    run_dir: str | Path,
    settings: AuditSettings | None = None,
    *,
    embedder: Embed | None = None,
    write_to: str | Path | None = None,
) -> AuditReport:
    """The audit of a stored run; with `write_to`, the refined benchmark is written there and
    its checklists stored in the run (`leaderboard RUN --checklist refined`). BLAS runs on one
    thread: the audit's arrays are small, and threads cost it more than they give (the 2PL fit
    took 18 times the CPU with OpenBLAS's threads on a shared machine)."""
    settings = settings or AuditSettings()
    out = None if write_to is None else output_file(write_to)
    with RunStore.existing(run_dir, writer=out is not None) as store, threadpool_limits(1, "blas"):
        done = _Audit(store, settings, embedder)
        if out is not None:
            provenance: dict[str, Any] = {
                "run": str(store.run_dir),
                "judge": done.report.judge,
                "drop": list(settings.drop),
                "checks_dropped": done.report.refinement.checks_dropped,
                "audited_by": "checkbench audit",
            }
            write_refined(store, out, done.refinement, done.reasons(), provenance)
    return done.report


__all__ = ["AuditReport", "Flag", "Refinement", "audit_run", "audit_store", "flagged_first"]
