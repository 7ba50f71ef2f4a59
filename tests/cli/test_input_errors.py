"""Bad benchmark input: one clear line naming file, line and field; exit 2; nothing written."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from checkbench.benchmarks import load_items
from checkbench.errors import InputError
from checkbench.schema import Item
from tests.conftest import EXAMPLE, run_cli

GOOD = json.loads(EXAMPLE.read_text().splitlines()[0])


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def _with(**changes: object) -> str:
    return json.dumps({**GOOD, **changes})


CASES = {
    "malformed json": (
        [
            '{"id": "a", ',
        ],
        1,
        None,
        "malformed JSON",
    ),
    "missing field": (
        [json.dumps({k: v for k, v in GOOD.items() if k != "messages"})],
        1,
        "messages",
        "Field required",
    ),
    "wrong type": ([_with(id="x1"), _with(id="x2", checklist="oops")], 2, "checklist", "list"),
    "bad nested type": (
        [_with(id="x1", messages=[{"role": "user", "content": 5}])],
        1,
        "messages.0.content",
        "string",
    ),
    "not ending with user": (
        [_with(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}])],
        1,
        "messages",
        "user turn",
    ),
    "weighted without weight": (
        [_with(checklist=[{"id": "c1", "text": "t"}])],
        1,
        "checklist.0.weight",
        "weight",
    ),
    "duplicate id": ([_with(), _with()], 2, "id", "duplicate"),
}


@pytest.mark.parametrize("case", CASES)
def test_load_error_names_line_and_field(tmp_path: Path, case: str) -> None:
    lines, line, field, text = CASES[case]
    path = _write(tmp_path / "bench.jsonl", lines)
    with pytest.raises(InputError) as info:
        load_items(path)
    assert info.value.line == line
    assert info.value.field == field
    assert text in str(info.value)
    assert str(path) in str(info.value)


def test_empty_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "bench.jsonl", [])
    with pytest.raises(InputError, match="empty"):
        load_items(path)


def test_cli_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path: Path) -> None:
    bench = _write(tmp_path / "bench.jsonl", [_with(id="ok"), _with(id="bad", rule="sometimes")])
    out = tmp_path / "run"
    result = run_cli("generate", str(bench), "--out", str(out))
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert f"{bench}:2: field 'rule'" in lines[0]
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_a_bad_record_read_after_good_ones_leaves_no_directory_behind(tmp_path: Path) -> None:
    """Records are stored as they are read: the good ones before a bad one are rolled back,
    and the store and the directories made for it are removed again."""
    bench = _write(tmp_path / "bench.jsonl", [_with(id=f"ok{n}") for n in range(3)] + ["{"])
    result = run_cli("generate", str(bench), "--out", str(tmp_path / "new" / "dirs" / "run"))
    assert result.returncode == 2
    assert f"{bench}:4: malformed JSON" in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bench.jsonl"]


def test_a_bad_record_leaves_an_existing_run_as_it_was(tmp_path: Path) -> None:
    from checkbench.benchmarks import iter_items
    from checkbench.evaluation.runs import store_items

    first = _write(tmp_path / "first.jsonl", [_with(id="ok0"), _with(id="ok1")])
    run = tmp_path / "run"
    store_items(iter_items(first), first, run).close()
    files = sorted(path.name for path in run.iterdir())
    with closing(sqlite3.connect(run / "run.sqlite")) as db:
        before = db.execute("SELECT * FROM items ORDER BY position").fetchall()
    bench = _write(
        tmp_path / "bench.jsonl", [_with(id="ok0"), _with(id="new"), _with(id="ok1", rule="x")]
    )
    result = run_cli("generate", str(bench), "--out", str(run))
    assert result.returncode == 2
    assert f"{bench}:3: field 'rule'" in result.stderr
    assert sorted(path.name for path in run.iterdir()) == files
    with closing(sqlite3.connect(run / "run.sqlite")) as db:
        assert db.execute("SELECT * FROM items ORDER BY position").fetchall() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "csv"], "unknown format 'csv'"),
        (["--model", "bogus:thing"], "unknown model 'bogus:thing'"),
    ],
)
def test_cli_unknown_format_or_model(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "run"
    result = run_cli("generate", str(EXAMPLE), "--out", str(out), *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert not out.exists()


def test_cli_missing_file(tmp_path: Path) -> None:
    result = run_cli("generate", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "run"))
    assert result.returncode == 2
    assert "nope.jsonl: file not found" in result.stderr


def test_error_without_a_file_names_just_the_field() -> None:
    assert str(InputError("too big", field="model")) == "field 'model': too big"
    assert str(InputError("too big", path="b.jsonl", line=3, field="id")) == (
        "b.jsonl:3: field 'id': too big"
    )


def test_cli_error_is_exactly_one_line(tmp_path: Path) -> None:
    """No blank line from a progress display that never showed anything."""
    result = run_cli("generate", str(EXAMPLE), "--out", str(tmp_path / "run"), "--model", "gpt4")
    assert result.returncode == 2
    assert result.stderr.startswith("error: field 'model': unknown model 'gpt4'")
    assert result.stderr.count("\n") == 1


def test_error_text_in_brackets_is_printed_literally(tmp_path: Path) -> None:
    bench = tmp_path / "run[bold].jsonl"
    result = run_cli("generate", str(bench), "--out", str(tmp_path / "run"))
    assert result.returncode == 2
    assert "run[bold].jsonl: file not found" in result.stderr


def test_a_json_list_of_items_loads_like_jsonl(tmp_path: Path) -> None:
    items = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
    listed = tmp_path / "bench.json"
    listed.write_text(json.dumps(items))
    assert [i.id for i in load_items(listed, "native")] == [i["id"] for i in items]


def test_written_files_get_ordinary_permissions(tmp_path: Path) -> None:
    from checkbench.jsonl import write_jsonl

    path = tmp_path / "out.jsonl"
    write_jsonl(path, [{"a": 1}])
    assert path.stat().st_mode & 0o644 == 0o644


@pytest.mark.parametrize(
    ("args", "option", "choices"),
    [
        (["leaderboard", "RUN", "--unscored", "maybe"], "--unscored", "zero, exclude"),
        (["judge", "RUN", "--mode", "fast"], "--mode", "text, logprob"),
        (
            ["ifrewardbench", "run", "FILE", "--paradigm", "all"],
            "--paradigm",
            "verification, pairwise, both",
        ),
    ],
)
def test_a_bad_choice_is_one_line_naming_the_option_and_its_choices(
    tmp_path: Path, args: list[str], option: str, choices: str
) -> None:
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {option}: unknown ") and f"(choose {choices})" in line
    assert "╭" not in result.stderr and "Usage:" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_other_usage_errors_are_one_line_too(tmp_path: Path) -> None:
    missing = run_cli("generate", str(EXAMPLE), cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.splitlines() == [
        "error: Missing option '--out' / '-o'; see `checkbench generate --help`"
    ]
    unknown = run_cli("convbench", "score", "RUN", "--judge", "local", cwd=tmp_path)
    assert unknown.returncode == 2
    [line] = unknown.stderr.splitlines()
    assert line.startswith("error: No such option: --judge")


def test_lines_validated_from_their_text_equal_lines_read_as_objects(tmp_path: Path) -> None:
    """JSON Lines records are validated from their text, a failing one read again as an
    object: either way an item is what json.loads and validation make of its line."""
    lines = [
        _with(id="a", meta={"k": 1}).replace('"id": "a"', '"id": "x", "id": "a"'),
        _with(id="b", meta={"big": 10**30, "f": 1e300, "text": "caf\u00e9 \U0001f600"}),
        _with(id="c", meta={"x": 1}).replace('{"x": 1}', '{"x": NaN}'),
        _with(id="d", reference="  spaced  "),
    ]
    bench = _write(tmp_path / "bench.jsonl", lines)
    read = [item.model_dump() for item in load_items(bench)]
    direct = [Item.model_validate(json.loads(line)).model_dump() for line in lines]
    assert [item["id"] for item in read] == ["a", "b", "c", "d"]
    assert repr(read) == repr(direct)  # repr: NaN != NaN
