"""Corpus cases: hostile inputs (issue 35): JSON and TOML nested thousands of levels deep, lone
surrogates, damaged and foreign run stores, calibration artefacts that do not hold together,
wrong values that used to be accepted (boolean weights, preference cycles, NaN scores), API keys
and base URLs that cannot be sent, and start-up failures that must leave nothing behind."""

from __future__ import annotations

import json
import math
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from tests.cli.input_corpus import (
    CHEAP_JUDGE,
    EXAMPLES,
    REFERENCE_JUDGE,
    Case,
    case,
    from_base,
    run_with,
    table,
    with_mode,
)

ITEM = json.loads((EXAMPLES / "feedback-mini.jsonl").read_text().splitlines()[0])
FB = json.loads((EXAMPLES / "fb-bench-mini.json").read_text())[0]
IFRB = json.loads((EXAMPLES / "ifrewardbench-mini.json").read_text())[0]
TAXONOMY = json.loads((EXAMPLES / "taxonomy-mini.json").read_text())
JUDGMENTS = EXAMPLES / "fb-bench-judgments-mini/model-a.jsonl"
JUDGMENT = json.loads(JUDGMENTS.read_text().split("\n")[0])
LOG = json.loads((EXAMPLES / "logs-mini.jsonl").read_text().split("\n")[0])
RUN = {"run": from_base("run")}
ITEM_ID, CHECK = "fb-26f04a926ba7", "c1"
LABEL = {"item_id": ITEM_ID, "model": "model-a", "check_id": CHECK, "passed": True}
HTTP = "openai:m@http://127.0.0.1:9/v1"


def jsonl(*records: Any) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def deep(levels: int = 3000) -> str:
    """A JSON value of `levels` nested arrays."""
    return "[" * levels + "]" * levels


def deep_in(record: dict[str, Any], key: str) -> str:
    """`record` as one JSON text whose `key` holds a value nested 3,000 levels deep."""
    return json.dumps({**record, key: "DEEP"}).replace('"DEEP"', deep())


# ---------------------------------------------------------------- 1: nesting thousands deep

DEEP = "arrays and objects nested more than 128 levels deep"
NESTED = {
    "generate: a JSONL line nested 3,000 deep": case(
        "generate b.jsonl -o out",
        {"b.jsonl": jsonl(ITEM) + deep_in(ITEM, "meta") + "\n"},
        f"b.jsonl:2: {DEEP}",
    ),
    "generate: a JSON list nested 3,000 deep": case(
        "generate b.json -o out", {"b.json": f"[{json.dumps(ITEM)}, {deep()}]"}, f"b.json: {DEEP}"
    ),
    "generate: 200 levels, under the recursion limit": case(
        "generate b.jsonl -o out",
        {"b.jsonl": jsonl(ITEM) + deep_in(ITEM, "meta").replace(deep(), deep(200)) + "\n"},
        f"b.jsonl:2: {DEEP}",
    ),
    "fb-bench: nested 3,000 deep": case(
        "generate fb.json -o out", {"fb.json": f"[{deep_in(FB, 'checklist')}]"}, f"fb.json: {DEEP}"
    ),
    "fbbench import: a judgment nested 3,000 deep": case(
        "fbbench import jd --out out",
        {"jd/model-a.jsonl": deep_in(JUDGMENT, "judgement") + "\n"},
        f"jd/model-a.jsonl:1: {DEEP}",
    ),
    "ifrewardbench run: nested 3,000 deep": case(
        "ifrewardbench run if.json",
        {"if.json": f"[{deep_in(IFRB, 'responses')}]"},
        f"if.json: {DEEP}",
    ),
    "convbench build: a log nested 3,000 deep": case(
        "convbench build logs.jsonl --domain coding -o out --bench b.jsonl --strict",
        {"logs.jsonl": deep_in(LOG, "messages") + "\n"},
        "logs.jsonl:1: ",
    ),
    "scan show: a taxonomy nested 3,000 deep": case(
        "scan show t.json", {"t.json": deep_in(TAXONOMY, "domains")}, "t.json: arrays and objects"
    ),
    "scan tag --taxonomy: 600 levels": case(
        "scan tag {ex}/feedback-mini.jsonl -t t.json -o out --bench-out t.jsonl",
        {"t.json": '{"a": ' * 600 + "{}" + "}" * 600},
        "t.json: arrays and objects nested more than 202 levels deep",
    ),
    "scan tag --taxonomy: 150 levels": case(
        "scan tag {ex}/feedback-mini.jsonl -t t.json -o out --bench-out t.jsonl",
        {"t.json": "".join(f'{{"n{n}": ' for n in range(150)) + "{}" + "}" * 150},
        "t.json: the taxonomy is 150 levels deep, more than 100",
    ),
    "models file: TOML nested 3,000 deep": case(
        "judge run -j j --models m.toml",
        {**RUN, "m.toml": f'[models.j]\nmodel = "x"\nextra = {deep()}\n'},
        "m.toml: not valid TOML",
    ),
    "leaderboard --calibration: nested 3,000 deep": case(
        "leaderboard run --calibration c.json", {**RUN, "c.json": deep()}, f"c.json: {DEEP}"
    ),
    "agreement --human: nested 3,000 deep": case(
        "agreement run --human h.jsonl",
        {**RUN, "h.jsonl": deep_in(LABEL, "note") + "\n"},
        f"h.jsonl:1: {DEEP}",
    ),
    "calibrate --reference-file: nested 3,000 deep": case(
        f"calibrate run --judge-id {CHEAP_JUDGE} --reference-file v.jsonl",
        {**RUN, "v.jsonl": deep() + "\n"},
        f"v.jsonl:1: {DEEP}",
    ),
    "convbench score --reference JSON: nested 3,000 deep": case(
        f"convbench score run --judge-id {REFERENCE_JUDGE} --reference r.json",
        {**RUN, "r.json": json.dumps({"model-a": 1}).replace("1", deep())},
        f"r.json: {DEEP}",
    ),
    "scan pc2 --human: nested 3,000 deep": case(
        "scan pc2 run --aux local --human p.jsonl",
        {**RUN, "p.jsonl": deep() + "\n"},
        f"p.jsonl:1: {DEEP}",
    ),
}

