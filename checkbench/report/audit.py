"""The report's Audit tab: the audit of the run by the judge reported (`checkbench audit`),
its figures full and refined, and the flagged checks with their reasons."""

from __future__ import annotations

from typing import Any

from checkbench.audit.run import audit_store, flagged_first
from checkbench.audit.settings import AuditSettings
from checkbench.report.run import RunData

FLAGGED_SHOWN = 200
"""Most flagged checks the page lists (the counts cover them all)."""


def audit_section(run: RunData) -> dict[str, Any] | None:
    """The audit's summary and its most telling flagged checks; None before any verdict."""
    if not run.judges:
        return None
    settings = AuditSettings(judge=run.judges[0], policy=run.options.policy)
    report = audit_store(run.store, settings)
    flagged = flagged_first(report)
    data = report.model_dump(mode="json", exclude={"check_audits", "run"})
    data["flagged"] = [check.model_dump(mode="json") for check in flagged[:FLAGGED_SHOWN]]
    return data
