"""The SQL the run store's readers share: what a response still needs of a judge, which
failed answers are left to the answers that replace them, and LIKE pieces for the search."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

READ_BATCH = 256
"""Rows read at a time by the iterators that walk a whole run."""

VERDICTS_OF = (
    "FROM verdicts v WHERE v.judge = :judge AND v.item_id = r.item_id AND v.model = r.model"
    " AND v.sample = r.sample"
)
TRIED = f"EXISTS (SELECT 1 {VERDICTS_OF})"
TO_JUDGE = f"(NOT {TRIED} OR EXISTS (SELECT 1 {VERDICTS_OF} AND v.passed IS NULL))"
"""A response (r) that the judge has not fully scored: no verdict yet, or an unscored one."""
KEPT = "(r.ok OR r.sample >= :samples OR r.model NOT IN (SELECT value FROM json_each(:answering)))"
"""A response (r) that is not a failed answer about to be asked again (see `Answering`)."""
Answering = tuple[Sequence[str], int]
"""Models about to answer the run's items, with their number of samples: their failed answers
below that sample are asked again (see `unanswered`), so a judge leaves them to the answers
that replace them."""


def answering_params(answering: Answering) -> dict[str, Any]:
    models, samples = answering
    return {"answering": json.dumps(list(models)), "samples": samples}


CHECKS_OF_SOURCE = (
    "(SELECT json_group_array(json(p.value)) FROM json_each(i.checks) p WHERE p.value ->> 0 IN"
    " (SELECT c.value ->> 'id' FROM json_each(i.body, '$.checklist') c"
    " WHERE c.value ->> 'source' = :source))"
)
"""An item's stored (check id, weight) pairs, in order, of the checks of one source; the
weights as they were written (SQLite's json() keeps a number's text)."""

BAD_PASSED = (
    "SELECT 1 FROM verdicts WHERE judge = ? AND passed IS NOT NULL AND passed NOT IN (0, 1) LIMIT 1"
)


def placeholders(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def stored_as_is(needle: str) -> str:
    """The longest run of a lower-case needle that a stored JSON body holds as it is but for
    ASCII case (which SQL's LIKE ignores): ASCII or caseless characters, none that JSON
    escapes, LIKE's wildcards escaped with '!'. A text containing the needle has a body
    containing the run (bar letters such as the Kelvin sign, whose lower case is ASCII);
    '' (no run) keeps every body."""
    kept = "".join(
        c if c >= " " and c not in '"\\' and (c.isascii() or c.upper() == c) else "\0"
        for c in needle
    )
    run = max(kept.split("\0"), key=len)
    return run.replace("!", "!!").replace("%", "!%").replace("_", "!_")


SEARCH_ITEMS = (
    "SELECT i.position FROM items i WHERE i.position > :after"
    " AND (i.body LIKE :piece ESCAPE '!'"
    "  OR EXISTS (SELECT 1 FROM responses r WHERE r.item_id = i.id"
    "   AND r.body LIKE :piece ESCAPE '!')"
    "  OR EXISTS (SELECT 1 FROM verdicts v WHERE v.item_id = i.id"
    "   AND v.judge IN ({judges}) AND v.body LIKE :piece ESCAPE '!'))"
    " AND (hit(i.id)"
    "  OR EXISTS (SELECT 1 FROM json_each(i.body, '$.messages') m"
    "   WHERE hit(json_extract(m.value, '$.content')))"
    "  OR EXISTS (SELECT 1 FROM json_each(i.body, '$.checklist') c"
    "   WHERE hit(json_extract(c.value, '$.text')))"
    "  OR hit(json_extract(i.body, '$.reference'))"
    "  OR EXISTS (SELECT 1 FROM responses r WHERE r.item_id = i.id"
    "   AND (hit(json_extract(r.body, '$.content'))"
    "   OR hit(json_extract(r.body, '$.error'))))"
    "  OR EXISTS (SELECT 1 FROM verdicts v WHERE v.item_id = i.id"
    "   AND v.judge IN ({judges}) AND (hit(json_extract(v.body, '$.reason'))"
    "   OR (v.passed IS NULL AND hit(json_extract(v.body, '$.raw'))))))"
    " ORDER BY i.position LIMIT :limit"
)
"""Positions of the items whose id or a text holds a needle: SQL's LIKE over the stored bodies
picks the candidates (`:piece`, see `stored_as_is`), `hit` decides on the decoded texts;
`{judges}` is the placeholders of the judges whose verdicts count."""

UNANSWERED = (
    "WITH RECURSIVE k(sample) AS (SELECT 0 UNION ALL SELECT sample + 1 FROM k"
    " WHERE sample + 1 < :samples)"
    " SELECT i.position, k.sample, i.body FROM items i, k"
    " WHERE (i.position, k.sample) > (:position, :sample) AND NOT EXISTS ("
    "SELECT 1 FROM responses r WHERE r.item_id = i.id AND r.model = :model"
    " AND r.sample = k.sample AND r.ok)"
    " ORDER BY i.position, k.sample LIMIT :batch"
)
"""The next `:batch` (item position, sample, item body) after (`:position`, `:sample`) that
`:model` has no usable answer to, by item then sample below `:samples`."""

USAGE = (
    "SELECT model, role, SUM(status != 'error'), SUM(status = 'error'), SUM(prompt_tokens),"
    " SUM(completion_tokens), SUM(latency_s), SUM(attempts), SUM(timeouts),"
    " SUM(prompt_tokens * IFNULL(json_extract(result, '$.batched'), 0)),"
    " SUM(completion_tokens * IFNULL(json_extract(result, '$.batched'), 0))"
    " FROM calls GROUP BY model, role"
    " ORDER BY role, model"
)
"""Calls, failures, tokens, time, tries and batched tokens per (model, role): `UsageRow`s."""
