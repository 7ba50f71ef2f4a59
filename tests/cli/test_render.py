"""Terminal tables stay readable on an 80-column terminal."""

from __future__ import annotations

from pathlib import Path

from typer._click import Context
from typer.core import TyperGroup
from typer.main import get_command
from typer.testing import CliRunner

from checkbench.benchmarks import load_items
from checkbench.console.render import stage_line
from checkbench.schema import Response, Verdict
from checkbench.steps.stage import StageSummary
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, Reply
from tests.conftest import ROOT, run_cli

EXAMPLES = ROOT / "examples"

LONG_MODEL = "local:SmolLM2-135M-Instruct.Q4_1"


def _lines_at_80(*args: str) -> list[str]:
    result = run_cli(*args, env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in result.stdout
    return lines


def test_meta_tables_keep_intervals_whole_at_80_columns() -> None:
    lines = _lines_at_80("meta", str(EXAMPLES / "ifrewardbench-mini.json"))
    assert any("[-0.25, 1.00]" in line for line in lines)


def test_human_agreement_table_fits_80_columns(tmp_path: Path) -> None:
    """Two judges with long names against the example human verdicts."""
    judges = [LONG_MODEL, f"{LONG_MODEL}#logprob"]
    with RunStore(tmp_path / "run") as store:
        items = load_items(EXAMPLES / "feedback-mini.jsonl")
        store.add_items(items)
        for item in items:
            store.put_response(Response(item_id=item.id, model=LONG_MODEL, content="answer"))
            store.put_verdicts(
                Verdict(item_id=item.id, model=LONG_MODEL, judge=judge, check_id=c.id, passed=True)
                for judge in judges
                for c in item.checklist
            )
    lines = _lines_at_80(
        "agreement", str(tmp_path / "run"), "--human", str(EXAMPLES / "human-mini.jsonl")
    )
    for judge in judges:  # each name whole on a line of its own, its figures under it
        at = lines.index(judge)
        assert lines[at + 1].split()[:2] == ["17", "0.235"]
    counts = " ".join(" ".join(line.split()) for line in lines)  # unscored .. only judge
    assert "0 1" in counts and any(line.split() == ["0", "0"] for line in lines)
    assert "(a constant judge)" in "\n".join(lines)  # every check passed: kappa says why


def test_stage_line_fits_80_columns_and_names_cache_hits_only_when_any() -> None:
    counted = "steps in all (8 extractions, one per query; 2 insertions and refinements)"
    fresh = StageSummary("scan build", 10, 0, 37, 0, 2, 73.3, counted=counted)
    assert stage_line(fresh) == (
        f"[bold]scan build[/]: 10 {counted}, 0 already done, 37 model calls, 0 failed, "
        "[yellow]2 unusable[/], 73.3s"
    )
    dead = StageSummary("generate", 8, 0, 8, 0, 8, 1.0, failed_calls=8)
    assert "[red]8 failed[/], 1.0s" in stage_line(dead)  # failed calls are not unusable too
    rerun = StageSummary("generate", 8, 2, 6, 6, 0, 0.4)
    assert "6 cached, 0 failed" in stage_line(rerun)


def test_generate_says_why_answers_failed(tmp_path: Path) -> None:
    with OpenAIServer(Reply(status=401, body={"error": "bad key"})) as server:
        result = run_cli(
            "generate", str(EXAMPLES / "feedback-mini.jsonl"), "--out", str(tmp_path / "run"),
            "--model", "openai:stub", "--base-url", server.base_url,
        )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "every attempt failed in: generate" in result.stderr
    reason = next(line for line in result.stdout.splitlines() if line.startswith("8 failed:"))
    assert "HTTP 401" in reason and "bad key" in reason
    assert (tmp_path / "run" / "run.sqlite").exists()


def _command_paths(group: TyperGroup, ctx: Context, path: tuple[str, ...] = ()) -> list:
    """Every command of the CLI, as the words that name it."""
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, TyperGroup):
            found += _command_paths(command, Context(command, parent=ctx), (*path, name))
        else:
            found.append((*path, name))
    return found


def test_help_lists_choices_and_shows_no_placeholder_for_flags() -> None:
    from checkbench.cli import app, commands  # noqa: F401  (registers the commands)

    root = get_command(app)
    assert isinstance(root, TyperGroup)
    paths = _command_paths(root, Context(root))
    assert ("scan", "navigate") in paths and ("fbbench", "filter") in paths
    runner = CliRunner()
    for path in [(), *paths]:
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (path, result.output)
        assert "--help" in result.output and "<bool>" not in result.output, path
    board = runner.invoke(app, ["leaderboard", "--help"], env={"COLUMNS": "200"}).output
    assert "<zero|exclude>" in board and "--judge-id" in board
    assert "<text|logprob>" in runner.invoke(app, ["judge", "--help"]).output


def test_help_reads_one_way_in_the_order_a_user_meets_the_commands() -> None:
    """No `{bench}` or `<list[str]>` placeholder, no default written as `(default ...)`, each
    command's line in its group's list unbroken; the root lists run, generate, judge first."""
    from checkbench.cli import COMMAND_ORDER, app, commands  # noqa: F401

    root = get_command(app)
    assert isinstance(root, TyperGroup)
    runner = CliRunner()
    for path in [(), *_command_paths(root, Context(root))]:
        shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).output
        for bad in ("{", "<list[", "<path>", "<str>", "(default"):
            assert bad not in shown, (path, bad)
    listed = runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    panel = listed.split("Commands")[1].splitlines()[1:]
    names = [line.split()[1] for line in panel if line.startswith("│ ") and line[2] != " "]
    assert names[: len(COMMAND_ORDER)] == list(COMMAND_ORDER)
    assert names[len(COMMAND_ORDER) :] == ["fbbench", "convbench", "ifrewardbench", "scan"]
    judge = next(line for line in listed.splitlines() if line.startswith("│ judge "))
    assert "every call it made failed." in judge  # the whole first paragraph on one line
    generate = runner.invoke(app, ["generate", "--help"], env={"COLUMNS": "200"}).output
    assert "[OPTIONS] BENCH" in generate
    assert "[default: 600]" in generate and "[default: local]" in generate


def test_version_is_the_installed_one() -> None:
    from importlib.metadata import version

    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"checkbench {version('checkbench')}"


def test_help_of_the_package_is_its_guide_not_pydantic_internals() -> None:
    import pydoc

    import checkbench

    shown = pydoc.render_doc(checkbench, renderer=pydoc.plaintext)
    assert "checklist-grounded evaluation" in shown and "checkbench.api" in shown
    assert "pydantic" not in shown.replace("returning pydantic models", "")
    assert checkbench.Item.__name__ == "Item"  # the data model is still re-exported


def test_option_help_shows_square_brackets_whole() -> None:
    """Help text is rich markup: `[ray]` would vanish unless escaped."""
    from checkbench.cli import app, commands  # noqa: F401  (registers the commands)

    shown = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    assert "pip install 'checkbench[ray]'" in shown
