"""The example files the docs' tours run on load with the loaders the tour uses."""

from __future__ import annotations

import csv
import json

from checkbench.benchmarks import load_items
from checkbench.convbench.ingest import iter_conversations
from checkbench.convbench.markers import OPENING_CHARS as APOLOGY_WINDOW
from checkbench.convbench.rank_agreement import load_reference
from checkbench.fbbench.dataset import sample_id
from checkbench.fbbench.judgments import load_fbbench_judgment_dir
from checkbench.ifrewardbench.run import meta_report
from checkbench.scan.tree import load_taxonomy
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples"


def test_fb_bench_samples_are_detected_and_their_judgments_share_their_ids() -> None:
    samples = load_items(EXAMPLES / "fb-bench-mini.json")
    assert [item.tag("scenario")[0] for item in samples] == ["EC", "EC", "RM", "RM"]
    items, responses, verdicts = load_fbbench_judgment_dir(EXAMPLES / "fb-bench-judgments-mini")
    assert {item.id for item in items} == {item.id for item in samples}
    assert sorted({r.model for r in responses}) == ["model-a", "model-b"]
    assert sum(v.passed is None for v in verdicts) == 2  # model-b's failed judgment: 2 checks


def test_preferences_name_samples_of_the_judgment_files() -> None:
    raw = json.loads((EXAMPLES / "fb-bench-mini.json").read_text())
    ids = {sample_id(r["user_query"], r["feedback"]) for r in raw}
    lines = (EXAMPLES / "prefs-mini.jsonl").read_text().splitlines()
    assert {json.loads(line)["item_id"] for line in lines} <= ids


def test_reference_leaderboard_lists_both_judged_models_and_one_more() -> None:
    scores = load_reference(EXAMPLES / "reference-mini.csv")
    assert set(scores) == {"model-a", "model-b", "model-c"}
    with (EXAMPLES / "reference-mini.csv").open() as handle:
        assert next(csv.reader(handle)) == ["model", "score"]


def test_logs_are_openai_conversations_some_with_apologies() -> None:
    conversations = list(iter_conversations(EXAMPLES / "logs-mini.jsonl", strict=True))
    assert 6 <= len(conversations) <= 10
    later = [m.content[:APOLOGY_WINDOW].lower() for c in conversations for m in c.messages[3:]]
    assert any("sorry" in text or "apolog" in text for text in later)
    assert sum(len(c.messages) > 2 for c in conversations) >= 4  # later user messages


def test_queries_and_taxonomy_load() -> None:
    queries = load_items(EXAMPLES / "queries-mini.jsonl")
    assert queries and all(not q.checklist and q.messages[-1].role == "user" for q in queries)
    assert load_taxonomy(EXAMPLES / "taxonomy-mini.json").depth() >= 3


def test_ifrewardbench_predictions_evaluate_without_a_model() -> None:
    report = meta_report(EXAMPLES / "ifrewardbench-mini.json")
    assert report.overall is not None and report.unscored.total_labels > 0
