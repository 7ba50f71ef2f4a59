"""Corpus cases: broken run directories for every command that reads one, and broken files
named by the options of those commands (--human, --reference, --reference-file,
--calibration, --price, --export, -o).

"run" is a copy of the shared run (see `input_corpus.prepare`): published judgments of two
models by example-judge, and P(yes) verdicts of cheap#logprob.
"""

from __future__ import annotations

import json

from tests.cli.input_corpus import (
    CHEAP_JUDGE,
    REFERENCE_JUDGE,
    Case,
    accepted,
    case,
    dangling,
    directory,
    fifo,
    from_base,
    from_examples,
    lines_of,
    run_with,
    symlink_loop,
    table,
    truncated_store,
)

RUN = {"run": from_base("run")}
BY_JUDGE = "--judge-id example-judge"
ITEM_ID, CHECK = "fb-26f04a926ba7", "c1"
LABEL = {"item_id": ITEM_ID, "model": "model-a", "check_id": CHECK, "passed": True}
PREF = {"item_id": ITEM_ID, "chosen": "model-a", "rejected": "model-b"}
BOM = b"\xef\xbb\xbf"


def jsonl(*records: object) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def on_run(command: str, name: str, rows: dict, title: str) -> dict[str, Case]:
    """A `table` whose cases also get a copy of the shared run."""
    cases = table(title, command, name, rows)
    return {key: case(command, {**RUN, **c.files}, c.expect) for key, c in cases.items()}


# ---------------------------------------------------------------- run directories

READERS = {
    "judge": "judge run",
    "leaderboard": "leaderboard run",
    "report": "report run",
    "view": "view run --port 0",
    "agreement": f"agreement run --reference-judge {REFERENCE_JUDGE}",
    "calibrate": f"calibrate run --judge-id {CHEAP_JUDGE} --reference-judge {REFERENCE_JUDGE}",
    "score": "convbench score run",
    "scan pc2": "scan pc2 run --aux local",
    "scan navigate": "scan navigate run --facets task",
    "export-labels": "export-labels run --out labels.jsonl",
    "view --annotate": "view run --port 0 --annotator alice",
    "compare": f"compare run --baseline model-a --candidate model-b {BY_JUDGE}",
    "audit": f"audit run {BY_JUDGE} --write-refined refined.jsonl",
}
"""Every command that reads a run directory, with what it needs besides."""
NOT_A_RUN = "run: not a checkbench run directory (no run.sqlite)"
BROKEN_RUNS = {
    "missing": ({}, NOT_A_RUN),
    "a file": ({"run": "not a run"}, NOT_A_RUN),
    "without run.sqlite": ({"run": directory}, NOT_A_RUN),
    "a symlink loop": ({"run": symlink_loop}, NOT_A_RUN),
    "run.sqlite not SQLite": (
        {"run/run.sqlite": b"garbage " * 512},
        "run/run.sqlite: cannot read the run store (file is not a database)",
    ),
    "run.sqlite empty": ({"run/run.sqlite": b""}, "run/run.sqlite: empty run store"),
    "run.sqlite cut in half": (
        {"run": truncated_store},
        "run/run.sqlite: cannot read the run store (database disk image is malformed)",
    ),
    "run.sqlite from a newer checkbench": (
        {"run": run_with("UPDATE meta SET value = '99' WHERE key = 'schema_version'")},
        "run/run.sqlite: run store layout version 99 is not this checkbench's",
    ),
}
RUN_DIRS = {
    f"{command}: run directory {problem}": case(line, files, expect)
    for command, line in READERS.items()
    for problem, (files, expect) in BROKEN_RUNS.items()
}
STORE = "run/run.sqlite: field "
DAMAGED_ROWS = {
    "an item body not JSON": (
        f"UPDATE items SET body = '{{not json' WHERE id = '{ITEM_ID}'",
        f"{STORE}'body': damaged row {ITEM_ID} of table items (not JSON)",
    ),
    "an item's tags of the wrong type": (
        f"UPDATE items SET tags = '[1, 2]' WHERE id = '{ITEM_ID}'",
        f"{STORE}'tags': damaged row {ITEM_ID} of table items",
    ),
    "an item's checks not JSON": (
        f"UPDATE items SET checks = 'c1' WHERE id = '{ITEM_ID}'",
        f"{STORE}'checks': damaged row {ITEM_ID} of table items (not JSON)",
    ),
    "a response body not JSON": (
        f"UPDATE responses SET body = 'oops' WHERE item_id = '{ITEM_ID}' AND model = 'model-a'",
        f"{STORE}'body': damaged row {ITEM_ID}/model-a/sample 0 of table responses (not JSON)",
    ),
    "a verdict body of the wrong type": (
        f"UPDATE verdicts SET body = '[]' WHERE item_id = '{ITEM_ID}'",
        f"{STORE}'body': damaged row {ITEM_ID}/model-a/sample 0/",
    ),
    "a verdict's passed of the wrong type": (
        f"UPDATE verdicts SET passed = 'maybe' WHERE item_id = '{ITEM_ID}'",
        f"{STORE}'passed': damaged row {ITEM_ID}/model-a/sample 0/",
    ),
}
"""Stores that open but hold a row the readers cannot decode (altered by hand, a bad copy)."""
BODIES = ("an item body not JSON", "a response body not JSON", "a verdict body of the wrong type")
COLUMNS = ("an item's tags of the wrong type", "an item's checks not JSON")
VERDICT_COLUMNS = ("a verdict's passed of the wrong type",)
ROW_READERS = {
    "leaderboard": (
        f"leaderboard run {BY_JUDGE}",
        (*COLUMNS, "a response body not JSON", *VERDICT_COLUMNS),
    ),
    "report": ("report run", tuple(DAMAGED_ROWS)),
    "view": ("view run --port 0", tuple(DAMAGED_ROWS)[:4]),
    "score": (f"convbench score run {BY_JUDGE}", ("an item's checks not JSON", *VERDICT_COLUMNS)),
    "convbench score --checks instruction": (
        f"convbench score run {BY_JUDGE} --checks instruction",
        ("an item body not JSON", "an item's checks not JSON"),
    ),
    "agreement": (
        f"agreement run --judge-id {CHEAP_JUDGE} --reference-judge {REFERENCE_JUDGE}",
        BODIES,
    ),
    "calibrate": (READERS["calibrate"], BODIES),
    "scan navigate": (f"scan navigate run --facets task {BY_JUDGE}", BODIES),
    "view --annotate": (READERS["view --annotate"], (*tuple(DAMAGED_ROWS)[:4], *VERDICT_COLUMNS)),
}
"""The commands that read a whole run, each with the damage it meets: the rows and fields it
reads before it does anything else (`leaderboard` and `score` read items in columns, not their
bodies, but for the check sources `score --checks instruction` reads;
`view` reads verdicts only as the page asks). `judge` meets damage while it judges: it stops with
the same line, after storing the verdicts judged before it."""
DAMAGED_RUNS = {
    f"{command}: a store with {problem}": case(
        line, {"run": run_with(DAMAGED_ROWS[problem][0])}, DAMAGED_ROWS[problem][1]
    )
    for command, (line, problems) in ROW_READERS.items()
    for problem in problems
}

