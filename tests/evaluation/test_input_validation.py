"""Validation at the boundary: checklist rules in the data model (every loader), typed
generation hints, one reader for input files and one check for output paths. Every failure is
one InputError line naming the file, the line and the field."""

from __future__ import annotations

import asyncio
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from checkbench.benchmarks import load_items
from checkbench.convbench.rank_agreement import load_reference
from checkbench.errors import InputError
from checkbench.fbbench.dataset import load_fbbench
from checkbench.generation.requests import GenerationSettings, candidate_request
from checkbench.ifrewardbench.dataset import load_ifrewardbench
from checkbench.inputs import BOM, input_dir, output_dir, output_file
from checkbench.judges.human import judge_agreement, load_human_verdicts
from checkbench.scan.tree import load_taxonomy
from checkbench.schema import WEIGHT_TOLERANCE, Item, Response
from checkbench.store import RunStore
from tests.conftest import EXAMPLE, ROOT, run_cli

EXAMPLES = ROOT / "examples"
GOOD = json.loads(EXAMPLE.read_text().splitlines()[0])  # a weighted item with generation hints
FB_EC = json.loads((EXAMPLES / "fb-bench-mini.json").read_text())[0]  # an Error Correction one


def _error(call: Callable[[], object]) -> InputError:
    """The InputError `call` raises, checked to be a single line."""
    with pytest.raises(InputError) as info:
        call()
    assert "\n" not in str(info.value)
    return info.value


def _native(tmp_path: Path, **changes: Any) -> Path:
    """A native benchmark whose line 1 is good and line 2 is GOOD with `changes`."""
    path = tmp_path / "bench.jsonl"
    bad = {**GOOD, "id": "bad", **changes}
    path.write_text(f"{json.dumps(GOOD)}\n{json.dumps(bad)}\n")  # NaN/Infinity as JSON allows
    return path


def _checks(*weights: float | None) -> list[dict[str, Any]]:
    return [
        {"id": f"c{n}", "text": f"check {n}", **({} if w is None else {"weight": w})}
        for n, w in enumerate(weights, start=1)
    ]


# ---------------------------------------------------------------- weighted checklists
FINITE, INTEGER = "Input should be a finite number", "Input should be a valid integer"
AT_LEAST = "Input should be greater than or equal to"

WEIGHTS = {
    "sum below 1": ((0.3, 0.3), "checklist", "rule 'weighted' needs weights summing to 1, got 0.6"),
    "negative": ((1.2, -0.2), "checklist.1.weight", f"{AT_LEAST} 0"),
    "nan": ((math.nan, 1.0), "checklist.0.weight", FINITE),
    "infinity": ((0.5, math.inf), "checklist.1.weight", FINITE),
    "missing": ((1.0, None), "checklist.1.weight", "rule 'weighted' needs a weight on every check"),
    "no checks": ((), "checklist", "rule 'weighted' needs weights summing to 1, got 0"),
}


@pytest.mark.parametrize("case", WEIGHTS)
def test_native_weighted_checklists_follow_the_rule(tmp_path: Path, case: str) -> None:
    weights, field, message = WEIGHTS[case]
    path = _native(tmp_path, checklist=_checks(*weights))
    error = _error(lambda: load_items(path))
    assert str(error) == f"{path}:2: field '{field}': {message}"


@pytest.mark.parametrize(
    ("excess", "ok"), [(WEIGHT_TOLERANCE / 2, True), (WEIGHT_TOLERANCE * 3, False)]
)
def test_weights_may_miss_1_by_the_shared_tolerance(
    tmp_path: Path, excess: float, ok: bool
) -> None:
    path = _native(tmp_path, checklist=_checks(0.5, 0.5 + excess))
    if ok:
        assert [item.id for item in load_items(path)] == [GOOD["id"], "bad"]
    else:
        assert _error(lambda: load_items(path)).field == "checklist"


def test_zero_weights_are_allowed_and_other_rules_need_none(tmp_path: Path) -> None:
    zero = load_items(_native(tmp_path, checklist=_checks(0.0, 1.0)))[1]
    assert [c.weight for c in zero.checklist] == [0.0, 1.0]
    mean = load_items(_native(tmp_path, rule="mean", checklist=_checks(0.3, None)))[1]
    assert mean.rule == "mean"


def test_duplicate_check_ids_name_the_second(tmp_path: Path) -> None:
    checks = [{"id": "c1", "text": "a", "weight": 0.5}, {"id": "c1", "text": "b", "weight": 0.5}]
    error = _error(lambda: load_items(_native(tmp_path, checklist=checks)))
    unique = "check ids must be unique within an item"
    assert (error.line, error.field, error.message) == (2, "checklist.1.id", unique)


