"""Corpus cases: paths that are not what a command expects. A directory, a symlink loop, a
fifo or nothing where an input file should be; a folder that is not one; a file nobody may
read (chmod 000); and output places nobody may write into (a read-only directory). The last
two need a user whom file modes bind, so they are skipped as root."""

from __future__ import annotations

from tests.cli.input_corpus import (
    CHEAP_JUDGE,
    REFERENCE_JUDGE,
    Case,
    case,
    chmod,
    dangling,
    directory,
    fifo,
    from_base,
    from_examples,
    symlink_loop,
    with_mode,
)

RUN = {"run": from_base("run")}
X = "x.in"
INPUTS: dict[str, tuple[str, dict]] = {
    "generate": (f"generate {X} -o out", {}),
    "run": (f"run {X} -o out", {}),
    "fbbench filter": (f"fbbench filter {X} -w local -o hard.jsonl", {}),
    "ifrewardbench run": (f"ifrewardbench run {X}", {}),
    "scan show": (f"scan show {X}", {}),
    "scan build": (f"scan build {X} -o out --taxonomy-out tax.json", {}),
    "convbench build from-logs": (
        f"convbench build {X} --domain coding -o out --bench b.jsonl",
        {},
    ),
    "agreement --human": (f"agreement run --human {X}", RUN),
    "calibrate --reference-file": (
        f"calibrate run --judge-id {CHEAP_JUDGE} --reference-file {X}",
        RUN,
    ),
    "convbench score --reference": (
        f"convbench score run --judge-id {REFERENCE_JUDGE} --reference {X}",
        RUN,
    ),
    "report --taxonomy": (f"report run --taxonomy {X}", RUN),
    "scan tag --taxonomy": (
        f"scan tag {{ex}}/feedback-mini.jsonl -t {X} -o out --bench-out t.jsonl",
        {},
    ),
    "scan pc2 --human": (f"scan pc2 run --aux local --human {X}", RUN),
    "generate --models": (f"generate {{ex}}/feedback-mini.jsonl -o out --models {X}", {}),
    "generate --items": (f"generate {{ex}}/feedback-mini.jsonl -o out --items {X}", {}),
    "run --items": (f"run {{ex}}/feedback-mini.jsonl -o out --items {X}", {}),
    "judge --items": (f"judge run --items {X}", RUN),
    "fbbench import --items": (
        f"fbbench import {{ex}}/fb-bench-judgments-mini -o out --items {X}",
        {},
    ),
}
"""Every option or argument naming an input file: its command line, and what it needs."""
NOT_FILES = {
    "a directory": (directory, "is a directory, expected a file"),
    "a symlink loop": (symlink_loop, "symlink loop"),
    "a fifo": (fifo, "not a regular file (a pipe, socket or device)"),
    "missing": (None, "file not found"),
    "a dangling symlink": (dangling, "broken symlink"),
}
NOT_A_FILE = {
    f"{reader}: {problem}": case(
        command, {**needs, **({X: make} if make else {})}, f"{X}: {message}"
    )
    for reader, (command, needs) in INPUTS.items()
    for problem, (make, message) in NOT_FILES.items()
}
FOLDERS = {
    f"import: the folder {problem}": case(
        f"fbbench import {X} --out out", {X: make} if make else {}, f"{X}: {message}"
    )
    for problem, (make, message) in {
        "missing": (None, "directory not found"),
        "a symlink loop": (symlink_loop, "symlink loop"),
        "a fifo": (fifo, "not a directory"),
    }.items()
}

UNREADABLE = {
    f"{reader}: unreadable": case(
        command,
        {**needs, X: with_mode(b'{"id": "a"}\n', 0)},
        f"'{X}' is not readable",
        unprivileged=True,
    )
    for reader, (command, needs) in INPUTS.items()
}
UNREADABLE["import: an unreadable folder"] = case(
    f"fbbench import {X} --out out",
    {X: from_examples("fb-bench-judgments-mini"), f"{X}/.": chmod(0)},
    f"'{X}' is not readable",
    unprivileged=True,
)

RO = {"ro": with_mode(None, 0o555)}
CANNOT = ": cannot create it: "
HTTP = "openai:m@http://127.0.0.1:9/v1"
"""A model on a port nothing listens on: a bad output path must stop the command before."""
FROM_LOGS = "convbench build {ex}/logs-mini.jsonl --domain coding"
OUTPUTS = {
    "generate -o": f"generate {{ex}}/feedback-mini.jsonl -o ro/out -m {HTTP}",
    "run -o": f"run {{ex}}/feedback-mini.jsonl -o ro/out -m {HTTP} -j {HTTP}",
    "fbbench import --out": "fbbench import {ex}/fb-bench-judgments-mini --out ro/out",
    "ifrewardbench run -o": f"ifrewardbench run {{ex}}/ifrewardbench-mini.json -j {HTTP} -o ro/out",
    "convbench build --bench": f"{FROM_LOGS} -o out --bench ro/b.jsonl",
    "convbench build -o": f"{FROM_LOGS} -o ro/out --bench b.jsonl",
    "fbbench filter -o": "fbbench filter {ex}/feedback-mini.jsonl -w local -o ro/hard.jsonl",
    "scan build --taxonomy-out": (
        "scan build {ex}/queries-mini.jsonl -o out --taxonomy-out ro/tax.json"
    ),
    "scan tag --bench-out": (
        "scan tag {ex}/feedback-mini.jsonl -t {ex}/taxonomy-mini.json -o out --bench-out ro/t.jsonl"
    ),
    "scan synthesize -o": (
        "scan synthesize {ex}/feedback-mini.jsonl -t {ex}/taxonomy-mini.json "
        "--min-per-leaf 1 -o ro/out --bench-out more.jsonl"
    ),
}
UNWRITABLE = {
    f"{output}: in a read-only directory": case(
        command,
        RO,
        next(a for a in command.split() if a.startswith("ro/")) + CANNOT,
        unprivileged=True,
    )
    for output, command in OUTPUTS.items()
} | {
    "report -o: in a read-only directory": case(
        "report run -o ro/r.html", {**RUN, **RO}, f"ro/r.html{CANNOT}", unprivileged=True
    ),
    "calibrate --export: in a read-only directory": case(
        f"calibrate run --judge-id {CHEAP_JUDGE} --reference-judge {REFERENCE_JUDGE} "
        "--export ro/c.json",
        {**RUN, **RO},
        f"ro/c.json{CANNOT}",
        unprivileged=True,
    ),
    "judge: a read-only run directory": case(
        f"judge run -j {HTTP}",
        {**RUN, "run/.": chmod(0o555)},
        "run: directory is not writable",
        unprivileged=True,
    ),
}

CASES: dict[str, Case] = NOT_A_FILE | FOLDERS | UNREADABLE | UNWRITABLE
