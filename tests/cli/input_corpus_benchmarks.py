"""Corpus cases: broken benchmark files (native JSONL or JSON list, FB-Bench's JSON, SCAN's
queries, IF-RewardBench) for every command that reads one: run, generate, fbbench filter,
scan tag, synthesize and build, ifrewardbench run.

Most bad records are on line 2 after a good line 1, so the error must find the line too.
"""

from __future__ import annotations

import json
import math
from typing import Any

from tests.cli.input_corpus import EXAMPLES, Case, accepted, case, later, lines_of, table

ITEM = json.loads((EXAMPLES / "feedback-mini.jsonl").read_text().splitlines()[0])
"""A weighted native item with generation hints."""
FB = json.loads((EXAMPLES / "fb-bench-mini.json").read_text())[0]
IFRB = json.loads((EXAMPLES / "ifrewardbench-mini.json").read_text())[0]
QUERY = json.loads((EXAMPLES / "queries-mini.jsonl").read_text().splitlines()[0])


def jsonl(*records: Any) -> str:
    """One JSON value per line (NaN and Infinity written as JSON's extension allows)."""
    return "".join(json.dumps(record) + "\n" for record in records)


def native(**changes: Any) -> str:
    """A native benchmark: ITEM on line 1, then ITEM changed by `changes` on line 2."""
    return jsonl(ITEM, {**ITEM, "id": "second", **changes})


def checks(*weights: float | None) -> list[dict[str, Any]]:
    """A checklist with these weights (None: no weight)."""
    return [
        {"id": f"c{n}", "text": f"check {n}", **({} if w is None else {"weight": w})}
        for n, w in enumerate(weights, start=1)
    ]


def turns(*roles: str) -> list[dict[str, str]]:
    return [{"role": role, "content": f"a {role} turn"} for role in roles]


def without(record: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != key}


def big_item() -> dict[str, Any]:
    """ITEM asking a 20 MB question."""
    return {**ITEM, "messages": [{"role": "user", "content": "x" * (20 * 1024 * 1024)}]}


def hints(**generation: Any) -> str:
    return native(meta={"generation": generation})


def fbbench(**changes: Any) -> str:
    """An FB-Bench JSON list: FB, then a second sample changed by `changes`."""
    return json.dumps([FB, {**FB, "feedback": "Are you sure?", **changes}])


def ifrb(**changes: Any) -> str:
    """An IF-RewardBench JSON list: IFRB, then a second instruction changed by `changes`."""
    return json.dumps([IFRB, {**IFRB, "id": 2, **changes}])


GEN = "generate bench.jsonl -o out"
STUB = "generate bench.jsonl -o out -m openai:stub@{stub}"
B, F, Q, M = "bench.jsonl", "fb.json", "q.jsonl", "if.json"
FINITE = "Input should be a finite number"
SUM = "rule 'weighted' needs weights summing to 1"
LAST_USER = "the last message must be the user turn to answer"
NOT_AN_OBJECT = "each line must be a JSON object"
BOM = b"\xef\xbb\xbf"
TAX = "-t {ex}/taxonomy-mini.json -o out"
BLANK_TASK = "blank, so there is no task to tag it by"

