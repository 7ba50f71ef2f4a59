"""The Cascade section (page data "cascade"): each cascade of judges the run holds (kind
`cascade`, a `judges.cascade_summary.CascadeSummary` by the cascade's judge id), with who
decided its verdicts counted from the verdicts themselves (`Verdict.decided_by`). A record
that does not validate is listed as a problem on the page."""

from __future__ import annotations

from collections import Counter
from typing import Any

from checkbench.judges.cascade_summary import CASCADE_RECORD
from checkbench.report.run import RunData


def cascade_section(run: RunData) -> dict[str, Any] | None:
    """Per cascade, its summary and the checks each judge decided; None when there is none."""
    problems: list[str] = []
    records = run.store.records(CASCADE_RECORD, only=run.options.judge, unreadable=problems)
    cascades = []
    for judge, summary in records.items():
        verdicts = run.store.verdicts(judge)
        decided = Counter(v.decided_by or judge for v in verdicts)
        unscored = Counter(v.decided_by or judge for v in verdicts if v.passed is None)
        cascades.append(
            {
                "summary": summary.model_dump(mode="json"),
                "decided": [
                    {"judge": name, "checks": n, "unscored": unscored.get(name, 0)}
                    for name, n in decided.most_common()
                ],
            }
        )
    if not cascades and not problems:
        return None
    return {"cascades": cascades, "problems": problems}
