"""The run facts section: what was run, by whom, with which prompts, at what cost."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from checkbench.report.run import RunData


def _usage(run: RunData) -> list[dict[str, Any]]:
    """Calls, failures, tokens, call time and (when priced) cost per role and model."""
    rows = []
    for row in run.store.usage():
        price = run.prices.get(row.model)
        rows.append(
            {
                "role": row.role,
                "model": row.model,
                "calls": row.calls,
                "errors": row.errors,
                "prompt_tokens": row.prompt_tokens,
                "completion_tokens": row.completion_tokens,
                "time_s": round(row.latency_s, 3),
                "cost": price.billed(row) if price else None,
            }
        )
    return rows


def _judges(run: RunData) -> list[dict[str, Any]]:
    """Each judge's mode and prompt versions (recorded by the judge stage), verdict counts and
    unscored items per model."""
    recorded = run.store.get_meta("judges", {})
    judges = []
    for judge in run.judges:
        verdicts, unscored = run.verdict_counts[judge]
        info = recorded.get(judge, {})
        judges.append(
            {
                "name": judge,
                "mode": info.get("mode"),
                "prompts": info.get("prompts", []),
                "verdicts": verdicts,
                "unscored_verdicts": unscored,
                "unscored_items": {
                    model: sum(score is None for score in scores.values())
                    for model, scores in run.scores[judge].items()
                },
            }
        )
    return judges


def _shown_path(run_dir: Path) -> str:
    """The run directory as the user gave it relative to where they stand, else absolute."""
    absolute = run_dir.resolve()
    try:
        return str(absolute.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(absolute)


def run_facts(run: RunData) -> dict[str, Any]:
    """Models, judges, prompt versions, usage and cost per role, and what went unanswered."""
    counts = run.response_counts
    usage = _usage(run)
    used = {row["model"] for row in usage}
    return {
        "run": run.store.run_dir.name,
        "path": _shown_path(run.store.run_dir),
        "benchmark": run.store.get_meta("benchmark"),
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "policy": run.options.policy,
        "items": len(run.items),
        "checks": sum(len(item.checks) for item in run.items),
        "models": [
            {"name": m, "responses": counts[m][0], "errors": counts[m][1]} for m in run.models
        ],
        "judges": _judges(run),
        "usage": usage,
        "prices": {
            model: {
                "input": price.input,
                "output": price.output,
                "batch_discount": price.batch_discount,
                "from": "--price" if model in run.options.prices else "models file",
            }
            for model, price in run.prices.items()
        },
        "unpriced": sorted(used - set(run.prices)) if run.prices else [],
        "unused_prices": sorted(set(run.options.prices) - used),
    }