NATIVE = table(
    "native",
    GEN,
    B,
    {
        "empty file": ("", ": file is empty"),
        "only a byte-order mark": (BOM, ": file is empty"),
        "blank lines only": ("\n \n\t\n", ": file is empty"),
        "truncated JSON": (jsonl(ITEM) + '{"id": "x", "mess', ":2: malformed JSON"),
        "a list on a line": (jsonl(ITEM, [ITEM]), f":2: {NOT_AN_OBJECT}"),
        "a string on a line": (jsonl(ITEM, "item"), f":2: {NOT_AN_OBJECT}"),
        "NUL bytes": (jsonl(ITEM).encode() + b"\x00\x00\n", ":2: malformed JSON"),
        "not UTF-8": (jsonl(ITEM).encode() + b'{"id": "\xff"}\n', ":2: not valid UTF-8"),
        "missing messages": (jsonl(ITEM, {"id": "x"}), ":2: field 'messages': Field required"),
        "numeric id": (native(id=7), ":2: field 'id': Input should be a valid string"),
        "blank id": (native(id=""), ":2: field 'id'"),
        "checklist a string": (
            native(checklist="all"),
            ":2: field 'checklist': Input should be a valid list",
        ),
        "numeric content": (
            native(messages=[{"role": "user", "content": 5}]),
            ":2: field 'messages.0.content'",
        ),
        "unknown role": (
            native(messages=turns("robot")),
            ":2: field 'messages.0.role': Input should be 'system'",
        ),
        "ends with an assistant turn": (
            native(messages=turns("user", "assistant")),
            f":2: field 'messages': {LAST_USER}",
        ),
        "no messages": (native(messages=[]), ":2: field 'messages'"),
        "duplicate id": (jsonl(ITEM, ITEM), ":2: field 'id': duplicate"),
        "duplicate check ids": (
            native(rule="any", checklist=checks(None, None) * 2),
            ":2: field 'checklist.2.id': check ids must be unique",
        ),
        "unknown rule": (native(rule="sometimes"), ":2: field 'rule'"),
        "unknown field": (
            native(answer="42"),
            ":2: field 'answer': Extra inputs are not permitted",
        ),
        "tags not lists": (native(tags={"task": "Maths"}), ":2: field 'tags.task'"),
        "NaN weight": (
            native(checklist=checks(math.nan, 1.0)),
            f":2: field 'checklist.0.weight': {FINITE}",
        ),
        "infinite weight": (
            native(checklist=checks(0.5, math.inf)),
            f":2: field 'checklist.1.weight': {FINITE}",
        ),
        "negative weight": (
            native(checklist=checks(1.2, -0.2)),
            ":2: field 'checklist.1.weight': Input should be greater than or equal to 0",
        ),
        "weights summing to 0.6": (
            native(checklist=checks(0.3, 0.3)),
            f":2: field 'checklist': {SUM}, got 0.6",
        ),
        "weights summing to 1.5": (
            native(checklist=checks(1.0, 0.5)),
            f":2: field 'checklist': {SUM}, got 1.5",
        ),
        "a weight missing": (
            native(checklist=checks(1.0, None)),
            ":2: field 'checklist.1.weight': rule 'weighted' needs a weight",
        ),
        "weighted without checks": (native(checklist=[]), f":2: field 'checklist': {SUM}, got 0"),
        "a 20 MB message, then a bad line": (
            jsonl(big_item(), {**ITEM, "rule": "?"}),
            ":2: field 'rule'",
        ),
        "a million blank lines": (lines_of(1_000_000, "\n"), ": file is empty"),
        "a million blank lines, then a bad one": (
            lines_of(1_000_000, " \n", "{oops\n"),
            ":1000001: malformed JSON",
        ),
    },
)
HINTS = table(
    "hints",
    GEN,
    B,
    {
        "temperature a word": (hints(temperature="hot"), ":2: field 'meta.generation.temperature'"),
        "temperature NaN": (
            hints(temperature=math.nan),
            f":2: field 'meta.generation.temperature': {FINITE}",
        ),
        "temperature too hot": (hints(temperature=2.5), ":2: field 'meta.generation.temperature'"),
        "negative max_tokens": (hints(max_tokens=-5), ":2: field 'meta.generation.max_tokens'"),
        "max_tokens true": (hints(max_tokens=True), ":2: field 'meta.generation.max_tokens'"),
        "fractional seed": (hints(seed=1.5), ":2: field 'meta.generation.seed'"),
        "unknown hint": (
            hints(top_p=0.9),
            ":2: field 'meta.generation.top_p': unknown generation hint",
        ),
        "a list": (
            native(meta={"generation": [0.7]}),
            ":2: field 'meta.generation': must be an object",
        ),
    },
)
LISTED = table(
    "native list",
    "generate bench.json -o out",
    "bench.json",
    {
        "truncated": (json.dumps([ITEM])[:-40], ":1: malformed JSON"),
        "empty list": ("[]", ": expected a non-empty JSON list"),
        "a number in it": (json.dumps([ITEM, 3]), ":2: each record must be a JSON object"),
        "NaN weight": (
            json.dumps([ITEM, {**ITEM, "id": "n", "checklist": checks(math.nan, 1)}]),
            f":2: field 'checklist.0.weight': {FINITE}",
        ),
    },
)
FBBENCH = table(
    "fb-bench",
    f"generate {F} -o out",
    F,
    {
        "NaN weight": (
            fbbench(checklist=[["a", math.nan], ["b", 1]]),
            ":2: field 'checklist.0': check weight must be a number above 0, got nan",
        ),
        "negative weight": (
            fbbench(checklist=[["a", -0.5], ["b", 1.5]]),
            ":2: field 'checklist.0': check weight must be a number above 0",
        ),
        "weights summing to 0.9": (
            fbbench(checklist=[["a", 0.5], ["b", 0.4]]),
            f":2: field 'checklist': {SUM}, got 0.9",
        ),
        "a check without a weight": (
            fbbench(checklist=[["a"], ["b", 1]]),
            ":2: field 'checklist.0'",
        ),
        "a weight that is a word": (
            fbbench(checklist=[["a", "most"], ["b", 1]]),
            ":2: field 'checklist.0'",
        ),
        "checklist a string": (fbbench(checklist="all of it"), ":2: field 'checklist'"),
        "unknown bench_type": (fbbench(bench_type="Other"), ":2: field 'bench_type'"),
        "missing user_query": (
            json.dumps([FB, without(FB, "user_query")]),
            ":2: field 'user_query'",
        ),
        "blank feedback": (fbbench(feedback="  "), ":2: field 'feedback'"),
        "duplicate sample": (json.dumps([FB, FB]), ":2: field 'user_query': duplicate sample"),
        "truncated JSON": (fbbench()[:-25], ":1: malformed JSON"),
        "a sample that is a list": (
            json.dumps([FB, ["x"]]),
            ":2: each record must be a JSON object",
        ),
        "error_type a number": (fbbench(error_type=3), ":2: field 'error_type'"),
    },
)
RUN = table(
    "run",
    f"run {B} -o out",
    B,
    {
        "NaN weight": (native(checklist=checks(math.nan, 1.0)), ":2: field 'checklist.0.weight'"),
        "ends with an assistant turn": (
            native(messages=turns("user", "assistant")),
            f":2: field 'messages': {LAST_USER}",
        ),
        "only a byte-order mark": (BOM + b"\n", ": file is empty"),
        "bad hint": (hints(max_tokens="lots"), ":2: field 'meta.generation.max_tokens'"),
        "fb-bench NaN weight": (
            fbbench(checklist=[["a", math.nan], ["b", 1]]),
            ":2: field 'checklist.0'",
        ),
    },
)
FILTER = table(
    "fbbench filter",
    f"fbbench filter {B} -w local -o hard.jsonl",
    B,
    {
        "bad hint": (hints(temperature="hot"), ":2: field 'meta.generation.temperature'"),
        "duplicate id": (jsonl(ITEM, ITEM), ":2: field 'id': duplicate"),
        "negative weight": (native(checklist=checks(1.5, -0.5)), ":2: field 'checklist.1.weight'"),
    },
)
TAG = table(
    "scan tag",
    f"scan tag {B} {TAX} --bench-out tagged.jsonl",
    B,
    {
        "unknown role": (native(messages=turns("narrator", "user")), ":2: field 'messages.0.role'"),
        "weights summing to 0.6": (
            native(checklist=checks(0.3, 0.3)),
            f":2: field 'checklist': {SUM}",
        ),
        "empty file": ("", ": file is empty"),
        "a blank user turn": (
            native(messages=[{"role": "user", "content": " \n\t"}]),
            f":2: field 'messages.0.content': item 'second': its first user turn is {BLANK_TASK}",
        ),
        "the task turn blank before the feedback": (
            native(
                messages=[
                    *turns("system"),
                    {"role": "user", "content": ""},
                    *turns("assistant", "user"),
                ]
            ),
            f":2: field 'messages.1.content': item 'second': its first user turn is {BLANK_TASK}",
        ),
        "an FB-Bench query of blanks": (
            fbbench(user_query="  \n"),
            ":2: field 'user_query': must not be blank",
        ),
    },
)
TAG_ALL = table(
    "scan tag --turns all",
    f"scan tag {B} {TAX} --bench-out tagged.jsonl --turns all",
    B,
    {
        "every user turn blank": (
            native(
                messages=[
                    {"role": "user", "content": " "},
                    *turns("assistant"),
                    {"role": "user", "content": "\u3000"},
                ]
            ),
            f":2: field 'messages.0.content': item 'second': its user turns are all {BLANK_TASK}",
        ),
    },
)
SYNTH = table(
    "scan synthesize",
    f"scan synthesize {B} {TAX} --min-per-leaf 1 --bench-out more.jsonl",
    B,
    {
        "truncated JSON": (jsonl(ITEM)[:-9], ":1: malformed JSON"),
        "NaN weight": (
            native(checklist=checks(math.nan, 1.0)),
            f":2: field 'checklist.0.weight': {FINITE}",
        ),
    },
)
QUERIES = table(
    "scan build",
    f"scan build {Q} -o out --taxonomy-out tax.json",
    Q,
    {
        "unknown role": (
            jsonl(QUERY, {**QUERY, "id": "q2", "messages": turns("bot")}),
            ":2: field 'messages.0.role'",
        ),
        "ends with an assistant turn": (
            jsonl(QUERY, {"id": "q2", "messages": turns("user", "assistant")}),
            f":2: field 'messages': {LAST_USER}",
        ),
        "duplicate id": (jsonl(QUERY, QUERY), ":2: field 'id'"),
        "no messages field": (jsonl(QUERY, {"id": "q2"}), ":2: field 'messages'"),
    },
)
META = table(
    "ifrewardbench run",
    f"ifrewardbench run {M}",
    M,
    {
        "empty file": ("", ": file is empty"),
        "truncated JSON": (ifrb()[:-30], ":1: malformed JSON"),
        "checklist a string": (ifrb(checklist="all"), ":2: field 'checklist'"),
        "duplicate id": (json.dumps([IFRB, IFRB]), ":2: field 'id': duplicate"),
        "unknown role": (ifrb(messages=turns("robot")), ":2: field 'messages.0.role'"),
        "ends with an assistant turn": (
            ifrb(messages=turns("user", "assistant")),
            f":2: field 'messages': {LAST_USER}",
        ),
        "labels not a list": (
            ifrb(responses=[{**IFRB["responses"][0], "labels": "yes"}]),
            ":2: field 'responses.0.labels'",
        ),
        "a record that is a number": (
            json.dumps([IFRB, 5]),
            ":2: each record must be a JSON object",
        ),
        "a million blank lines, then a bad one": (
            lines_of(1_000_000, "\n", "5\n"),
            f":1000001: {NOT_AN_OBJECT}",
        ),
    },
)
FORMAT = {
    "generate: --format fb-bench on a native file": case(
        f"{GEN} --format fb-bench", {B: jsonl(ITEM)}, f"{B}:1: field 'bench_type'"
    ),
    "run: --format scan on an FB-Bench file": case(
        f"run {F} -o out --format scan", {F: fbbench()}, f"{F}:1: field "
    ),
}
ACCEPTED = {
    "native: a byte-order mark": accepted(
        STUB, {B: BOM + jsonl(ITEM).encode()}, "spreadsheet programs write one; it is stripped"
    ),
    "native: Windows line ends": accepted(
        STUB, {B: jsonl(ITEM).replace("\n", "\r\n")}, "CRLF is whitespace to JSON"
    ),
    "native: a 20 MB message": accepted(
        STUB,
        {B: later(lambda: jsonl(big_item()))},
        "a long prompt is the endpoint's to refuse; it is read and sent in bounded time",
    ),
    "meta: a byte-order mark": accepted(
        f"ifrewardbench run {M}", {M: BOM + ifrb().encode()}, "stripped, as for every input"
    ),
    "meta: JSON Lines instead of a list": accepted(
        f"ifrewardbench run {M}l", {f"{M}l": jsonl(IFRB)}, "both forms are read"
    ),
}

CASES: dict[str, Case] = (
    NATIVE
    | HINTS
    | LISTED
    | FBBENCH
    | RUN
    | FILTER
    | TAG
    | TAG_ALL
    | SYNTH
    | QUERIES
    | META
    | FORMAT
    | ACCEPTED
)
