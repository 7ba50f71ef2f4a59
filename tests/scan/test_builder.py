"""TaxBuilder: scripted decisions (malformed answers re-asked, invalid decisions rejected and
recorded, never applied), replay from the run store, and an end-to-end build on the embedded
model that a rerun finishes without a single new call."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.scan.builder import (
    STEP_KIND,
    TAGS_KIND,
    Decision,
    Tag,
    TaxBuilderSettings,
    TaxBuildResult,
    apply_decision,
    build_taxonomy,
)
from checkbench.scan.domains import DOMAINS
from checkbench.scan.paths import TaxonomyError
from checkbench.scan.tree import Node, Taxonomy, load_taxonomy
from checkbench.schema import Item, Message
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, Reply, completion
from tests.conftest import run_cli
from tests.scan.scan_stub import answer, run_on_stub

SEED = Taxonomy(
    name="seed",
    domains=[
        Node(
            name="coding",
            description="Programming.",
            children=[
                Node(name="debugging", description="Fixing bugs."),
                Node(name="testing", description="Writing tests."),
            ],
        )
    ],
)
QUERY = Item(id="q1", messages=[Message(role="user", content="Write pytest tests for my parser.")])
SETTINGS = TaxBuilderSettings(max_tags=1, reasks=2)
MERGE_INTO_ITSELF = {"action": "merge", "node": "testing", "into": "testing"}


def _build(server: OpenAIServer, run_dir: Path) -> TaxBuildResult:
    with RunStore(run_dir) as store:
        return run_on_stub(
            server, lambda b: build_taxonomy(store, b, [QUERY], seed=SEED, settings=SETTINGS)
        )


def _steps(run_dir: Path) -> list[dict]:
    with RunStore(run_dir) as store:
        return list(store.records(STEP_KIND).values())


def test_malformed_answers_are_reasked_and_an_invalid_refinement_is_recorded_not_applied(
    tmp_path: Path,
) -> None:
    script = [
        Reply(body=completion("no json at all")),
        answer({"tags": [{"name": "unit/tests", "description": "slash in the name"}]}),
        answer({"tags": [{"name": "Unit  Tests", "description": "Writing unit tests."}]}),
        answer({"reason": "r", "choice": "cooking"}),  # not an option: re-asked
        answer({"reason": "r", "choice": "coding"}),
        answer({"reason": "r", "choice": "testing"}),
        answer({"reason": "r", "choice": "add here"}),
        answer({"reason": "same", "decision": MERGE_INTO_ITSELF}),
    ]  # fmt: skip
    with OpenAIServer(Reply(body=completion("unexpected")), script=script) as server:
        result = _build(server, tmp_path)
        requests = list(server.requests)
    assert len(requests) == len(script)
    reask = requests[1]["messages"]
    assert reask[-2]["content"] == "no json at all" and "no JSON object" in reask[-1]["content"]
    assert "contains '/'" in requests[2]["messages"][-1]["content"]
    assert "must be one of" in requests[4]["messages"][-1]["content"]
    root_options = requests[3]["response_format"]["json_schema"]["schema"]["properties"]["choice"]
    assert root_options["enum"] == ["coding"]

    assert result.unpruned.has("coding/testing/unit tests")
    assert result.unpruned.has("coding/debugging")  # the merge was refused
    insert, refine = _steps(tmp_path)
    assert insert["outcome"] == "added" and insert["path"] == "coding/testing/unit tests"
    assert [step["choice"] for step in insert["descent"]] == ["coding", "testing", "add here"]
    assert refine["outcome"] == "rejected" and "itself" in refine["problem"]
    assert refine["decision"] == {
        "action": "merge",
        "node": "testing",
        "target": "testing",
        "parts": [],
    }
    assert result.report.insert == {"added": 1} and result.report.refine == {"rejected": 1}
    assert "itself" in result.report.examples["refused by the tree"]
    assert result.report.grown == 0  # the one node added was folded into its parent
    # pruning folds the single-child chain testing -> unit tests into testing
    assert result.taxonomy.paths() == ["coding", "coding/debugging", "coding/testing"]
    assert result.path_map["coding/testing/unit tests"] == "coding/testing"


def test_exhausted_reasks_fail_the_insertion_and_a_rebuild_replays_without_calls(
    tmp_path: Path,
) -> None:
    script = [
        answer({"tags": [{"name": "flaky tests", "description": "Tests that fail at random."}]}),
        *[answer({"reason": "r", "choice": "nowhere"})] * 3,
        answer({"reason": "mixed", "decision": {"action": "split", "node": "debugging", "parts": [
            {"name": "runtime errors", "description": "Crashes."},
            {"name": "logic errors", "description": "Wrong results."}]}}),
    ]  # fmt: skip
    with OpenAIServer(Reply(body=completion("unexpected")), script=script) as server:
        first = _build(server, tmp_path)
        calls = len(server.requests)
        again = _build(server, tmp_path)
        assert len(server.requests) == calls == len(script)
    insert = _steps(tmp_path)[0]
    assert insert["outcome"] == "failed" and "must be one of" in insert["problem"]
    assert first.report.insert == {"failed": 1} and first.summary.errors == 1
    expected = ["coding", "coding/runtime errors", "coding/logic errors", "coding/testing"]
    assert first.unpruned.paths() == again.unpruned.paths() == expected
    assert "must be one of" in first.report.examples["not an option"]
    assert first.report.grown == 2  # debugging split in two
    # One extraction and two steps, all recorded: a rerun has nothing left to do.
    assert first.summary.total == again.summary.total == again.summary.already_done == 3
    assert again.summary.called == 0


def test_a_run_directory_refuses_another_seed(tmp_path: Path) -> None:
    script = [answer({"tags": [{"name": "parsing", "description": "y"}]})]
    with OpenAIServer(Reply(body=completion("{}")), script=script) as server:
        _build(server, tmp_path)
        other = SEED.add_child("", "writing")
        with RunStore(tmp_path) as store, pytest.raises(InputError, match="another seed"):
            run_on_stub(
                server, lambda b: build_taxonomy(store, b, [QUERY], seed=other, settings=SETTINGS)
            )


def _parts(*names: str) -> list[Tag]:
    return [Tag(name=name, description="") for name in names]


@pytest.mark.parametrize(
    ("decision", "problem"),
    [
        (Decision(action="reparent", node="testing", target="testing"), "under itself"),
        (Decision(action="split", node="coding", parts=_parts("a", "b")), "assign"),
        (Decision(action="split", node="testing", parts=_parts("a", "a")), "distinct"),
        (Decision(action="merge", node="testing", target="debugging"), None),
    ],
)
def test_refinement_decisions_go_through_the_tree_operations(
    decision: Decision, problem: str | None
) -> None:
    parent = "" if decision.node == "coding" else "coding"
    if problem is None:
        merged = apply_decision(SEED, parent, decision)
        assert merged.paths() == ["coding", "coding/debugging"]
        return
    with pytest.raises(TaxonomyError, match=problem):
        apply_decision(SEED, parent, decision)


@pytest.mark.slow
def test_build_on_the_embedded_model_then_rebuild_makes_no_new_call(tmp_path: Path) -> None:
    queries = tmp_path / "queries.jsonl"
    texts = ["Write a Python function that reverses a linked list."]
    queries.write_text(
        "".join(
            json.dumps({"id": f"q{i}", "messages": [{"role": "user", "content": t}]}) + "\n"
            for i, t in enumerate(texts)
        )
    )
    out, tax = tmp_path / "run", tmp_path / "tax.json"
    args = ("scan", "build", str(queries), "--out", str(out), "--taxonomy-out", str(tax),
            "--max-tags", "1", "--reason-chars", "20")  # fmt: skip
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    built = load_taxonomy(tax)
    assert [domain.name for domain in built.domains] == list(DOMAINS)
    with RunStore(out) as store:
        tags = store.records(TAGS_KIND)
        steps = list(store.records(STEP_KIND).values())
    assert set(tags) == {"q0"}
    extracted = sum(len(record["tags"]) for record in tags.values())
    inserts = [step for step in steps if step["kind"] == "insert"]
    assert len(inserts) == extracted
    assert all(step["outcome"] in ("added", "exists", "rejected", "failed") for step in inserts)
    depth = TaxBuilderSettings().max_depth
    added = [step["path"] for step in inserts if step["outcome"] == "added"]
    assert all(path.count("/") < depth for path in added)
    # the root, then one answer per level, each re-asked at most twice
    assert all(step["calls"] <= (depth + 1) * (1 + SETTINGS.reasks) for step in inserts)
    assert "model answers: tag" in first.stdout and "no usable answer: tag" in first.stdout
    # what the stage line's total counts, in the words of the line above it
    work = f"{1 + len(steps)} steps in all (1 extractions, one per query; {len(steps)} insertions"
    assert f"1 queries, {extracted} capabilities" in first.stdout and work in first.stdout
    grew = any(domain.children for domain in built.domains)
    assert ("the taxonomy is the seed's, grown by nothing" in first.stdout) != grew
    calls = _count_calls(out)

    second = run_cli(*args)
    assert second.returncode == 0, second.stderr
    assert _count_calls(out) == calls
    assert load_taxonomy(tax) == built
    assert "0 model calls" in second.stdout
    assert "No model calls made by this command." in second.stdout  # not the first's calls


def _count_calls(run_dir: Path) -> int:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
