"""`checkbench agreement --reference-judge/--reference-file`, `checkbench calibrate`, and
`leaderboard`/`score --calibration`, run as a user runs them, on verdict sets worked out by hand
(tests/judges/test_reference.py, tests/judges/test_calibration.py) and on the published FB-Bench
files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkbench.judges.calibration import REPORT_RECORD
from checkbench.judges.reference import CALIBRATION_RECORD, REFERENCE_RECORD
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.store import RunStore
from tests.conftest import run_cli
from tests.judges.fbbench_sample import GPT4O, PUBLISHED
from tests.judges.test_reference import FLIPS, ITEMS, RESPONSES, _verdicts

KINDS = (REFERENCE_RECORD, CALIBRATION_RECORD, REPORT_RECORD)


def _agreement_run(tmp_path: Path, unscored: bool = False) -> Path:
    """The hand-worked run: judge "cheap" differs from reference "ref" on four checks (A 87.5,
    B 62.5, C 25 against 100, 50, 0); `unscored` leaves cheap's A/i1/c1 verdict unscored."""
    judge = _verdicts("cheap", FLIPS)
    if unscored:
        judge[0] = judge[0].model_copy(update={"passed": None})
    with RunStore(tmp_path / "run") as store:
        store.add_items(ITEMS)
        for response in RESPONSES:
            store.put_response(response)
        store.put_verdicts(judge + _verdicts("ref"))
    return tmp_path / "run"


def _records(run_dir: Path) -> dict[str, dict]:
    with RunStore.existing(run_dir) as store:
        return {kind: store.records(kind) for kind in KINDS}


def _json(*args: str) -> object:
    result = run_cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_agreement_with_a_reference_judge_prints_the_worked_figures(tmp_path: Path) -> None:
    run_dir = _agreement_run(tmp_path)
    result = run_cli("agreement", str(run_dir), "--reference-judge", "ref")
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    # 20 of 24 checks agree; kappa 2/3; sensitivity 11/12, specificity 9/12.
    assert "agreement (24 checks, 4 items; the reference passes 0.500): agreement 0.833 [" in out
    assert "kappa 0.667 [" in out and "sensitivity 0.917 [" in out
    assert "balanced accuracy 0.833 [" in out  # (11/12 + 9/12) / 2
    # Specificity and sensitivity stand on 12 checks each; the shift on C's 4 items: marked.
    assert "over fewer than 10 units" in out and "points (C)" in out
    assert "specificity 0.750 [" in out and "unscored 0 by the judge" in out
    # The judge keeps the order (rho = tau = 1); C moves most, by 25 points.
    assert "Spearman 1.000 [" in out and "Kendall tau_b 1.000 [" in out
    assert "largest shift 25.00 [" in out and "points (C)" in out
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines() if line.split()}
    assert rows["A"][:5] == ["A", "4", "100.00", "87.50", "-12.50"]
    assert rows["C"][:5] == ["C", "4", "0.00", "25.00", "+25.00"]
    assert rows["B"][-3:] == ["2", "->", "2"]
    # The intervals are printed in the notation of the other tables, under each score.
    assert "[62.5, 100.0]" in result.stdout
    assert _records(run_dir)[REFERENCE_RECORD]["cheap"].reference == "ref"


def test_agreement_json_counts_unscored_and_follows_the_policy(tmp_path: Path) -> None:
    run_dir = _agreement_run(tmp_path, unscored=True)
    [zero] = _json("agreement", str(run_dir), "--reference-judge", "ref")
    assert (zero["judge"], zero["reference"]) == ("cheap", "ref")
    assert zero["agreement"]["unscored"] == 1 and zero["ranking"]["judge_unscored"] == 1
    assert zero["agreement"]["agreement"]["value"] == pytest.approx(19 / 24)
    a = next(m for m in zero["ranking"]["models"] if m["model"] == "A")
    assert a["judge"]["value"] == pytest.approx(75.0)  # i1 scores 0 (unscored), i2..i4 score 1
    [excluded] = _json(
        "agreement", str(run_dir), "--reference-judge", "ref", "--unscored", "exclude"
    )
    a = next(m for m in excluded["ranking"]["models"] if m["model"] == "A")
    assert excluded["ranking"]["policy"] == "exclude" and a["judge"]["value"] == pytest.approx(100)
    table = run_cli("agreement", str(run_dir), "--reference-judge", "ref")
    assert "unscored 1 by the judge" in " ".join(table.stdout.split())