# ---------------------------------------------------------------- 2: lone surrogates

LONE = '"\\ud800"'
SURROGATE = "holds a lone surrogate"


def surrogate(record: dict[str, Any], *path: str | int) -> str:
    """`record` as JSON whose string at `path` is a lone surrogate escape."""
    data = json.loads(json.dumps(record))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = "LONE"
    return json.dumps(data).replace('"LONE"', LONE)


SURROGATES = {
    "generate: a lone surrogate in a message": case(
        "generate b.jsonl -o out -m openai:stub@{stub}",
        {"b.jsonl": jsonl(ITEM) + surrogate({**ITEM, "id": "x"}, "messages", 0, "content") + "\n"},
        f"b.jsonl:2: field 'messages.0.content': {SURROGATE}",
    ),
    "run: a lone surrogate in a message": case(
        "run b.jsonl -o out -m openai:stub@{stub} -j openai:stub@{stub}",
        {"b.jsonl": surrogate(ITEM, "messages", 0, "content") + "\n"},
        f"b.jsonl:1: field 'messages.0.content': {SURROGATE}",
    ),
    "fb-bench: a lone surrogate in the feedback": case(
        "generate fb.json -o out -m openai:stub@{stub}",
        {"fb.json": f"[{surrogate(FB, 'feedback')}]"},
        "fb.json:1: ",
    ),
    "ifrewardbench run: a lone surrogate in a message": case(
        "ifrewardbench run if.json",
        {"if.json": f"[{surrogate(IFRB, 'messages', 0, 'content')}]"},
        f"if.json:1: field 'messages.0.content': {SURROGATE}",
    ),
}

# ---------------------------------------------------------------- 5: calibration artefacts


def calibration(**changes: Any) -> Any:
    """The shared calibration with its `changes` (`curve` replaces the whole-run curve)."""

    def make(target: Path, base: Path) -> None:
        data = json.loads((base / "cal.json").read_text())
        if "curve" in changes:
            data["curves"]["*"] = {"train_verdicts": 2, "train_positive": 1, **changes["curve"]}
        data |= {k: v for k, v in changes.items() if k != "curve"}
        target.write_text(json.dumps(data))

    return make