def _fb_file(tmp_path: Path, checklist: list[Any]) -> Path:
    path = tmp_path / "fb.json"
    path.write_text(json.dumps([FB_EC, {**FB_EC, "feedback": "Again?", "checklist": checklist}]))
    return path


def test_fbbench_uses_the_data_model_rule_with_the_same_message(tmp_path: Path) -> None:
    fb = _fb_file(tmp_path, [["a", 0.3], ["b", 0.3]])
    native = _native(tmp_path, checklist=_checks(0.3, 0.3))
    fb_error, native_error = _error(lambda: load_fbbench(fb)), _error(lambda: load_items(native))
    assert (fb_error.line, fb_error.field) == (2, "checklist")
    assert fb_error.message == native_error.message


def test_fbbench_infinite_weight_is_located_at_its_entry(tmp_path: Path) -> None:
    path = _fb_file(tmp_path, [["a", math.inf], ["b", 0.3]])
    error = _error(lambda: load_fbbench(path))
    assert str(error) == f"{path}:2: field 'checklist.0': {FINITE}"


def test_items_built_in_code_follow_the_rule_too() -> None:
    """Conv-to-Bench curation builds Items directly: the same validator refuses bad weights."""
    with pytest.raises(ValidationError) as info:
        Item(id="x", messages=GOOD["messages"], rule="weighted", checklist=_checks(0.7, 0.2))
    [problem] = info.value.errors()
    assert problem["loc"] == ("checklist",) and "got 0.9" in problem["msg"]


# ---------------------------------------------------------------- generation hints

HINTS = {
    "word temperature": ({"temperature": "hot"}, "temperature", "Input should be a valid number"),
    "word max_tokens": ({"max_tokens": "lots"}, "max_tokens", INTEGER),
    "a list": ([1, 2], "", 'must be an object, e.g. {"temperature": 0.7, "max_tokens": 512}'),
    "negative max_tokens": ({"max_tokens": -5}, "max_tokens", f"{AT_LEAST} 1"),
    "too hot": ({"temperature": 2.5}, "temperature", "Input should be less than or equal to 2"),
    "nan temperature": ({"temperature": math.nan}, "temperature", FINITE),
    "fractional seed": ({"seed": 1.5}, "seed", INTEGER),
    "boolean as number": ({"max_tokens": True}, "max_tokens", INTEGER),
    "unknown hint": (
        {"top_p": 0.9},
        "top_p",
        "unknown generation hint (known: temperature, max_tokens, seed, fit_context)",
    ),
}


@pytest.mark.parametrize("case", HINTS)
def test_bad_generation_hints_are_load_errors(tmp_path: Path, case: str) -> None:
    hints, key, message = HINTS[case]
    path = _native(tmp_path, meta={"generation": hints})
    field = "meta.generation" + (f".{key}" if key else "")
    assert str(_error(lambda: load_items(path))) == f"{path}:2: field '{field}': {message}"


class _NoContextBackend:
    """Just what candidate_request reads of a backend whose context length is unknown."""

    context_length = None


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (GenerationSettings(), (0.7, 64, 3)),
        (GenerationSettings(temperature=0.0, max_tokens=9, seed=1), (0.0, 9, 1)),
    ],
)
def test_generation_hints_reach_the_request_unless_overridden(
    settings: GenerationSettings, expected: tuple[float, int, int]
) -> None:
    item = Item.model_validate(
        {**GOOD, "meta": {"generation": {"temperature": 0.7, "max_tokens": 64, "seed": 3}}}
    )
    request = asyncio.run(candidate_request(item, settings, _NoContextBackend()))  # type: ignore[arg-type]
    assert (request.temperature, request.max_tokens, request.seed) == expected


@pytest.mark.parametrize(
    "changes",
    [{"checklist": _checks(math.nan, 1.0)}, {"meta": {"generation": {"max_tokens": "lots"}}}],
)
def test_cli_stops_a_bad_native_file_before_any_run_dir(tmp_path: Path, changes: Any) -> None:
    bench, out = _native(tmp_path, **changes), tmp_path / "run"
    result = run_cli("generate", str(bench), "--out", str(out))
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.splitlines()
    assert f"{bench}:2: field '" in line and "Traceback" not in result.stderr
    assert not out.exists()


# ---------------------------------------------------------------- reading input files