def test_a_reference_file_is_measured_against_every_judge(tmp_path: Path) -> None:
    run_dir = _agreement_run(tmp_path)
    path = tmp_path / "gold.jsonl"
    fields = {"item_id", "model", "check_id", "passed"}
    path.write_text(
        "".join(json.dumps(v.model_dump(include=fields)) + "\n" for v in _verdicts("x"))
    )
    results = _json("agreement", str(run_dir), "--reference-file", str(path))
    by_judge = {r["judge"]: r for r in results}
    assert set(by_judge) == {"cheap", "ref"}  # no reference judge in the run: both measured
    assert {r["reference"] for r in results} == {"file:gold.jsonl"}
    assert by_judge["ref"]["agreement"]["agreement"]["value"] == 1.0
    assert by_judge["cheap"]["agreement"]["kappa"]["value"] == pytest.approx(2 / 3)
    [only] = _json("agreement", str(run_dir), "--reference-file", str(path), "--judge-id", "cheap")
    assert only["judge"] == "cheap"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give --human FILE, --reference-judge ID or --reference-file FILE"),
        (("--reference-judge", "gpt-9"), "no verdicts by judge 'gpt-9' (judges: cheap, ref)"),
        (("--reference-judge", "ref", "--judge-id", "nope"), "no verdicts by judge 'nope'"),
        (("--reference-judge", "ref", "--judge-id", "ref"), "is the reference itself"),
        (("--reference-file", "missing.jsonl"), "missing.jsonl"),
    ],
)
def test_bad_agreement_input_is_one_line_and_exit_2(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    run_dir = _agreement_run(tmp_path)
    result = run_cli("agreement", str(run_dir), *args)
    [line] = result.stderr.strip().splitlines()
    assert result.returncode == 2 and message in line and not result.stdout
    assert _records(run_dir) == {kind: {} for kind in KINDS}


# -- calibration ---------------------------------------------------------------------------------

GRID = (0.05, 0.1, 0.15, 0.2, 0.3, 0.35, 0.4, 0.45)
"""P(yes) values of the log-prob judge: all below 0.5, so its own verdicts all say no."""


def _calibration_run(
    tmp_path: Path, n: int = 24, label=lambda i, p: p >= 0.25
) -> tuple[Path, dict[str, float]]:
    """FB-Bench-shaped items (scenario, task); judge "cheap" gives P(yes) on the grid, the
    reference "ref" passes a check when `label(item index, P(yes))` (default: P(yes) >= 0.25).
    Returns the run and each model's reference score (0-100), counted here."""
    store = RunStore(tmp_path / "run")
    passes: dict[str, list[float]] = {}
    verdicts = []
    for i in range(n):
        item = Item(
            id=f"q{i:02d}",
            messages=[Message(role="user", content=f"question {i}")],
            checklist=[Check(id="c1", text="first"), Check(id="c2", text="second")],
            tags={"scenario": ["EC" if i % 2 else "RM"], "task": ["math"]},
        )
        store.add_items([item])
        for m, model in enumerate(("m1", "m2")):
            store.put_response(Response(item_id=item.id, model=model, content="answer"))
            for c, check in enumerate(item.checklist):
                p = GRID[(i + 2 * m + c) % len(GRID)]
                key = {"item_id": item.id, "model": model, "check_id": check.id}
                verdicts.append(Verdict(judge="cheap", passed=False, p_yes=p, **key))
                verdicts.append(Verdict(judge="ref", passed=label(i, p), **key))
                passes.setdefault(model, []).append(float(label(i, p)))
    store.put_verdicts(verdicts)
    store.close()
    return tmp_path / "run", {m: 100 * sum(v) / len(v) for m, v in passes.items()}


def test_calibrate_reports_held_out_items_only_and_applies(tmp_path: Path) -> None:
    run_dir, reference_scores = _calibration_run(tmp_path)
    export = tmp_path / "calibration.json"
    args = ("calibrate", str(run_dir), "--judge-id", "cheap", "--reference-judge", "ref")
    result = run_cli(*args, "--method", "isotonic", "--apply", "--export", str(export))
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    artefact = json.loads(export.read_text())
    train, test = artefact["train_items"], artefact["test_items"]
    assert artefact["format"] == "checkbench.calibration" and artefact["judge"] == "cheap"
    assert not set(train) & set(test) and len(train) + len(test) == 24
    assert f"train: {len(train)} items, {4 * len(train)} checks" in out
    assert f"test (held out): {len(test)} items, {4 * len(test)} checks" in out
    assert "unusable: 0 verdicts" in out and "Held-out items only" in out
    assert "cheap#calibrated" in out
    stored = _records(run_dir)
    assert set(stored[CALIBRATION_RECORD]) == {"cheap#calibrated"}
    report = stored[REPORT_RECORD]["cheap#calibrated"].model_dump(mode="json")
    # Before: every check fails; after: the isotonic step at 0.2..0.3 gets every check right.
    assert report["before"]["agreement"]["sensitivity"]["value"] == 0.0
    assert report["after"]["agreement"]["agreement"]["value"] == 1.0
    assert report["after"]["agreement"]["n"] == 4 * len(test)
    assert report["after"]["excluded_items"] == len(train)
    # The stored calibrated verdicts grade every item like the reference.
    board = _json("leaderboard", str(run_dir), "--calibration", "cheap#calibrated")
    assert board["judge"] == "cheap#calibrated"
    scores = {row["model"]: row["overall"] for row in board["rows"]}
    assert scores == pytest.approx(reference_scores, abs=0.01)
    own = _json("leaderboard", str(run_dir), "--judge-id", "cheap")
    assert {row["overall"] for row in own["rows"]} == {0.0}
    from_file = _json("convbench", "score", str(run_dir), "--calibration", str(export))
    assert from_file["judge"] == "cheap#calibrated"
    assert {m["model"]: m["score"] for m in from_file["models"]} == pytest.approx(
        reference_scores, abs=0.01
    )


def test_calibrate_json_and_its_options(tmp_path: Path) -> None:
    run_dir, _ = _calibration_run(tmp_path)
    report = _json(
        "calibrate", str(run_dir), "--judge-id", "cheap", "--reference-judge", "ref",
        "--by", "tag:scenario", "--min-group", "5", "--test-fraction", "0.25",
        "--seed", "3", "--decision", "rate", "--name", "grouped",
    )  # fmt: skip
    assert report["name"] == "grouped" and report["by"] == "tag:scenario"
    assert set(report["groups"]) == {"EC", "RM"} and report["seed"] == 3
    assert report["test"]["items"] == 6 and report["train"]["items"] == 18
    assert report["decision"] == "rate" and 0 < report["threshold"] < 1
    # Measured afterwards, the calibrated judge is measured on its held-out items only.
    run_cli("leaderboard", str(run_dir), "--calibration", "grouped", "--json")
    [measured] = _json(
        "agreement", str(run_dir), "--reference-judge", "ref", "--judge-id", "grouped"
    )
    assert measured["excluded_items"] == 18
    assert measured["agreement"] == report["after"]["agreement"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--judge-id", "nope", "--reference-judge", "ref"), "no verdicts by judge 'nope'"),
        (("--judge-id", "cheap"), "name a reference"),
        (("--judge-id", "cheap", "--reference-judge", "ref", "--by", "colour"), "not 'colour'"),
        (("--judge-id", "cheap", "--reference-judge", "ref", "--by", "tag:x"), "facet 'x'"),
        (("--judge-id", "ref", "--reference-judge", "ref"), "no P(yes)"),
        (("--judge-id", "cheap", "--reference-judge", "ref", "--method", "svm"), "--method"),
    ],
)
def test_bad_calibrate_input_is_one_line_and_exit_2(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    run_dir, _ = _calibration_run(tmp_path)
    export = tmp_path / "out.json"
    result = run_cli("calibrate", str(run_dir), *args, "--apply", "--export", str(export))
    [line] = result.stderr.strip().splitlines()
    assert result.returncode == 2 and message in line and not result.stdout
    assert _records(run_dir) == {kind: {} for kind in KINDS} and not export.exists()
    with RunStore.existing(run_dir) as store:
        assert store.judges() == ["cheap", "ref"]


def test_a_constant_calibrated_judge_is_warned_about_wherever_it_is_used(tmp_path: Path) -> None:
    # The reference passes 9 checks in 10 whatever P(yes) says: the calibration says yes to
    # everything, which agreement alone would read as a gain.
    run_dir, _ = _calibration_run(tmp_path, 40, lambda i, p: i % 10 != 0)
    args = ("calibrate", str(run_dir), "--judge-id", "cheap", "--reference-judge", "ref")
    result = run_cli(*args, "--by", "tag:task", "--min-group", "1000")
    assert result.returncode == 0, result.stderr
    [warning] = [line for line in result.stdout.splitlines() if "WARNING" in line]
    assert warning.startswith("WARNING: calibrated judge cheap#calibrated is not informative")
    assert "kappa 0.000 <= 0" in warning and "base rate" in warning
    assert "groups too small to fit, using the whole-run curve: math: " in result.stdout
    assert "balanced accuracy" in result.stdout and "reference passes (base rate)" in result.stdout
    for command in (("leaderboard",), ("convbench", "score")):
        used = run_cli(*command, str(run_dir), "--calibration", "cheap#calibrated", "--json")
        assert used.returncode == 0, used.stderr
        [line] = used.stderr.strip().splitlines()
        assert line == warning
        json.loads(used.stdout)  # the warning stays out of the JSON
    fine, _ = _calibration_run(tmp_path / "fine")
    run_cli(*args[:1], str(fine), *args[2:])
    quiet = run_cli("leaderboard", str(fine), "--calibration", "cheap#calibrated", "--json")
    assert quiet.returncode == 0 and "WARNING" not in quiet.stderr


def test_a_bad_calibration_for_the_leaderboard_is_one_line(tmp_path: Path) -> None:
    run_dir, _ = _calibration_run(tmp_path)
    result = run_cli("leaderboard", str(run_dir), "--calibration", "none-such")
    [line] = result.stderr.strip().splitlines()
    assert result.returncode == 2 and "no calibration 'none-such'" in line
    both = run_cli("convbench", "score", str(run_dir), "--calibration", "x", "--judge-id", "cheap")
    assert both.returncode == 2 and "leave out --judge-id" in both.stderr


# -- the published FB-Bench files ------------------------------------------------------------------


@pytest.mark.skipif(not PUBLISHED.is_dir(), reason="shared FB-Bench data absent")
def test_published_verdicts_against_a_judge_that_fails_one_model(tmp_path: Path) -> None:
    """A judge that copies GPT-4o but fails every check of one model: that model drops to 0
    and moves most; the others keep GPT-4o's scores, the published records' own mean."""
    run_dir = tmp_path / "published"
    imported = run_cli("import", "fb-bench-judgments", str(PUBLISHED), "--run", str(run_dir))
    assert imported.returncode == 0, imported.stderr
    with RunStore.existing(run_dir) as store:
        gold = store.verdicts(GPT4O)
        victim = sorted({v.model for v in gold})[0]
        store.put_verdicts(
            v.model_copy(
                update={"judge": "harsh", "passed": False if v.model == victim else v.passed}
            )
            for v in gold
        )
    [result] = _json("agreement", str(run_dir), "--reference-judge", GPT4O)
    published: dict[str, list[float]] = {}
    for path in sorted(PUBLISHED.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            published.setdefault(record["infer_model"], []).append(record["score"])
    models = {m["model"]: m for m in result["ranking"]["models"]}
    assert set(models) == set(published)
    for model, m in models.items():
        mean = 100 * sum(published[model]) / len(published[model])
        assert m["reference"]["value"] == pytest.approx(mean, abs=0.05)
        expected = 0.0 if model == victim else m["reference"]["value"]
        assert m["judge"]["value"] == pytest.approx(expected)
    assert result["ranking"]["largest_shift_model"] == victim
    victim_checks = sum(v.model == victim and v.passed is not None for v in gold)
    passed = sum(v.model == victim and bool(v.passed) for v in gold)
    a = result["agreement"]
    assert a["n"] == sum(v.passed is not None for v in gold)
    assert a["agreement"]["value"] == pytest.approx(1 - passed / a["n"])
    assert victim_checks > passed > 0
