"""The terminal progress display: a bar per stage with work, none for a stage without."""

from __future__ import annotations

import contextlib
import io
import re

from rich.console import Console

from checkbench.errors import InputError
from checkbench.steps.caller import CallCounters
from checkbench.steps.progress import RichProgress


def _plain(out: io.StringIO) -> str:
    """The terminal output without its cursor and style escape codes."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())


def _render(stages: list[tuple[str, int]]) -> str:
    """What the display leaves on an 80-column terminal after the stages ran to the end."""
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None)
    counters = CallCounters()
    with RichProgress(console) as progress:
        for label, total in stages:
            progress.start(label, total)
            for _ in range(total):
                counters.calls += 1
                counters.tokens += 10
                progress.advance(counters)
    return _plain(out)


def test_a_stage_with_work_shows_its_bar() -> None:
    shown = _render([("generate", 3)])
    assert "generate" in shown and "3/3" in shown


def test_a_stage_with_nothing_to_do_shows_no_bar() -> None:
    shown = _render([("generate", 0), ("judge", 2)])
    assert "generate" not in shown and "0/0" not in shown
    assert "judge" in shown and "2/2" in shown


def test_no_work_leaves_the_terminal_untouched() -> None:
    assert _render([]) == ""
    assert _render([("judge", 0)]) == ""


def test_a_long_label_is_cut_so_the_numbers_stay_whole_at_80_columns() -> None:
    label = "judge (local:SmolLM2-135M-Instruct.Q4_1#logprob)"
    shown = _render([(label, 120)])
    last = [line for line in shown.splitlines() if "120/120" in line][-1]
    assert last.startswith("judge (") and label not in last
    assert last.rstrip().endswith("1200 tok")


def test_a_new_stage_starts_from_the_counts_so_far() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None)
    with RichProgress(console) as progress:
        progress.start("criteria", 1)
        progress.advance(CallCounters(calls=1, tokens=500))
        progress.start("grade", 2)
    grade = [line for line in _plain(out).splitlines() if "0/2" in line][-1]
    assert grade.rstrip().endswith("500 tok")


def _failing(error: BaseException) -> str:
    """What a command's display leaves on a file (not a terminal) when the command stops with
    `error` after its stage began."""
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None)
    with contextlib.suppress(BaseException), RichProgress(console) as progress:
        progress.start("judge (j)", 8)
        progress.advance(CallCounters(calls=1))
        raise error
    return out.getvalue()


def test_a_user_error_leaves_its_one_line_alone_and_a_crash_keeps_the_bar() -> None:
    assert _failing(InputError("damaged row", path="run/run.sqlite")).strip() == ""
    assert "judge (j)" in _failing(RuntimeError("a bug"))