ISO = {"kind": "isotonic"}
CALIBRATIONS = {
    f"leaderboard --calibration: {label}": case(
        "leaderboard run --calibration c.json",
        {**RUN, "c.json": calibration(**changes)},
        "c.json: field '" + expect,
    )
    for label, (changes, expect) in {
        "isotonic curves of different lengths": (
            {"curve": {**ISO, "x": [0.1, 0.9], "y": [0.5]}},
            "curves.*': an isotonic curve needs as many y",
        ),
        "an empty isotonic curve": ({"curve": ISO}, "curves.*'"),
        "knots descending": (
            {"curve": {**ISO, "x": [0.9, 0.1], "y": [0.1, 0.2]}},
            "curves.*': an isotonic curve's x knots must ascend",
        ),
        "a NaN coefficient": (
            {"curve": {"kind": "logistic", "coef": math.nan}},
            "curves.*.coef'",
        ),
        "a NaN threshold": ({"threshold": math.nan}, "threshold'"),
        "a threshold of 7": ({"threshold": 7}, "threshold'"),
        "a constant of 1.5": ({"curve": {"kind": "constant", "p": 1.5}}, "curves.*.p'"),
        "a negative training count": (
            {"curve": {"kind": "constant", "train_verdicts": -3}},
            "curves.*.train_verdicts'",
        ),
    }.items()
}

# ---------------------------------------------------------------- 8: accepted although wrong


def with_weights(*weights: Any) -> dict[str, Any]:
    return {
        **ITEM,
        "id": "second",
        "checklist": [{"id": f"c{n}", "text": "t", "weight": w} for n, w in enumerate(weights)],
    }


def graph(*edges: tuple[int, int]) -> list[dict[str, Any]]:
    return [
        {"pair_id": n, "chosen": {"response_id": a}, "rejected": {"response_id": b}}
        for n, (a, b) in enumerate(edges)
    ]


WRONG = (
    table(
        "native",
        "generate b.jsonl -o out",
        "b.jsonl",
        {
            "a boolean weight": (
                jsonl(ITEM, with_weights(True, False)),
                ":2: field 'checklist.0.weight': a weight is a number, not true",
            ),
        },
    )
    | table(
        "ifrewardbench run",
        "ifrewardbench run if.json",
        "if.json",
        {
            "a 3-cycle in the preference graph": (
                json.dumps([{**IFRB, "preference_graph": graph((0, 1), (1, 2), (2, 0))}]),
                ":1: field 'preference_graph.2': closes a cycle",
            ),
            "a NaN pred_score": (
                json.dumps(
                    [
                        {
                            **IFRB,
                            "responses": [{**r, "pred_score": math.nan} for r in IFRB["responses"]],
                        }
                    ]
                ),
                ":1: field 'responses.0.pred_score'",
            ),
        },
    )
    | {
        "fb-bench: a boolean weight": case(
            "generate fb.json -o out",
            {"fb.json": json.dumps([{**FB, "checklist": [["a", True], ["b", False]]}])},
            "fb.json:1: field 'checklist",
        ),
        "agreement --human: a NULL check id": case(
            "agreement run --human h.jsonl",
            {**RUN, "h.jsonl": jsonl(LABEL, {**LABEL, "check_id": None})},
            "h.jsonl:2: field 'check_id'",
        ),
    }
)


CASES: dict[str, Case] = NESTED | SURROGATES | CALIBRATIONS | WRONG

# ---------------------------------------------------------------- 4: foreign and damaged stores


def foreign_store(target: Path, _base: Path) -> None:
    """A directory whose run.sqlite is some other program's SQLite database."""
    target.mkdir()
    with closing(sqlite3.connect(target / "run.sqlite")) as db:
        db.executescript(
            "CREATE TABLE notes (id INTEGER, text TEXT); INSERT INTO notes VALUES (1, 'x');"
        )
        db.commit()


FOREIGN = "run/run.sqlite: not a checkbench run store"
DROPPED = "run/run.sqlite: damaged run store: table"
VERSION = "run/run.sqlite: run store layout version"
STORES = {
    f"{command}: {problem}": case(line, {"run": make}, expect)
    for command, line in {
        "leaderboard": "leaderboard run",
        "report": "report run",
        "view": "view run --port 0",
        "judge": "judge run -j openai:stub@{stub}",
        "agreement": f"agreement run --reference-judge {REFERENCE_JUDGE}",
    }.items()
    for problem, (make, expect) in {
        "a foreign SQLite file": (foreign_store, FOREIGN),
        "a store with a dropped table": (run_with("DROP TABLE records"), f"{DROPPED} records"),
        "a schema version that is not JSON": (
            run_with("UPDATE meta SET value = 'five' WHERE key = 'schema_version'"),
            f"{VERSION} 'five' is not a version number",
        ),
        "a schema version that is a string": (
            run_with("""UPDATE meta SET value = '"5"' WHERE key = 'schema_version'"""),
            f"{VERSION} '5' is not a version number",
        ),
    }.items()
} | {
    "fbbench import: into a foreign SQLite file": case(
        "fbbench import {ex}/fb-bench-judgments-mini --out run", {"run": foreign_store}, FOREIGN
    ),
    "generate: into a store with a dropped table": case(
        "generate {ex}/feedback-mini.jsonl -o run -m openai:stub@{stub}",
        {"run": run_with("DROP TABLE verdicts")},
        f"{DROPPED} verdicts",
    ),
}

