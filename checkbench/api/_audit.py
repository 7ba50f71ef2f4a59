"""`audit`: the audit of a stored run (`checkbench.audit`), with the build extra's wordllama
embedding handed in when it is installed."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from checkbench.audit.run import AuditReport, audit_run
from checkbench.audit.settings import AuditSettings


def _wordllama(texts: Sequence[str]) -> Any:
    """wordllama's vectors of the texts, from the files its wheel ships (loaded when called)."""
    from checkbench.convbench.embed import WordLlamaEmbedder

    return WordLlamaEmbedder().embed(texts)


def audit(
    run_dir: str | Path,
    settings: AuditSettings | None = None,
    *,
    write_refined: str | Path | None = None,
) -> AuditReport:
    """Every check of a run and the benchmark as a whole, from its verdicts (no model call);
    with `write_refined`, the benchmark without the flagged checks is written there and its
    checklists stored in the run (`leaderboard RUN --checklist refined`)."""
    embedder = _wordllama if importlib.util.find_spec("wordllama") is not None else None
    return audit_run(run_dir, settings, embedder=embedder, write_to=write_refined)