READERS: dict[str, tuple[Callable[[Path], object], Path]] = {
    "native": (load_items, EXAMPLE),
    "scan queries": (load_items, EXAMPLES / "queries-mini.jsonl"),
    "fb-bench": (load_fbbench, EXAMPLES / "fb-bench-mini.json"),
    "if-rewardbench": (load_ifrewardbench, EXAMPLES / "ifrewardbench-mini.json"),
    "taxonomy": (load_taxonomy, EXAMPLES / "taxonomy-mini.json"),
    "reference": (load_reference, EXAMPLES / "reference-mini.csv"),
    "human labels": (lambda path: judge_agreement(path.parent / "no-run", path), EXAMPLE),
}


def _file(tmp: Path) -> Path:
    (tmp / "f").write_text("x")
    return tmp / "f"


def _dir(tmp: Path) -> Path:
    (tmp / "d").mkdir()
    return tmp / "d"


def _fifo(tmp: Path) -> Path:
    os.mkfifo(tmp / "p")
    return tmp / "p"


def _looped(tmp: Path) -> Path:
    (tmp / "l").symlink_to(tmp / "m")
    (tmp / "m").symlink_to(tmp / "l")
    return tmp / "l"


def _dangling(tmp: Path) -> Path:
    (tmp / "s").symlink_to(tmp / "gone")
    return tmp / "s"


NOT_REGULAR = "not a regular file (a pipe, socket or device)"
BAD_PATHS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "missing": (lambda tmp: tmp / "gone", "file not found"),
    "directory": (_dir, "is a directory, expected a file"),
    "symlink loop": (_looped, "symlink loop"),
    "broken symlink": (_dangling, "broken symlink"),
    "fifo": (_fifo, NOT_REGULAR),
    "under a file": (
        lambda tmp: _file(tmp) / "in",
        "file not found (a parent in the path is a file)",
    ),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("case", BAD_PATHS)
def test_every_reader_names_what_is_wrong_with_the_path(
    tmp_path: Path, reader: str, case: str
) -> None:
    make, message = BAD_PATHS[case]
    path = make(tmp_path)
    assert str(_error(lambda: READERS[reader][0](path))) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: tmp / "gone", "directory not found"),
        (_file, "not a directory"),
        (_looped, "symlink loop"),
        (lambda tmp: _file(tmp) / "d", "directory not found (a parent in the path is a file)"),
    ],
)
def test_input_directories(tmp_path: Path, make: Callable[[Path], Path], message: str) -> None:
    assert input_dir(tmp_path) == tmp_path
    path = make(tmp_path)
    assert str(_error(lambda: input_dir(path))) == f"{path}: {message}"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
@pytest.mark.parametrize("reader", READERS)
def test_an_unreadable_file(tmp_path: Path, reader: str) -> None:
    path = tmp_path / "input"
    path.write_bytes(READERS[reader][1].read_bytes())
    path.chmod(0)
    assert str(_error(lambda: READERS[reader][0](path))) == f"{path}: permission denied"


FILE_READERS = {name: spec for name, spec in READERS.items() if name != "human labels"}


@pytest.mark.parametrize("reader", FILE_READERS)
def test_a_byte_order_mark_is_stripped(tmp_path: Path, reader: str) -> None:
    load, example = FILE_READERS[reader]
    plain, marked = tmp_path / "plain" / example.name, tmp_path / "bom" / example.name
    for path, prefix in ((plain, b""), (marked, BOM)):
        path.parent.mkdir()
        path.write_bytes(prefix + example.read_bytes())
    assert load(marked) == load(plain)


def _corrupt(example: Path, at: Path, *, bom: bool) -> int:
    """Write `example` to `at` with a byte that is not UTF-8 starting its second line; the
    byte's offset in the file."""
    data = (BOM if bom else b"") + example.read_bytes()
    offset = data.index(b"\n") + 1
    at.write_bytes(data[:offset] + b"\xff" + data[offset:])
    return offset


@pytest.mark.parametrize("bom", [False, True])
@pytest.mark.parametrize("reader", FILE_READERS)
def test_bytes_that_are_not_utf8_are_located(tmp_path: Path, reader: str, bom: bool) -> None:
    load, example = FILE_READERS[reader]
    path = tmp_path / example.name
    offset = _corrupt(example, path, bom=bom)
    assert str(_error(lambda: load(path))) == f"{path}:2: not valid UTF-8 (byte {offset})"


def test_human_labels_with_a_bom_or_a_bad_byte(tmp_path: Path) -> None:
    label = {"item_id": GOOD["id"], "model": "m", "check_id": "c1", "passed": True}
    path = tmp_path / "human.jsonl"
    with RunStore(tmp_path / "run") as store:
        store.add_items(load_items(EXAMPLE))
        store.put_response(Response(item_id=GOOD["id"], model="m", content="$8"))
        path.write_bytes(BOM + json.dumps(label).encode() + b"\n")
        [verdict] = load_human_verdicts(path, store)
        assert (verdict.check_id, verdict.passed) == ("c1", True)
        first = json.dumps(label).encode() + b"\n"
        path.write_bytes(first + b'{"item_id": "\xe9"}\n')
        error = _error(lambda: load_human_verdicts(path, store))
    assert str(error) == f"{path}:2: not valid UTF-8 (byte {len(first) + 13})"


