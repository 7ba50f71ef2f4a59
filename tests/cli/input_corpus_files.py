"""Corpus cases: broken taxonomy files (every command and option that reads one), folders of
FB-Bench judgments (`import`), conversation logs and vocabularies (`build`), and models files
(--models, ./checkbench.toml) for the commands that call models."""

from __future__ import annotations

import gzip
import json
import math
from typing import Any

from tests.cli.input_corpus import (
    EXAMPLES,
    Case,
    accepted,
    case,
    directory,
    fifo,
    from_base,
    from_examples,
    lines_of,
    table,
)

TAXONOMY = json.loads((EXAMPLES / "taxonomy-mini.json").read_text())
JUDGMENT = json.loads(
    (EXAMPLES / "fb-bench-judgments-mini/model-a.jsonl").read_text().split("\n")[0]
)
LOG = (EXAMPLES / "logs-mini.jsonl").read_text()
LAST = LOG.count("\n")
"""The number of the logs' last line."""
BOM = b"\xef\xbb\xbf"
RUN = {"run": from_base("run")}
T = "t.json"


def jsonl(*records: Any) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def twin_domains() -> str:
    """A taxonomy whose first two domains share a name."""
    first = TAXONOMY["domains"][0]
    return json.dumps({**TAXONOMY, "domains": [first, {**first, "description": "again"}]})


# ---------------------------------------------------------------- taxonomies

SHOW = table(
    "scan show",
    f"scan show {T}",
    T,
    {
        "empty file": ("", ": file is empty"),
        "truncated JSON": (json.dumps(TAXONOMY)[:-20], ":1: malformed JSON"),
        "a list": ("[]", ": field '$'"),
        "a number for a name": ('{"name": 5, "domains": []}', ": field '$.name'"),
        "domains not a list": ('{"name": "t", "domains": 5}', ": field '$.domains'"),
        "two siblings with one name": (twin_domains(), ": field '$.domains[1]': duplicate path"),
        "a SCAN leaf that is a number": ('{"coding": {"python": 5}}', ": field '$"),
        "an object for a description": (
            '{"name": "t", "description": {}, "domains": []}',
            ": field '$.description'",
        ),
    },
)
TAXONOMY_OPTIONS = {
    "scan validate: a directory": case(
        f"scan validate {T}", {T: directory}, f"{T}: is a directory"
    ),
    "scan diff: the new one a list": case(
        f"scan diff {{ex}}/taxonomy-mini.json {T}", {T: "[]"}, f"{T}: field '$'"
    ),
    "scan tag --taxonomy: truncated JSON": case(
        f"scan tag {{ex}}/feedback-mini.jsonl -t {T} -o out --bench-out tagged.jsonl",
        {T: "{"},
        f"{T}:1: malformed JSON",
    ),
    "scan synthesize --taxonomy: two siblings with one name": case(
        f"scan synthesize {{ex}}/feedback-mini.jsonl -t {T} --min-per-leaf 1 -o out "
        "--bench-out more.jsonl",
        {T: twin_domains()},
        f"{T}: field '$.domains[1]'",
    ),
    "scan build --seed-taxonomy: a list": case(
        f"scan build {{ex}}/queries-mini.jsonl -o out --taxonomy-out tax.json --seed-taxonomy {T}",
        {T: "[1]"},
        f"{T}: field '$'",
    ),
    "scan navigate --taxonomy: empty file": case(
        f"scan navigate run -t {T} --judge-id example-judge",
        {**RUN, T: ""},
        f"{T}: file is empty",
    ),
    "report --taxonomy: domains not a list": case(
        f"report run --taxonomy {T}", {**RUN, T: '{"name": "t", "domains": 5}'}, f"{T}: field"
    ),
    "view --taxonomy: truncated JSON": case(
        f"view run --port 0 --taxonomy {T}", {**RUN, T: "{"}, f"{T}:1: malformed JSON"
    ),
    "scan show: a byte-order mark": accepted(
        f"scan show {T}", {T: BOM + json.dumps(TAXONOMY).encode()}, "stripped"
    ),
}

# ---------------------------------------------------------------- FB-Bench judgments


def judgment(**changes: Any) -> str:
    """A judgments file: the published record, then one changed by `changes` on line 2."""
    second = {**JUDGMENT, "feedback": "Really?", **changes}
    return jsonl(JUDGMENT, second)


def weighted(*weights: float) -> list[list[Any]]:
    return [
        [text, weight] for (text, _), weight in zip(JUDGMENT["checklist"], weights, strict=True)
    ]


def echoes(weight: float) -> dict[str, Any]:
    """The record's judgement with every echoed weight replaced."""
    return {k: {**v, "weight": weight} for k, v in JUDGMENT["judgement"].items()}