CASES |= STORES

# ---------------------------------------------------------------- 6: keys and endpoints

FEEDBACK = "{ex}/feedback-mini.jsonl"
NOT_HTTP = "is not an http:// or https:// URL with a host"
KEY_BREAK = "the API key in $OPENAI_API_KEY holds a line break"
ENDPOINTS = {
    f"{command}: {label}": Case((*line.split(), *flags), {}, expect, env=env)
    for command, line in {
        "generate": f"generate {FEEDBACK} -o out -m openai:m",
        "run": f"run {FEEDBACK} -o out -m openai:m -j openai:m",
    }.items()
    for label, (flags, env, expect) in {
        "--base-url without a scheme": (("--base-url", "localhost:8000/v1"), {}, NOT_HTTP),
        "--base-url a file: URL": (("--base-url", "file:///etc/passwd"), {}, NOT_HTTP),
        "--base-url without a host": (("--base-url", "http:///v1"), {}, NOT_HTTP),
        "$OPENAI_BASE_URL without a scheme": ((), {"OPENAI_BASE_URL": "example.com/v1"}, NOT_HTTP),
        "$OPENAI_BASE_URL an ftp: URL": ((), {"OPENAI_BASE_URL": "ftp://example.com"}, NOT_HTTP),
        "an API key with CR/LF": (
            ("--base-url", "http://127.0.0.1:9/v1"),
            {"OPENAI_API_KEY": "sk-123\r\nX-Injected: 1"},
            KEY_BREAK,
        ),
        "an API key with LF at its end": (
            ("--base-url", "http://127.0.0.1:9/v1"),
            {"OPENAI_API_KEY": "sk-123\n"},
            KEY_BREAK,
        ),
    }.items()
} | {
    "models file: a base_url without a host": case(
        "judge run -j j --models m.toml",
        {**RUN, "m.toml": '[models.j]\nmodel = "x"\nbase_url = "http://"\n'},
        "m.toml:3: field 'models.j.base_url'",
    ),
}

CASES |= ENDPOINTS

# ---------------------------------------------------------------- 10: start-up failures

NOT_RAY = "something answers there, but not Ray"
STARTS = {
    f"{command}: a Ray address where an HTTP server listens": case(
        f"{line} --executor ray --ray-address {{stub_host}}", {}, NOT_RAY
    )
    for command, line in {
        "generate": f"generate {FEEDBACK} -o out -m openai:stub@{{stub}}",
        "run": f"run {FEEDBACK} -o out -m openai:stub@{{stub}} -j openai:stub@{{stub}}",
    }.items()
} | {
    "generate: a ray:// address where an HTTP server listens": case(
        f"generate {FEEDBACK} -o out -m openai:stub@{{stub}} --executor ray "
        "--ray-address ray://{stub_host}",
        {},
        NOT_RAY,
    ),
    "generate: into a run whose Ray address is wrong": case(
        f"generate {FEEDBACK} -o run -m openai:stub@{{stub}} --executor ray "
        "--ray-address {stub_host}",
        RUN,
        NOT_RAY,
    ),
}

CASES |= STARTS

# ---------------------------------------------------------------- 9: every line names its file

NAMED = {
    f"{command} --calibration: the calibration's judge not in the run": case(
        f"{line} --calibration c.json",
        {**RUN, "c.json": calibration(judge="nobody")},
        "c.json: field 'judge': no verdicts by judge 'nobody' in the run",
    )
    for command, line in {
        "leaderboard": "leaderboard run",
        "convbench score": "convbench score run",
    }.items()
}

CASES |= NAMED

