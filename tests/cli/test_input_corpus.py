"""The bad-input corpus (tests/cli/input_corpus_*.py), case by case: exit code 2, one error line
naming the file (line and field where there is one), no traceback, nothing written; or, for
an input that is legitimately acceptable, exit code 0."""

from __future__ import annotations

import json
import os
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

from checkbench import cli
from checkbench.testing import CANNED, OpenAIServer
from tests.cli import corpus_runner  # noqa: F401  (registers the commands)
from tests.cli.input_corpus import corpus, prepare, try_case

CORPUS = corpus()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared inputs cases copy (a run with two judges, a calibration file)."""
    base = tmp_path_factory.mktemp("corpus-base")
    prepare(base)
    return base


@pytest.fixture(scope="module")
def stub() -> Iterator[str]:
    """A local OpenAI-compatible server for the inputs that are accepted and run."""
    with OpenAIServer(CANNED) as server:
        yield server.base_url


@pytest.mark.parametrize("name", CORPUS)
def test_a_bad_input_is_one_clear_line_and_writes_nothing(
    name: str, tmp_path: Path, base: Path, stub: str, record_property: Callable
) -> None:
    """(bench/reliability.py counts the cases from the `code` and `problems` recorded here.)"""
    case = CORPUS[name]
    record_property("code", case.code)
    if case.unprivileged and os.geteuid() == 0:
        pytest.skip("root reads and writes whatever the mode")
    result = try_case(case, tmp_path, base, stub)
    record_property("problems", json.dumps(result.problems))
    assert result.problems == [], (result.outcome.stderr[-2000:], result.outcome.crash[-3000:])


def _names_a_path(param: TyperArgument | TyperOption) -> bool:
    annotation = param.type_descriptor.annotation
    return annotation is Path or Path in typing.get_args(annotation)


def _file_params() -> dict[tuple[str, ...], set[str]]:
    """Every command, by its path, with the flags of its options that name a file or a
    directory ("" stands for its arguments)."""
    found: dict[tuple[str, ...], set[str]] = {}

    def walk(command: Any, path: tuple[str, ...]) -> None:
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))
            return
        found[path] = {
            "" if isinstance(param, TyperArgument) else max(param.opts, key=len)
            for param in command.params
            if _names_a_path(param)
        }

    walk(typer.main.get_command(cli.app), ())
    return found


def _covered(args: tuple[str, ...], path: tuple[str, ...], flags: set[str]) -> set[str]:
    """The file-naming flags of command `path` that the case's arguments use."""
    if args[: len(path)] != path:
        return set()
    used = {arg.split("=")[0] for arg in args[len(path) :]}
    short = {"-o": "--out", "-t": "--taxonomy"}
    return {flag for flag in flags if flag in used or flag in {short.get(u) for u in used}} | {""}


def test_the_corpus_covers_every_command_and_every_option_naming_a_file() -> None:
    """Each command that reads anything has cases, and so has each of its options whose value
    is a path; the corpus keeps at least 150 cases; an accepted input says why it is."""
    missing = []
    for path, flags in _file_params().items():
        covered = set().union(*(_covered(case.args, path, flags) for case in CORPUS.values()))
        if not covered:
            missing.append(" ".join(path))
        missing += [f"{' '.join(path)} {flag}" for flag in flags - covered]
    assert missing == []
    assert len(CORPUS) >= 150
    assert [name for name, case in CORPUS.items() if case.code == 0 and not case.why] == []