A = "jd/model-a.jsonl"
IMPORT = "fbbench import jd --out out"
JUDGMENTS = table(
    "fbbench import",
    IMPORT,
    A,
    {
        "empty file": ("", ": file is empty"),
        "truncated last line": (judgment()[:-30], ":2: malformed JSON"),
        "judgement not an object": (judgment(judgement="yes"), ":2: field 'judgement'"),
        "NaN weight": (judgment(checklist=weighted(math.nan, 0.2)), ":2: field 'checklist.0'"),
        "negative weight": (
            judgment(checklist=weighted(-0.2, 1.2)),
            ":2: field 'checklist.0': check weight must be a number above 0",
        ),
        "weights summing to 0.5": (
            judgment(checklist=weighted(0.3, 0.2)),
            ":2: field 'checklist': rule 'weighted' needs weights summing to 1, got 0.5",
        ),
        "the same sample twice": (jsonl(JUDGMENT, JUDGMENT), ":2: field 'user_query': duplicate"),
        "a NaN score": (judgment(score=math.nan), ":2: field 'score'"),
        "a score that is a word": (judgment(score="high"), ":2: field 'score'"),
        "a list on a line": (jsonl(JUDGMENT, [1]), ":2: each line must be a JSON object"),
    },
)
IMPORTS = {
    "import: an empty folder": case(IMPORT, {"jd": directory}, "jd: no .jsonl judgment files"),
    "import: a file for the folder": case(
        "fbbench import f.json --out out",
        {"f.json": from_examples("fb-bench-mini.json")},
        "f.json: not a directory",
    ),
    "import: the second file bad": case(
        IMPORT,
        {"jd": from_examples("fb-bench-judgments-mini"), "jd/model-c.jsonl": "{"},
        "jd/model-c.jsonl:1: malformed JSON",
    ),
    "import: --out is a file": case(
        IMPORT.replace("--out out", "--out f.txt"),
        {"jd": from_examples("fb-bench-judgments-mini"), "f.txt": "x"},
        "f.txt: exists and is not a directory",
    ),
    "import: echoed weights NaN": accepted(
        IMPORT,
        {A: judgment(judgement=echoes(math.nan))},
        "the judge's echoed weights are only compared with the checklist's (and counted)",
    ),
}

# ---------------------------------------------------------------- conversation logs

L = "logs.jsonl"
BUILD = f"convbench build {L} --domain coding -o out --bench b.jsonl"
STRICT = f"{BUILD} --strict"
LOGS = table(
    "convbench build",
    STRICT,
    L,
    {
        "empty file": ("", ": file has no records"),
        "truncated JSON": (LOG[:-10], f":{LAST}: malformed JSON"),
        "an unknown role": (
            jsonl({"id": "x", "messages": [{"role": "bot", "content": "hi"}]}),
            ":1: field 'messages.0.role'",
        ),
        "a record without turns": (jsonl({"id": "x"}), ":1: "),
        "the same id twice": (LOG + LOG.split("\n")[0] + "\n", f":{LAST + 1}: field 'id'"),
        "a million blank lines, then a bad one": (
            lines_of(1_000_000, "\n", "{\n"),
            ":1000001: malformed JSON",
        ),
    },
)
BUILDS = {
    "build: gzip cut short": case(
        f"convbench build {L}.gz --domain coding -o out --bench b.jsonl",
        {f"{L}.gz": gzip.compress(LOG.encode())[:-30]},
        f"{L}.gz:{LAST}: unreadable data",
    ),
    "build: not Parquet": case(
        "convbench build l.parquet --domain coding -o out --bench b.jsonl",
        {"l.parquet": b"PAR1 not really"},
        "l.parquet:1: unreadable Parquet data",
    ),
    "build: every record malformed": case(BUILD, {L: "{\n[\n"}, f"{L}:1: malformed JSON"),
    "convbench build --vocab: empty file": case(
        f"{BUILD} --vocab v.txt", {L: LOG, "v.txt": ""}, "v.txt: vocabulary file has no words"
    ),
    "convbench build --vocab: a directory": case(
        f"{BUILD} --vocab v", {L: LOG, "v": directory}, "v: is a directory, expected a file"
    ),
    "convbench build --vocab: neither a file nor a built-in one": case(
        f"{BUILD} --vocab v.txt", {L: LOG}, "v.txt: not a built-in vocabulary"
    ),
    "convbench build --vocab: not UTF-8": case(
        f"{BUILD} --vocab v.txt", {L: LOG, "v.txt": b"sort\n\xff\n"}, "v.txt:2: not valid UTF-8"
    ),
    "convbench build --bench: a directory": case(
        BUILD, {L: LOG, "b.jsonl": directory}, "b.jsonl: is a directory, expected a file to write"
    ),
    "convbench build --out: a file": case(
        BUILD, {L: LOG, "out": "x"}, "out: exists and is not a directory"
    ),
    "convbench build --curate feedback: empty file": case(
        f"convbench build {L} --curate feedback -o out --bench b.jsonl",
        {L: ""},
        f"{L}: file has no records",
    ),
    "convbench build --markers: a line without a kind": case(
        f"convbench build {L} --curate feedback -o out --bench b.jsonl --markers m.txt",
        {L: LOG, "m.txt": "concede: my bad\nsorry\n"},
        "m.txt:2: a marker line is 'concede: PHRASE' or 'hold: PHRASE'",
    ),
    "convbench build --markers: without --curate feedback": case(
        f"{BUILD} --markers m.txt", {L: LOG, "m.txt": "hold: no\n"}, "field 'markers'"
    ),
    "fbbench filter --run: a file": case(
        "fbbench filter {ex}/feedback-mini.jsonl -w local -o hard.jsonl --run f.txt",
        {"f.txt": "x"},
        "f.txt: exists and is not a directory",
    ),
}

