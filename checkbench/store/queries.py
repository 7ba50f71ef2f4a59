"""The SQL the run store's readers share: what a response still needs of a judge, which
failed answers are left to the answers that replace them, and LIKE pieces for the search."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

RESPONSE_BODY = (
    "IIF(json_valid(r.body), json_set(IIF(r.call IS NULL, r.body, json_set(r.body, '$.content',"
    " (SELECT c.result ->> '$.content' FROM calls c WHERE c.id = r.call))),"
    " '$.item_id', r.item_id, '$.model', r.model, '$.sample', r.sample), r.body)"
)
"""A response's (r) body as it was put: the stored body (without the fields its row holds in
columns) with those columns, and its content from the call that holds it, if one does (see
`responses.call`). A body that is not JSON is read as it is (and named as damaged)."""
VERDICT_BODY = (
    "IIF(json_valid(v.body), json_set(v.body, '$.item_id', v.item_id, '$.model', v.model,"
    " '$.sample', v.sample, '$.judge', v.judge, '$.check_id', v.check_id, '$.passed',"
    " json(CASE v.passed WHEN 1 THEN 'true' WHEN 0 THEN 'false' ELSE 'null' END)), v.body)"
)
"""A verdict's (v) body as it was put: the stored body (its reason, raw answer and P(yes),
defaults left out) with the fields its row holds in columns."""
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
    "SELECT 1 FROM verdicts WHERE judge = ? AND (passed IS NOT NULL AND passed NOT IN (0, 1)"
    " OR check_id IS NULL) LIMIT 1"
)
"""A verdict row the column readers would misread: passed not 1, 0 or NULL, or no check id
(a store altered by hand, whose table lost its NOT NULL)."""


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
    "   AND {body} LIKE :piece ESCAPE '!')"
    "  OR EXISTS (SELECT 1 FROM verdicts v WHERE v.item_id = i.id"
    "   AND v.judge IN ({judges}) AND v.body LIKE :piece ESCAPE '!'))"
    " AND (hit(i.id)"
    "  OR EXISTS (SELECT 1 FROM json_each(i.body, '$.messages') m"
    "   WHERE hit(json_extract(m.value, '$.content')))"
    "  OR EXISTS (SELECT 1 FROM json_each(i.body, '$.checklist') c"
    "   WHERE hit(json_extract(c.value, '$.text')))"
    "  OR hit(json_extract(i.body, '$.reference'))"
    "  OR EXISTS (SELECT 1 FROM responses r WHERE r.item_id = i.id"
    "   AND (hit(json_extract({body}, '$.content'))"
    "   OR hit(json_extract(r.body, '$.error'))))"
    "  OR EXISTS (SELECT 1 FROM verdicts v WHERE v.item_id = i.id"
    "   AND v.judge IN ({judges}) AND (hit(json_extract(v.body, '$.reason'))"
    "   OR (v.passed IS NULL AND hit(json_extract(v.body, '$.raw'))))))"
    " ORDER BY i.position LIMIT :limit"
)
"""Positions of the items whose id or a text holds a needle: SQL's LIKE over the stored bodies
picks the candidates (`:piece`, see `stored_as_is`), `hit` decides on the decoded texts;
`{judges}` is the placeholders of the judges whose verdicts count, `{body}` RESPONSE_BODY."""

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
    " FROM calls WHERE id > :after GROUP BY model, role"
    " ORDER BY role, model"
)
"""Calls, failures, tokens, time, tries and batched tokens per (model, role) of the calls
stored after the call `:after` (0: every call): `UsageRow`s."""

SAMPLE_VERDICTS = (
    "SELECT i.position, r.model, i.rule, {checks}, json_group_object(v.check_id,"
    " v.passed) FILTER (WHERE v.check_id IS NOT NULL)"
    " FROM responses r JOIN items i ON i.id = r.item_id LEFT JOIN verdicts v"
    " ON v.judge = :judge AND v.item_id = r.item_id AND v.model = r.model"
    " AND v.sample = r.sample WHERE {scope}"
    " GROUP BY i.position, r.model, r.sample ORDER BY i.position, r.model, r.sample"
)
"""One row per response with the `:judge`'s verdicts on it as JSON; `{checks}` is the items'
checks as stored (or CHECKS_OF_SOURCE), `{scope}` the responses kept (`scope.SCOPED`)."""

UNIT_MARKS = (
    "SELECT i.position, r.model, MAX(NOT r.ok),"
    " COALESCE(MAX(v.passed = 1), 0), COALESCE(MAX(v.passed = 0), 0)"
    " FROM responses r JOIN items i ON i.id = r.item_id"
    " LEFT JOIN verdicts v ON v.item_id = r.item_id AND v.model = r.model"
    " AND v.sample = r.sample AND v.judge IN ({judges})"
    " GROUP BY i.position, r.model ORDER BY i.position, r.model"
)
"""Per (item, model): some sample failed, some verdict passed, some failed, over the judges
whose placeholders are `{judges}`."""
