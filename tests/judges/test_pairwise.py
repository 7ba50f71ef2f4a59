"""The pairwise judge: answer parsing, both-order decisions, position bias, listwise rankings from
pairwise judgments, and re-asks / unscored counting against a scripted server."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from checkbench import api
from checkbench.ifrewardbench.dataset import load_ifrewardbench
from checkbench.ifrewardbench.pairwise import Method, PairwiseReport, pairwise_report
from checkbench.ifrewardbench.records import MetaRecord
from checkbench.ifrewardbench.run import MetaSettings
from checkbench.judges.pairwise import SHOWN, PairAnswer
from checkbench.llm import ModelOptions
from checkbench.schema import PairVerdict, Winner
from checkbench.steps.answers import Unusable, parse_answer
from checkbench.testing import CANNED, OpenAIServer, Reply, completion
from tests.ifrewardbench.test_cli import tiny_file
from tests.ifrewardbench.test_dataset import RECORDS, _record, write_jsonl

# ------------------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    ("raw", "winner"),
    [
        ('{"reason": "B keeps the limit", "winner": "B"}', "b"),
        ('```json\n{"reason": "", "winner": "a"}\n```', "a"),
        ('Sure: {"winner": "Tie", "reason": "both fine"} done', "tie"),
    ],
)
def test_parse_accepts_the_three_answers(raw: str, winner: str) -> None:
    assert SHOWN[parse_answer(raw, PairAnswer).winner] == winner


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("A is better", "no JSON object"),
        ('{"reason": "x", "winner": "C"}', "'winner' must be"),
        ('{"reason": "x"}', "'winner' is missing"),
        ('["A"]', "expected a JSON object"),
        ('{"reason": "cut', "incomplete"),
    ],
)
def test_parse_rejects_unusable_answers_with_a_reason(raw: str, problem: str) -> None:
    with pytest.raises(Unusable, match=problem):
        parse_answer(raw, PairAnswer)


# ------------------------------------------------------------- scripted both-order judges

Judge = Callable[[MetaRecord, str, str], Winner | None]
"""A scripted judge: (record, response shown first, response shown second) -> winner."""


def _records(tmp_path: Path) -> list[MetaRecord]:
    """The worked five-instruction set: R1, R3 and R5 have gold 0 > 1 > 2, R2 has 0 > 1 and
    R4 a single response (no pairs, no edges)."""
    return load_ifrewardbench(write_jsonl(tmp_path / "small.jsonl", RECORDS))


def _judged(records: list[MetaRecord], judge: Judge) -> list[PairVerdict]:
    """Every pair of every instruction, in both orders, as the scripted judge decides."""
    verdicts = []
    for record in records:
        ids = [r.response_id for r in record.responses]
        for i, x in enumerate(ids):
            for y in ids[i + 1 :]:
                for a, b in ((x, y), (y, x)):
                    winner = judge(record, a, b)
                    verdicts.append(
                        PairVerdict(item_id=record.item.id, judge="j", a=a, b=b, winner=winner)
                    )
    return verdicts


def _gold_better(record: MetaRecord, a: str, b: str) -> Winner:
    """The response with more gold labels met wins (the worked set's edges follow that)."""
    met = {r.response_id: sum(r.labels) for r in record.responses}
    return "a" if met[a] > met[b] else "b" if met[b] > met[a] else "tie"


def _report(tmp_path: Path, judge: Judge, method: Method = "bradley_terry") -> PairwiseReport:
    records = _records(tmp_path)
    return pairwise_report(records, _judged(records, judge), method=method, b=50, seed=0)


def test_a_judge_that_always_picks_the_first_reply_is_fully_position_biased(
    tmp_path: Path,
) -> None:
    report = _report(tmp_path, lambda record, a, b: "a")
    position = report.position
    assert (position.pairs, position.single_order) == (10, 0)
    assert (position.first_position, position.second_position) == (10, 0)
    assert position.position_bias_rate == 1.0 and position.consistency_rate == 0.0
    assert (position.consistent_wins, position.consistent_ties, position.inconsistent) == (0, 0, 10)
    assert (report.judgments, report.unscored, report.ties) == (20, 0, 0)
    # every edge is an inconsistent pair: a predicted tie, so wrong, and tau_b 0; and as each
    # response wins once against every other, Bradley-Terry strengths are equal: ties again
    for ranking in (report.edges, report.listwise):
        assert ranking.overall.accuracy.value == 0.0
        assert ranking.overall.kendall_tau_b.value == 0.0
        assert (ranking.total_edges, ranking.unscored_edges) == (10, 0)


def test_a_judge_that_follows_gold_in_both_orders_is_consistent_and_right(tmp_path: Path) -> None:
    methods: tuple[Method, ...] = ("bradley_terry", "elo")
    for method in methods:
        report = _report(tmp_path, _gold_better, method)
        assert report.position.consistency_rate == 1.0
        assert report.position.position_bias_rate == 0.0
        for ranking in (report.edges, report.listwise):
            assert ranking.overall.accuracy.value == 1.0
            assert ranking.overall.kendall_tau_b.value == 1.0
            assert ranking.overall.accuracy.n == 4  # R4 has no edges
            assert list(ranking.by_instruction_type) == [
                "Multi_Turn",
                "Single_Turn",
                "System_Prompt",
            ]


def test_ties_and_mixed_answers_are_inconsistent_without_position_bias(tmp_path: Path) -> None:
    ties = _report(tmp_path, lambda record, a, b: "tie")
    assert (ties.position.consistent_ties, ties.ties) == (10, 20)
    assert ties.position.consistency_rate == 1.0 and ties.edges.overall.accuracy.value == 0.0

    def half(record: MetaRecord, a: str, b: str) -> Winner:  # right when the better is first
        return _gold_better(record, a, b) if int(a) < int(b) else "tie"

    mixed = _report(tmp_path, half)
    assert (mixed.position.inconsistent, mixed.position.position_bias_rate) == (10, 0.0)
    assert mixed.edges.overall.accuracy.value == 0.0
    # counted once each, the better response's wins still rank the list correctly
    assert mixed.listwise.overall.accuracy.value == 1.0


def test_an_unusable_order_leaves_its_edge_unscored(tmp_path: Path) -> None:
    def gold_but_one(record: MetaRecord, a: str, b: str) -> Winner | None:
        return None if (record.item.id, a, b) == ("2", "1", "0") else _gold_better(record, a, b)

    report = _report(tmp_path, gold_but_one)
    assert (report.unscored, report.position.single_order, report.position.pairs) == (1, 1, 9)
    assert (report.edges.unscored_edges, report.listwise.unscored_edges) == (1, 0)
    single = report.edges.by_instruction_type["Single_Turn"]
    assert single.accuracy.value == pytest.approx(0.5)  # R1 right, R2 unscored
    assert report.edges.overall.accuracy.value == pytest.approx((0.5 + 1 + 1) / 3)
    # the remaining order still ranks R2's responses
    assert report.listwise.overall.accuracy.value == 1.0


# --------------------------------------------------------- re-asks against a scripted server


def _one_pair_file(tmp_path: Path) -> Path:
    record = _record(
        1, "Single_Turn", "u", [(["Format"], ["Single"])], [[1], [0]], [[1], [0]], [(0, 1)]
    )
    return write_jsonl(tmp_path / "pair.jsonl", [record])


def test_malformed_answers_are_reasked_then_counted_unscored(tmp_path: Path) -> None:
    path, run_dir = _one_pair_file(tmp_path), tmp_path / "run"
    script = [
        Reply(body=completion("I think A is better.")),
        Reply(body=completion('{"reason": "x", "winner": "C"}')),
        Reply(body=completion('{"reason": "B keeps the limit", "winner": "B"}')),
        *[Reply(body=completion('{"reason": "cut off')) for _ in range(3)],
    ]
    settings = MetaSettings(paradigm="pairwise", b=50)
    with OpenAIServer(CANNED, script=script) as server:
        options = ModelOptions(base_url=server.base_url, concurrency=1)
        run = api.meta_run(
            path, ["openai:stub"], settings=settings, run_dir=run_dir, options=options
        )
        sent = len(server.requests)
        again = api.meta_run(
            path, ["openai:stub"], settings=settings, run_dir=run_dir, options=options
        )
        assert len(server.requests) == sent == 6  # the rerun replays every answer from the store

    first = server.requests[0]
    assert first["response_format"]["json_schema"]["schema"]["properties"]["winner"]["enum"] == [
        "A",
        "B",
        "tie",
    ]
    reask = server.requests[1]["messages"]
    assert reask[-2] == {"role": "assistant", "content": "I think A is better."}
    assert "no JSON object found" in reask[-1]["content"]
    assert "'winner' must be" in server.requests[2]["messages"][-1]["content"]

    [result] = run.results
    report = result.report
    pairwise = report.pairwise
    assert pairwise is not None
    assert (pairwise.judgments, pairwise.unscored, result.unscored) == (2, 1, 1)
    assert (pairwise.position.pairs, pairwise.position.single_order) == (0, 1)
    assert pairwise.position.position_bias_rate is None
    assert (pairwise.edges.unscored_edges, pairwise.edges.overall.accuracy.value) == (1, 0.0)
    # the usable order put response 1 (gold-rejected) first: the listwise ranking is discordant
    assert pairwise.listwise.overall.kendall_tau_b.value == -1.0
    # a pairwise-only judge ranks by its listwise scores and has no verification metrics
    assert report.settings.ranking == "score"
    assert report.overall.kendall_tau_b.value == -1.0
    assert report.overall.positive_f1.model_dump() == {
        "value": None,
        "low": None,
        "high": None,
        "n": 0,
    }
    assert report.agreement is None and report.by_category == {}
    assert again.results == run.results

    with sqlite3.connect(run_dir / "run.sqlite") as db:
        rows = db.execute("SELECT body FROM records WHERE kind = 'pairwise'")
        stored = [json.loads(body) for (body,) in rows]
    by_order = {(v["a"], v["b"]): v for v in stored}
    assert by_order[("0", "1")]["winner"] == "b" and by_order[("0", "1")]["attempts"] == 3
    unscored = by_order[("1", "0")]
    assert unscored["winner"] is None and unscored["attempts"] == 3
    assert unscored["raw"] == '{"reason": "cut off' and "incomplete" in unscored["reason"]
    assert (result.usage.calls, result.usage.prompt_tokens) == (6, 7 * 6)


def test_edge_scope_judges_only_the_pairs_of_the_graph(tmp_path: Path) -> None:
    path = tiny_file(tmp_path)  # instruction 1: 3 responses but edges 0>1 and 0>2 only
    settings = MetaSettings(paradigm="pairwise", pairs="edges", method="elo", b=20)
    reply = Reply(body=completion('{"reason": "first", "winner": "A"}'))
    with OpenAIServer(reply) as server:
        options = ModelOptions(base_url=server.base_url)
        [result] = api.meta_run(
            path, ["openai:stub"], settings=settings, run_dir=tmp_path / "run", options=options
        ).results
        assert len(server.requests) == 2 * 3
    pairwise = result.report.pairwise
    assert pairwise is not None and pairwise.method == "elo"
    assert (pairwise.judgments, pairwise.position.pairs) == (6, 3)
    assert pairwise.position.position_bias_rate == 1.0