# ---------------------------------------------------------------- models files

GOOD_MODEL = '[models.j]\nmodel = "x"\nbase_url = "http://127.0.0.1:9/v1"\n'
JUDGE = "judge run -j j --models m.toml"
MODELS = {
    f"models file: {label}": case(JUDGE, {**RUN, "m.toml": text}, "m.toml" + expect)
    for label, (text, expect) in {
        "a number for the model": ("[models.j]\nmodel = 5\n", ":2: field 'models.j.model'"),
        "an unknown key": (GOOD_MODEL + "colour = 1\n", ":4: field 'models.j.colour'"),
        "truncated TOML": ("[models.j\n", ":1: not valid TOML"),
        "negative concurrency": (
            GOOD_MODEL + "concurrency = -1\n",
            ":4: field 'models.j.concurrency'",
        ),
        "NaN temperature": (GOOD_MODEL + "temperature = nan\n", ":4: field 'models.j.temperature'"),
        "negative price": (
            GOOD_MODEL + "price = {input = -1, output = 1}\n",
            ":4: field 'models.j.price.input'",
        ),
        "a base_url that is not HTTP": ('[models.j]\nmodel = "x"\nbase_url = "ftp://h"\n', ":3: "),
        "not UTF-8": (b'[models.j]\nmodel = "\xff"\n', ":2: not valid UTF-8"),
        "a directory": (directory, ": is a directory, expected a file"),
        "a fifo": (fifo, ": not a regular file"),
    }.items()
}
MODELS |= {
    "models file: empty, and an alias it lacks": case(
        JUDGE, {**RUN, "m.toml": ""}, "field 'model': unknown model 'j'"
    ),
    "models file: ./checkbench.toml broken": case(
        "judge run", {**RUN, "checkbench.toml": "[models\n"}, "checkbench.toml:1: not valid TOML"
    ),
    "generate --models: truncated TOML": case(
        "generate {ex}/feedback-mini.jsonl -o out --models m.toml",
        {"m.toml": "[models"},
        "m.toml: not valid TOML",
    ),
    "ifrewardbench run --models: an unknown key": case(
        "ifrewardbench run {ex}/ifrewardbench-mini.json -j j -o out --models m.toml",
        {"m.toml": GOOD_MODEL + "colour = 1\n"},
        "m.toml:4: field 'models.j.colour'",
    ),
    "run --models: negative concurrency": case(
        "run {ex}/feedback-mini.jsonl -o out -m j --models m.toml",
        {"m.toml": GOOD_MODEL + "concurrency = 0\n"},
        "m.toml:4: field 'models.j.concurrency'",
    ),
    "fbbench filter --models: a directory": case(
        "fbbench filter {ex}/feedback-mini.jsonl -w j -o hard.jsonl --models m.toml",
        {"m.toml": directory},
        "m.toml: is a directory",
    ),
    "scan build --models: an unknown key": case(
        "scan build {ex}/queries-mini.jsonl -o out --taxonomy-out tax.json -m j --models m.toml",
        {"m.toml": GOOD_MODEL + "colour = 1\n"},
        "m.toml:4: field 'models.j.colour'",
    ),
    "scan synthesize --models: truncated TOML": case(
        "scan synthesize {ex}/feedback-mini.jsonl -t {ex}/taxonomy-mini.json "
        "--min-per-leaf 1 -o out --bench-out more.jsonl -m j --models m.toml",
        {"m.toml": "[models.j\n"},
        "m.toml:1: not valid TOML",
    ),
    "scan pc2 --models: a number for the model": case(
        "scan pc2 run -j j --aux j --models m.toml",
        {**RUN, "m.toml": "[models.j]\nmodel = 5\n"},
        "m.toml:2: field 'models.j.model'",
    ),
    "convbench build --models: missing": case(
        f"{BUILD} --models m.toml -m j", {L: LOG}, "m.toml: file not found"
    ),
    "scan tag --models: NaN temperature": case(
        "scan tag {ex}/feedback-mini.jsonl -t {ex}/taxonomy-mini.json -o out "
        "--bench-out tagged.jsonl -m j --models m.toml",
        {"m.toml": GOOD_MODEL + "temperature = nan\n"},
        "m.toml:4: field 'models.j.temperature'",
    ),
}

CASES: dict[str, Case] = SHOW | TAXONOMY_OPTIONS | JUDGMENTS | IMPORTS | LOGS | BUILDS | MODELS
