"""The bad-input corpus: broken inputs for every command that reads a file, as data, and the
one check every case must pass.

A case is a command line, the files to lay out in an empty directory before running it (the
command runs there), and the text its one error line must contain. A bad input must give exit
code 2, one line starting "error:" that names the file (with its line and field where there is
one), no traceback, and write nothing: the directory is the same afterwards, file by file and
run store by run store (an existing run directory is left unchanged). A case with code 0 is an
input that is legitimately acceptable (its `why` says why): it must simply work.

The tables are tests/cli/input_corpus_*.py; tests/cli/test_input_corpus.py runs them and
bench/reliability.py counts them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import shlex
import shutil
import sqlite3
import stat
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from checkbench.judges.calibration_artefact import ALL, Calibration, Curve
from checkbench.schema import Verdict
from checkbench.store import RunStore
from tests.cli.corpus_runner import Outcome, invoke
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples"
Make = Callable[[Path, Path], None]
"""Creates something at a target path, given the directory of shared inputs (see `prepare`)."""
Content = str | bytes | Make


@dataclass(frozen=True)
class Case:
    """One input and what the command must do with it."""

    args: tuple[str, ...]
    files: Mapping[str, Content]
    expect: str
    code: int = 2
    why: str = ""
    unprivileged: bool = False
    """Needs a user whom file modes bind (chmod 000, read-only directories): skipped as root."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Environment variables the command runs with."""


def case(command: str, files: Mapping[str, Content], expect: str = "", **kw: object) -> Case:
    """A case from a shell-like command line; `{ex}` is the examples directory and `{stub}`
    the base URL of a local OpenAI-compatible server."""
    return Case(tuple(shlex.split(command)), files, expect, **kw)  # type: ignore[arg-type]


def table(title: str, command: str, name: str, rows: Mapping[str, tuple[Content, str]]) -> dict:
    """Cases "TITLE: LABEL" running `command` with the file `name` holding each row's content;
    the error must name that file, then say the row's text (e.g. ":2: field 'id'")."""
    return {
        f"{title}: {label}": case(command, {name: content}, name + expect)
        for label, (content, expect) in rows.items()
    }


def accepted(command: str, files: Mapping[str, Content], why: str) -> Case:
    """An input that is legitimately acceptable: the command must succeed (exit 0)."""
    return case(command, files, code=0, why=why)


# ---------------------------------------------------------------- things to lay out


def directory(target: Path, _base: Path) -> None:
    target.mkdir()


def symlink_loop(target: Path, _base: Path) -> None:
    """`target` -> `target`.2 -> `target`: opening either is ELOOP."""
    other = target.with_name(target.name + ".2")
    target.symlink_to(other.name)
    other.symlink_to(target.name)


def dangling(target: Path, _base: Path) -> None:
    target.symlink_to("gone")


def fifo(target: Path, _base: Path) -> None:
    os.mkfifo(target)


def from_base(name: str) -> Make:
    """A copy of the shared input `name` (a file, or a directory such as the run)."""

    def make(target: Path, base: Path) -> None:
        source = base / name
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True)
        else:
            shutil.copyfile(source, target)

    return make


def from_examples(name: str) -> Make:
    """A copy of examples/`name` (a file or a directory)."""

    def make(target: Path, _base: Path) -> None:
        source = EXAMPLES / name
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)

    return make


def with_mode(content: Content | None, mode: int) -> Make:
    """`content` (a directory for None), then chmod `mode`: 0 for unreadable, 0o555 for a
    directory nobody may write into."""

    def make(target: Path, base: Path) -> None:
        if content is None:
            target.mkdir()
        else:
            write(target, content, base)
        target.chmod(mode)

    return make


def chmod(mode: int) -> Make:
    """Change the mode of what an earlier entry laid out (name it "path/.")."""

    def make(target: Path, _base: Path) -> None:
        target.chmod(mode)

    return make


def run_with(sql: str) -> Make:
    """A copy of the shared run whose store then has `sql` applied."""

    def make(target: Path, base: Path) -> None:
        from_base("run")(target, base)
        with closing(sqlite3.connect(target / "run.sqlite")) as db:
            db.executescript(sql)

    return make