# ---------------------------------------------------------------- files the options name

HUMAN = on_run(
    "agreement run --human h.jsonl",
    "h.jsonl",
    {
        "empty file": ("", ": file is empty"),
        "truncated JSON": (jsonl(LABEL)[:-8], ":1: malformed JSON"),
        "passed is a word": (jsonl({**LABEL, "passed": "maybe"}), ":1: field 'passed'"),
        "an item not in the run": (jsonl({**LABEL, "item_id": "x"}), ":1: field 'item_id'"),
        "a check the item lacks": (jsonl({**LABEL, "check_id": "c9"}), ":1: field 'check_id'"),
        "a model not in the run": (jsonl({**LABEL, "model": "m9"}), ":1: field 'model'"),
        "the same check twice": (
            jsonl(LABEL, {**LABEL, "passed": False}),
            ":2: field 'check_id': a second verdict for this check",
        ),
        "a list on a line": (jsonl([LABEL]), ":1: each line must be a JSON object"),
        "not UTF-8": (jsonl(LABEL).encode() + b'{"note": "\xe9"}\n', ":2: not valid UTF-8"),
        "a million blank lines, then a bad one": (
            lines_of(1_000_000, "\n", "{\n"),
            ":1000001: malformed JSON",
        ),
    },
    "agreement --human",
)
REFERENCE_FILE = on_run(
    "agreement run --reference-file v.jsonl",
    "v.jsonl",
    {
        "empty file": ("", ": file is empty"),
        "missing model": (jsonl({"item_id": ITEM_ID, "check_id": CHECK, "passed": 1}), ":1: "),
        "a directory": (directory, ": is a directory, expected a file"),
        "a symlink loop": (symlink_loop, ": symlink loop"),
    },
    "agreement --reference-file",
) | on_run(
    f"calibrate run --judge-id {CHEAP_JUDGE} --reference-file v.jsonl",
    "v.jsonl",
    {
        "missing model": (jsonl({"item_id": 1}), ":1: field 'model': Field required"),
        "dangling symlink": (dangling, ": broken symlink"),
    },
    "calibrate --reference-file",
)
SCORE = f"convbench score run --judge-id {REFERENCE_JUDGE} --reference"
REFERENCE = on_run(
    f"{SCORE} r.csv",
    "r.csv",
    {
        "empty file": ("", ": file is empty"),
        "a header only": ("model,score\n", ": a reference leaderboard needs at least two models"),
        "a NaN score": ("model,score\nmodel-a,nan\nmodel-b,1\n", ":2: field 'score'"),
        "a word for a score": ("model,score\nmodel-a,high\nmodel-b,1\n", ":2: field 'score'"),
        "a model twice": ("model,score\nmodel-a,1\nmodel-a,2\n", ":3: field 'model'"),
        "no model column": ("name,points\na,1\nb,2\n", ":1: a CSV leaderboard needs a header"),
    },
    "convbench score --reference",
) | on_run(
    f"{SCORE} r.json",
    "r.json",
    {
        "truncated JSON": ('{"model-a": ', ":1: malformed JSON"),
        "a word for a score": ('{"model-a": "x", "model-b": 1}', ": field 'model-a.score'"),
        "a list without scores": ('[{"model": "model-a"}]', ": field '0.score'"),
    },
    "convbench score --reference JSON",
)
CAL = "leaderboard run --calibration c.json"
CALIBRATION = on_run(
    CAL,
    "c.json",
    {
        "truncated JSON": ('{"method": ', ":1: malformed JSON"),
        "empty file": ("", ":1: malformed JSON"),
        "a list": ("[]", ": field 'format': not a checkbench.calibration artefact"),
        "an empty object": ("{}", ": field 'format'"),
    },
    "leaderboard --calibration",
) | on_run(
    "convbench score run --calibration c.json",
    "c.json",
    {"not an artefact": ('{"format": "other"}', ": field 'format'")},
    "convbench score --calibration",
)
PREFS = on_run(
    "scan pc2 run --aux local --human p.jsonl",
    "p.jsonl",
    {
        "empty file": ("", ": file is empty"),
        "no chosen": (jsonl({"item_id": ITEM_ID, "rejected": "model-a"}), ":1: field 'chosen'"),
        "an unknown model": (jsonl({**PREF, "chosen": "m9"}), ":1: field 'chosen'"),
        "the same model twice": (jsonl({**PREF, "rejected": "model-a"}), ":1: chosen and rejected"),
        "an item not in the run": (jsonl({**PREF, "item_id": "x"}), ":1: field 'item_id'"),
    },
    "scan pc2 --human",
)
PRICE = "field '--price': expected MODEL=INPUT,OUTPUT"
OPTIONS = {
    "report --price: negative": case("report run --price model-a=1,-2", RUN, PRICE),
    "report --price: NaN": case("report run --price model-a=nan,2", RUN, PRICE),
    "report --price: no model": case("report run --price 2.5,10", RUN, PRICE),
    "view --price: a word": case("view run --port 0 --price cheap", RUN, PRICE),
    "report -o: a directory": case(
        "report run -o run", RUN, "run: is a directory, expected a file to write"
    ),
    "report -o: under a file": case(
        "report run -o run/run.sqlite/r.html", RUN, "run/run.sqlite/r.html: cannot create it: "
    ),
    "report -o: a fifo": case(
        "report run -o p.html", {**RUN, "p.html": fifo}, "p.html: not a regular"
    ),
    "calibrate --export: a directory": case(
        f"{READERS['calibrate']} --export run", RUN, "run: is a directory, expected a file"
    ),
    "calibrate --export: under a file": case(
        f"{READERS['calibrate']} --export run/run.sqlite/c.json",
        RUN,
        "run/run.sqlite/c.json: cannot create it: ",
    ),
}
LABELS = {
    "view --annotator: a name with a space": case(
        "view run --port 0 --annotator 'a b'", RUN, "field 'annotator': annotator name 'a b'"
    ),
    "export-labels --annotator: a name with a slash": case(
        "export-labels run --out l.jsonl --annotator a/b", RUN, "field 'annotator'"
    ),
    "export-labels --out: a directory": case(
        "export-labels run --out run", RUN, "run: is a directory, expected a file"
    ),
    "agreement --human: labels of nobody": case(
        "agreement run --human human:nobody",
        RUN,
        "field 'human': no labels by 'human:nobody' in this run (people: none)",
    ),
}
ACCEPTED = {
    "agreement --human: a byte-order mark": accepted(
        "agreement run --human h.jsonl",
        {**RUN, "h.jsonl": BOM + jsonl(LABEL).encode()},
        "stripped, as for every input",
    ),
    "convbench score --reference: the example leaderboard": accepted(
        f"{SCORE} r.csv", {**RUN, "r.csv": from_examples("reference-mini.csv")}, "a good file"
    ),
    "convbench score --reference: a byte-order mark": accepted(
        f"{SCORE} r.csv", {**RUN, "r.csv": BOM + b"model,score\nmodel-a,1\nmodel-b,2\n"}, "stripped"
    ),
    "leaderboard --calibration: the exported file": accepted(
        CAL, {**RUN, "c.json": from_base("cal.json")}, "a good file"
    ),
}

CASES: dict[str, Case] = (
    RUN_DIRS
    | DAMAGED_RUNS
    | HUMAN
    | REFERENCE_FILE
    | REFERENCE
    | CALIBRATION
    | PREFS
    | OPTIONS
    | ACCEPTED
    | LABELS
)