IDENTITY = json.dumps(
    {"endpoint": "replicas of j", "kind": "openai", "model": "x", "sampling": {}},
    sort_keys=True,
    separators=(",", ":"),
)
ANSWERED_BY = json.dumps({IDENTITY: ["http://10.9.9.9:8000/v1"]})
REPLICAS = (
    '[models.j]\nmodel = "x"\nbase_urls = ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]\n'
)
STARTS_TOO = {
    "judge: replicas that now name other servers": case(
        "judge run -j j --models m.toml",
        {
            "run": run_with(f"INSERT INTO meta(key, value) VALUES ('replicas', '{ANSWERED_BY}')"),
            "m.toml": REPLICAS,
        },
        "run/run.sqlite: field 'base_urls': the replicas of j",
    ),
}

CASES |= STARTS_TOO

# ---------------------------------------------------------------- 3: where nothing can be made

LOCKED = {"locked": with_mode(None, 0o600)}
"""A directory the user may read and write but not enter."""
UNENTERABLE = {
    f"{command}: an output under a directory one may not enter": case(
        line, LOCKED, f"{target}: permission denied", unprivileged=True
    )
    for command, line, target in (
        ("generate", f"generate {FEEDBACK} -o locked/out -m {HTTP}", "locked/out"),
        (
            "fbbench import",
            "fbbench import {ex}/fb-bench-judgments-mini --out locked/out",
            "locked/out",
        ),
        ("run", f"run {FEEDBACK} -o locked/out -m {HTTP} -j {HTTP}", "locked/out"),
        (
            "convbench build",
            "convbench build {ex}/logs-mini.jsonl --domain coding -o locked/out --bench b.jsonl",
            "locked/out",
        ),
        (
            "scan build",
            "scan build {ex}/queries-mini.jsonl -o locked/out --taxonomy-out t.json",
            "locked/out",
        ),
    )
}
UNENTERABLE["report: an output under a directory one may not enter"] = case(
    "report run -o locked/r.html",
    {**RUN, **LOCKED},
    "locked/r.html: permission denied",
    unprivileged=True,
)

CASES |= UNENTERABLE

# ---------------------------------------------------------------- 8: a verdict row without a check

NULL_CHECK = f"""
CREATE TABLE loose AS SELECT * FROM verdicts;
DROP TABLE verdicts;
ALTER TABLE loose RENAME TO verdicts;
CREATE INDEX verdicts_by_judge ON verdicts(judge, item_id, model, sample, check_id, passed);
UPDATE verdicts SET check_id = NULL WHERE rowid = (
    SELECT MIN(rowid) FROM verdicts WHERE judge = '{REFERENCE_JUDGE}');
"""
"""A store altered by hand: its verdicts table rebuilt without NOT NULL, one row's check id
NULL (scoring by columns would leave that verdict out without a word)."""
NULL_CHECKS = {
    f"{command}: a verdict row with a NULL check id": case(
        line, {"run": run_with(NULL_CHECK)}, "run/run.sqlite: field 'check_id': damaged row"
    )
    for command, line in {
        "leaderboard": f"leaderboard run --judge-id {REFERENCE_JUDGE}",
        "convbench score": f"convbench score run --judge-id {REFERENCE_JUDGE}",
    }.items()
}

CASES |= NULL_CHECKS

# ---------------------------------------------------------------- 10: other sampling, same run

CHEAP = '[models.c]\nmodel = "x"\nbase_url = "http://127.0.0.1:9/v1"\n'


def answered_without_flags(target: Path, _base: Path) -> None:
    """A run of examples/feedback-mini.jsonl in which model `c` (of ./m.toml) answered without
    sampling flags."""
    from checkbench.benchmarks import iter_items
    from checkbench.evaluation.runs import SAMPLING_META, store_items
    from checkbench.llm import ModelOptions, parse_model_spec

    options = ModelOptions(models_file=target.parent / "m.toml")
    bench = EXAMPLES / "feedback-mini.jsonl"
    with store_items(iter_items(bench), bench, target) as store:
        store.bind_model("c", parse_model_spec("c", options).identity(options))
        unset = {"temperature": None, "max_tokens": None, "seed": None}
        store.set_meta(SAMPLING_META, {"c": unset})


OTHER_SAMPLING = {
    f"{command}: a run resumed with {flag}": case(
        f"{line} {flag}",
        {"m.toml": CHEAP, "run": answered_without_flags},
        "run/run.sqlite: field '--temperature/--max-tokens/--seed': c answered this run with "
        "other sampling flags",
    )
    for command, line in {
        "generate": f"generate {FEEDBACK} -o run -m c --models m.toml",
        "run": f"run {FEEDBACK} -o run -m c -j c --models m.toml",
    }.items()
    for flag in ("--temperature 0.7", "--max-tokens 7")
}

CASES |= OTHER_SAMPLING