def truncated_store(target: Path, base: Path) -> None:
    """A copy of the shared run whose run.sqlite lost its second half (a full disk, a bad copy)."""
    from_base("run")(target, base)
    store = target / "run.sqlite"
    data = store.read_bytes()
    store.write_bytes(data[: len(data) // 2])


def lines_of(count: int, line: str, last: str = "") -> Make:
    """A file of `count` copies of `line`, then `last`: written in one go, quickly."""

    def make(target: Path, _base: Path) -> None:
        with target.open("w", encoding="utf-8") as handle:
            handle.write(line * count + last)

    return make


def later(text: Callable[[], str]) -> Make:
    """Content made only when laid out: a big file the table should not hold."""

    def make(target: Path, _base: Path) -> None:
        target.write_text(text(), encoding="utf-8")

    return make


def write(target: Path, content: Content, base: Path) -> None:
    """Create `content` at `target`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if callable(content):
        content(target, base)
    elif isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content, encoding="utf-8")


# ---------------------------------------------------------------- shared inputs

CHEAP_JUDGE = "cheap#logprob"
REFERENCE_JUDGE = "example-judge"


def prepare(base: Path) -> None:
    """The shared inputs cases copy: `run`, the FB-Bench authors' judgments of examples/
    imported (judge example-judge) plus P(yes) verdicts of a cheap log-prob judge, and
    `cal.json`, a calibration of that judge in the form `calibrate --export` writes."""
    base.mkdir(parents=True, exist_ok=True)
    imported = invoke(
        ["fbbench", "import", str(EXAMPLES / "fb-bench-judgments-mini"), "--out", "run"],
        base,
    )
    assert imported.code == 0, imported.stderr + imported.crash
    rng = random.Random(0)
    with RunStore(base / "run") as store:
        store.put_verdicts(
            Verdict(**{**verdict.model_dump(), "judge": CHEAP_JUDGE, "p_yes": rng.random()})
            for verdict in store.verdicts(REFERENCE_JUDGE)
        )
    curve = Curve(kind="logistic", coef=1.0, intercept=0.0, train_verdicts=2, train_positive=1)
    calibration = Calibration(
        **{"name": f"{CHEAP_JUDGE}#calibrated", "judge": CHEAP_JUDGE, "reference": REFERENCE_JUDGE},
        **{"method": "logistic", "by": None, "decision": "bayes", "threshold": 0.5, "seed": 0},
        **{"test_fraction": 0.0, "min_group": 1, "train_items": [], "test_items": []},
        curves={ALL: curve},
    )
    (base / "cal.json").write_text(calibration.model_dump_json(), encoding="utf-8")


# ---------------------------------------------------------------- running and checking

IGNORED = (".lock", "-wal", "-shm", "-journal")
"""The writer lock and SQLite's side files: a store is compared by its content instead."""


def _digest(path: Path, mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "link -> " + os.readlink(path)
    if stat.S_ISDIR(mode) or not stat.S_ISREG(mode):
        return f"mode {mode:o}"
    if path.suffix == ".sqlite":
        store = f"file:{path}?mode=ro"
        with contextlib.suppress(sqlite3.Error), closing(sqlite3.connect(store, uri=True)) as db:
            return "store " + hashlib.sha256("\n".join(db.iterdump()).encode()).hexdigest()
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except PermissionError:
        info = path.stat()
        return f"unreadable {info.st_size} {info.st_mtime_ns}"


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under `root` (symlinks not followed) with its mode and content."""
    state = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            if name.endswith(IGNORED):
                continue
            mode = path.lstat().st_mode
            state[str(path.relative_to(root))] = f"{mode:o} {_digest(path, mode)}"
    return state


@dataclass(frozen=True)
class Result:
    """How one case went: the command's outcome and every way it fell short."""

    outcome: Outcome
    problems: list[str] = field(default_factory=list)

    @property
    def kinds(self) -> set[str]:
        """The kinds of problem: traceback, exit code, lines, unclear, written."""
        return {problem.split(":", 1)[0] for problem in self.problems}


def try_case(case: Case, root: Path, base: Path, stub: str = "") -> Result:
    """Lay out the case's files in the empty directory `root`, run the command there and
    check what it did."""
    root.mkdir(parents=True, exist_ok=True)
    for name, content in case.files.items():
        write(root / name, content, base)
    before = snapshot(root)
    host = stub.removeprefix("http://").removesuffix("/v1")
    args = [arg.format(ex=EXAMPLES, stub=stub, stub_host=host) for arg in case.args]
    outcome = invoke(args, root, dict(case.env))
    return Result(outcome, _problems(case, outcome, before, snapshot(root)))


def _problems(case: Case, outcome: Outcome, before: dict, after: dict) -> list[str]:
    problems = []
    if outcome.crash or "Traceback" in outcome.stderr + outcome.stdout:
        last = (outcome.crash or outcome.stderr).strip().splitlines()[-1:]
        problems.append(f"traceback: {' '.join(last)}")
    if outcome.code != case.code:
        problems.append(f"exit code: {outcome.code}, expected {case.code}")
    if case.code == 0:
        if any(line.startswith("error:") for line in outcome.lines):
            problems.append(f"lines: an error for an acceptable input: {outcome.lines}")
        return problems
    if len(outcome.lines) != 1 or not outcome.lines[0].startswith("error: "):
        problems.append(f"lines: expected one error line, got {outcome.lines[:4]}")
    elif case.expect not in outcome.lines[0]:
        problems.append(f"unclear: {outcome.lines[0]!r} does not say {case.expect!r}")
    changed = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
    if changed:
        problems.append(f"written: {changed[:5]}")
    return problems


def corpus() -> dict[str, Case]:
    """Every case of the tables, by name (a name used twice is an error)."""
    from tests.cli import (
        input_corpus_benchmarks,
        input_corpus_files,
        input_corpus_hostile,
        input_corpus_paths,
        input_corpus_runs,
    )

    tables = [
        input_corpus_benchmarks.CASES,
        input_corpus_runs.CASES,
        input_corpus_files.CASES,
        input_corpus_paths.CASES,
        input_corpus_hostile.CASES,
    ]
    merged: dict[str, Case] = {}
    for cases in tables:
        twice = merged.keys() & cases.keys()
        assert not twice, f"case names used twice: {sorted(twice)}"
        merged |= cases
    return merged