def test_a_bom_only_file_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "bench.jsonl"
    path.write_bytes(BOM + b"\n")
    assert str(_error(lambda: load_items(path))) == f"{path}: file is empty"


def test_a_csv_header_without_model_and_score_says_what_it_found(tmp_path: Path) -> None:
    path = tmp_path / "ref.csv"
    path.write_bytes(BOM + b"name,points\na,1\nb,2\n")
    error = _error(lambda: load_reference(path))
    assert str(error) == (
        f"{path}:1: a CSV leaderboard needs a header with model and score (found 'name', 'points')"
    )


# ---------------------------------------------------------------- output paths


def _tree(root: Path) -> list[Path]:
    return sorted(root.rglob("*"))


def test_good_output_paths_pass_and_nothing_is_created(tmp_path: Path) -> None:
    (tmp_path / "old.jsonl").write_text("{}\n")
    before = _tree(tmp_path)
    assert output_file(tmp_path / "a" / "b" / "out.jsonl") == tmp_path / "a" / "b" / "out.jsonl"
    assert output_file(tmp_path / "old.jsonl") == tmp_path / "old.jsonl"
    assert output_dir(tmp_path / "new" / "run") == tmp_path / "new" / "run"
    assert output_dir(tmp_path) == tmp_path
    assert _tree(tmp_path) == before


UNDER_A_FILE = "cannot create it: {tmp}/f is a file, not a directory"
BAD_OUTPUTS: dict[str, tuple[Callable[[Path], Path], str, str]] = {
    # case: (make the path, message as an output file, as an output dir; "" = accepted)
    "a regular file": (_file, "", "exists and is not a directory"),
    "a directory": (_dir, "is a directory, expected a file to write", ""),
    "under a file": (lambda tmp: _file(tmp) / "sub" / "out", UNDER_A_FILE, UNDER_A_FILE),
    "a fifo": (_fifo, NOT_REGULAR, "exists and is not a directory"),
    "a symlink loop": (_looped, "symlink loop", "symlink loop"),
    "a broken symlink": (_dangling, "broken symlink", "broken symlink"),
}


@pytest.mark.parametrize("case", BAD_OUTPUTS)
@pytest.mark.parametrize("check", [output_file, output_dir], ids=["file", "dir"])
def test_bad_output_paths_are_one_line_errors(
    tmp_path: Path, case: str, check: Callable[[Path], Path]
) -> None:
    make, as_file, as_dir = BAD_OUTPUTS[case]
    path = make(tmp_path)
    message = (as_file if check is output_file else as_dir).format(tmp=tmp_path)
    before = _tree(tmp_path)
    if not message:
        assert check(path) == path
    else:
        assert str(_error(lambda: check(path))) == f"{path}: {message}"
    assert _tree(tmp_path) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes whatever the mode")
def test_unwritable_output_places(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    error = _error(lambda: output_file(locked / "out.jsonl"))
    assert error.message == f"cannot create it: {locked} is not writable"
    assert _error(lambda: output_dir(locked)).message == "directory is not writable"


def test_a_vocabulary_file_is_read_through_the_one_input_opener(tmp_path: Path) -> None:
    from checkbench.convbench.vocab import load_vocabulary

    bad = tmp_path / "vocab.txt"
    bad.write_bytes(b"sort\n\xff\xfe bad\n")
    with pytest.raises(InputError, match=r"vocab.txt:2: not valid UTF-8"):
        load_vocabulary(str(bad))
    with pytest.raises(InputError, match="is a directory"):
        load_vocabulary(str(tmp_path))


def test_models_and_calibration_files_are_read_through_the_one_input_opener(
    tmp_path: Path,
) -> None:
    from checkbench.judges.calibration_artefact import load_calibration
    from checkbench.llm.models_file import load_models_file
    from checkbench.store import RunStore

    bad = tmp_path / "bad.bin"
    bad.write_bytes(b'[models.a]\nmodel = "\xff"\n')
    with pytest.raises(InputError, match=r"bad.bin:2: not valid UTF-8"):
        load_models_file(bad)
    with pytest.raises(InputError, match="is a directory"):
        load_models_file(tmp_path)
    with RunStore(tmp_path / "run") as store, pytest.raises(InputError, match="not valid UTF-8"):
        load_calibration(store, str(bad))
