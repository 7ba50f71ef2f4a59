"""IF-RewardBench loading and metrics on a hand-built file whose numbers are worked out below.

Five instructions (gold labels -> judge's predicted labels per response; edges chosen>rejected):

R1 Single_Turn, 1 turn, 2 constraints [Format/And, Content/Single]
   r0 [1,1]->[1,1]  r1 [1,0]->[1,1]  r2 [0,0]->[0,1]        edges 0>1 0>2 1>2
   labels TP 3 FP 2 FN 0 TN 1: Pos F1 = 2*3/(5+3) = .75, Neg F1 = 2*1/(1+3) = .5
   scores 1, 1, .5: 0>1 predicted tie, 0>2 and 1>2 concordant: C2 D0 T1
   accuracy 2/3, tau_b = 2/sqrt(2*3)
R2 Single_Turn, 1 turn, 1 constraint [Format/Single]
   r0 [1]->[0]  r1 [0]->[1]                                   edge 0>1
   Pos F1 0, Neg F1 0; scores 0, 1: C0 D1: accuracy 0, tau_b -1
R3 Multi_Turn, 2 turns, 2 constraints [Content/Chain, Format+Style/And]
   r0 [1,1]->[1,None]  r1 [1,0]->[1,0]  r2 [0,0]->[0,0]      edges 0>1 0>2 1>2
   TP 2, judged-1 2, gold-1 3: Pos F1 = 4/5; TN 3 of 3 and 3: Neg F1 = 1
   r0 has an unscored label, so no score: 0>1 and 0>2 are unscored ties; 1>2 (.5 > 0) concordant
   C1 D0 T2: accuracy 1/3, tau_b = 1/sqrt(1*3)
R4 Multi_Turn, 3 turns, 4 constraints [Style/Single x4]
   r0 [0,0,0,0]->[0,0,0,0], no edges
   Pos F1 0 (no positives anywhere: released convention), Neg F1 1; excluded from ranking
R5 System_Prompt (the only one of its type), 1 turn, 3 constraints
   [Format/Single, Content/And, Numerical/Selection]
   r0 [1,1,1]->[1,1,1]  r1 [1,1,0]->[1,0,0]  r2 [1,0,0]->[1,1,0]   edges 0>1 0>2 1>2
   TP 5, judged-1 6, gold-1 6: Pos F1 = 10/12; TN 2, judged-0 3, gold-0 3: Neg F1 = 4/6
   scores 1, 1/3, 2/3: C2 D1 T0: accuracy 2/3, tau_b = 1/3
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from checkbench.errors import InputError
from checkbench.ifrewardbench.dataset import load_ifrewardbench
from checkbench.ifrewardbench.metrics import MetaReport, evaluate

Spec = tuple[list[str], list[str]]


def _record(
    rid: int,
    kind: str,
    roles: str,
    constraints: list[Spec],
    gold: list[list[int]],
    pred: list[list[int | None]],
    edges: list[tuple[int, int]],
) -> dict[str, Any]:
    """An IF-RewardBench record in the released layout (copies of the responses in the edges
    included), with the judge's predictions as `pred_labels` (critiques: test_meta_critiques)."""
    names = {"s": "system", "u": "user", "a": "assistant"}
    responses = [
        {"response_id": i, "response": f"answer {i}", "labels": g, "pred_labels": p}
        for i, (g, p) in enumerate(zip(gold, pred, strict=True))
    ]
    return {
        "id": rid,
        "response_generation_model": "gen-model",
        "instruction_type": kind,
        "messages": [{"role": names[r], "content": f"turn {i}"} for i, r in enumerate(roles)],
        "checklist": [f"constraint {k} of {rid}" for k in range(len(constraints))],
        "constraint_type": [
            {
                "item_id": k,
                "item": f"constraint {k} of {rid}",
                "constraint_categories": cats,
                "constraint_composition_types": comps,
            }
            for k, (cats, comps) in enumerate(constraints)
        ],
        "responses": responses,
        "preference_graph": [
            {
                "pair_id": j,
                "chosen": {"response_id": c, "response": "copy", "label": gold[c]},
                "rejected": {"response_id": r, "response": "copy", "label": gold[r]},
            }
            for j, (c, r) in enumerate(edges)
        ],
    }


ALL = [(0, 1), (0, 2), (1, 2)]
RECORDS = [
    _record(
        1,
        "Single_Turn",
        "u",
        [(["Format"], ["And"]), (["Content"], ["Single"])],
        [[1, 1], [1, 0], [0, 0]],
        [[1, 1], [1, 1], [0, 1]],
        ALL,
    ),
    _record(2, "Single_Turn", "u", [(["Format"], ["Single"])], [[1], [0]], [[0], [1]], [(0, 1)]),
    _record(
        3,
        "Multi_Turn",
        "uau",
        [(["Content"], ["Chain"]), (["Format", "Style"], ["And"])],
        [[1, 1], [1, 0], [0, 0]],
        [[1, None], [1, 0], [0, 0]],
        ALL,
    ),
    _record(4, "Multi_Turn", "uauau", [(["Style"], ["Single"])] * 4, [[0] * 4], [[0] * 4], []),
    _record(
        5,
        "System_Prompt",
        "su",
        [(["Format"], ["Single"]), (["Content"], ["And"]), (["Numerical"], ["Selection"])],
        [[1, 1, 1], [1, 1, 0], [1, 0, 0]],
        [[1, 1, 1], [1, 0, 0], [1, 1, 0]],
        ALL,
    ),
]

EDGES_3 = [("0", "1"), ("0", "2"), ("1", "2")]
TAU_R1 = 2 / math.sqrt(6)
TAU_R3 = 1 / math.sqrt(3)


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture()
def report(tmp_path: Path) -> MetaReport:
    return evaluate(load_ifrewardbench(write_jsonl(tmp_path / "small.jsonl", RECORDS)), b=200)


def test_loader_builds_items_with_distinguishable_categories(tmp_path: Path) -> None:
    records = load_ifrewardbench(write_jsonl(tmp_path / "small.jsonl", RECORDS))
    r3 = records[2]
    assert r3.item.id == "3" and r3.generator == "gen-model"
    assert [c.id for c in r3.item.checklist] == ["0", "1"]
    assert r3.item.checklist[1].categories == [
        "category:Format",
        "category:Style",
        "composition:And",
    ]
    assert r3.item.tags == {
        "instruction_type": ["Multi_Turn"],
        "turns": ["2"],
        "n_constraints": ["2"],
        "generator": ["gen-model"],
    }
    assert records[4].item.tags["turns"] == ["1"]  # a system prompt is not a turn
    assert r3.responses[0].pred_labels == [1, None]
    assert [(e.chosen, e.rejected) for e in r3.preference_graph] == EDGES_3


def test_json_list_and_jsonl_load_the_same(tmp_path: Path) -> None:
    listed = tmp_path / "small.json"
    listed.write_text(json.dumps(RECORDS, indent=2), encoding="utf-8")
    lines = write_jsonl(tmp_path / "small.jsonl", RECORDS)
    assert load_ifrewardbench(listed) == load_ifrewardbench(lines)


def test_overall_is_the_mean_of_instruction_type_means(report: MetaReport) -> None:
    overall = report.overall
    assert overall.instructions == 5
    assert overall.positive_f1.value == pytest.approx((0.375 + 0.4 + 10 / 12) / 3)
    assert overall.negative_f1.value == pytest.approx((0.25 + 1.0 + 4 / 6) / 3)
    assert overall.accuracy.value == pytest.approx((1 / 3 + 1 / 3 + 2 / 3) / 3)
    tau = ((TAU_R1 - 1) / 2 + TAU_R3 + 1 / 3) / 3
    assert overall.kendall_tau_b.value == pytest.approx(tau)
    assert overall.kendall_tau_b.value == pytest.approx(0.2729773, abs=1e-7)
    assert (overall.positive_f1.n, overall.accuracy.n) == (5, 4)
    for stat in (overall.positive_f1, overall.accuracy, overall.kendall_tau_b):
        assert stat.low <= stat.value <= stat.high


def test_instruction_type_averages(report: MetaReport) -> None:
    types = report.by_instruction_type
    assert list(types) == ["Multi_Turn", "Single_Turn", "System_Prompt"]
    single = types["Single_Turn"]
    assert (single.positive_f1.value, single.negative_f1.value) == pytest.approx((0.375, 0.25))
    assert single.accuracy.value == pytest.approx(1 / 3)
    assert single.kendall_tau_b.value == pytest.approx((TAU_R1 - 1) / 2)
    multi = types["Multi_Turn"]  # R4 has no edges: in the F1 means, not in the ranking means
    assert (multi.positive_f1.value, multi.negative_f1.value) == pytest.approx((0.4, 1.0))
    assert (multi.accuracy.value, multi.accuracy.n) == (pytest.approx(1 / 3), 1)
    assert multi.kendall_tau_b.value == pytest.approx(TAU_R3)
    system = types["System_Prompt"]  # one instruction: too few to give an interval
    assert system.instructions == 1
    assert system.kendall_tau_b.model_dump() == {
        "value": pytest.approx(1 / 3),
        "low": None,
        "high": None,
        "n": 1,
        "why": "too few items",
    }
    assert system.positive_f1.value == pytest.approx(10 / 12)


def test_no_edges_zero_scores_empty_graphs_as_the_released_code(tmp_path: Path) -> None:
    records = load_ifrewardbench(write_jsonl(tmp_path / "small.jsonl", RECORDS))
    report = evaluate(records, no_edges="zero", b=50)
    multi = report.by_instruction_type["Multi_Turn"]
    assert (multi.accuracy.value, multi.accuracy.n) == (pytest.approx(1 / 6), 2)
    assert multi.kendall_tau_b.value == pytest.approx(TAU_R3 / 2)
    assert report.overall.accuracy.value == pytest.approx((1 / 3 + 1 / 6 + 2 / 3) / 3)


def test_turn_and_constraint_bins(report: MetaReport) -> None:
    assert list(report.by_turns) == ["1", "2", "3"]
    assert report.by_turns["1"].instructions == 3
    assert report.by_turns["1"].positive_f1.value == pytest.approx((0.75 + 0 + 10 / 12) / 3)
    three = report.by_turns["3"]
    assert three.accuracy.model_dump() == {"value": None, "low": None, "high": None, "n": 0}
    assert list(report.by_constraints) == ["<=3", "4"]
    assert report.by_constraints["4"].negative_f1.value == 1.0


def test_category_breakdown_pools_labels(report: MetaReport) -> None:
    assert list(report.by_category) == ["Content", "Format", "Numerical", "Style"]
    assert list(report.by_composition) == ["And", "Chain", "Selection", "Single"]
    fmt = report.by_category["Format"]
    # gold  1 1 0 | 1 0 | 1 0 0 | 1 1 1   (R1 c0, R2 c0, R3 c1, R5 c0)
    # judge 1 1 0 | 0 1 | - 0 0 | 1 1 1
    assert (fmt.n, fmt.unscored, fmt.gold_positive, fmt.clusters) == (11, 1, 7, 4)
    assert fmt.positive_f1.value == pytest.approx(10 / 13)
    assert fmt.negative_f1.value == pytest.approx(6 / 8)
    # MCC over judge answers {0, 1, unscored}: (8*11 - (4*4 + 7*6)) / sqrt((121-53)(121-65))
    assert fmt.mcc.value == pytest.approx(30 / math.sqrt(68 * 56))
    chain = report.by_composition["Chain"]
    assert (chain.positive_f1.value, chain.negative_f1.value, chain.mcc.value) == (1.0, 1.0, 1.0)


def test_overall_agreement_and_unscored_counts(report: MetaReport) -> None:
    # all 27 labels, gold/judge: 1/1 10, 1/0 2, 1/unscored 1, 0/1 4, 0/0 10
    agree = report.agreement
    assert (agree.n, agree.unscored, agree.clusters) == (27, 1, 5)
    assert agree.agreement.value == pytest.approx(20 / 27)
    assert agree.kappa.value == pytest.approx((27 * 20 - (13 * 14 + 14 * 12)) / (27**2 - 350))
    assert agree.alpha.value == pytest.approx(1 - 51 * 6 / (26 * 26))
    assert agree.alpha.n == 26
    assert report.unscored.model_dump() == {
        "labels": 1,
        "total_labels": 27,
        "responses": 1,
        "total_responses": 12,
        "edges": 2,
        "total_edges": 10,
        "instructions_without_edges": 1,
    }


def test_supplied_scores_rank_instead_of_labels(tmp_path: Path) -> None:
    records = [dict(r) for r in RECORDS[:1]]
    records[0]["responses"] = [
        {**resp, "pred_score": score}
        for resp, score in zip(records[0]["responses"], [0.2, 0.9, None], strict=True)
    ]
    loaded = load_ifrewardbench(write_jsonl(tmp_path / "scored.jsonl", records))
    report = evaluate(loaded, ranking="score", b=20)
    # 0>1 discordant (.2 < .9); 0>2 and 1>2 have an unscored endpoint: ties. C0 D1 T2
    assert report.overall.accuracy.value == 0.0
    assert report.overall.kendall_tau_b.value == pytest.approx(-1 / math.sqrt(3))
    assert (report.unscored.responses, report.unscored.edges) == (1, 2)
    assert report.overall.positive_f1.value == pytest.approx(0.75)  # verification unchanged


def test_repeated_edges_count_once(tmp_path: Path) -> None:
    records = json.loads(json.dumps(RECORDS))
    records[1]["preference_graph"] *= 2  # R2's single edge, twice
    report = evaluate(load_ifrewardbench(write_jsonl(tmp_path / "twice.jsonl", records)), b=20)
    assert report.unscored.total_edges == 10
    assert report.by_instruction_type["Single_Turn"].kendall_tau_b.value == pytest.approx(
        (TAU_R1 - 1) / 2
    )


def test_report_json_shape(report: MetaReport) -> None:
    dumped = json.loads(report.model_dump_json())
    assert set(dumped["overall"]) >= {"positive_f1", "negative_f1", "accuracy", "kendall_tau_b"}
    for key in ("by_instruction_type", "by_category", "by_composition", "by_turns"):
        assert dumped[key]
    assert dumped["unscored"]["labels"] == 1


def test_bootstrap_is_seeded(tmp_path: Path) -> None:
    records = load_ifrewardbench(write_jsonl(tmp_path / "small.jsonl", RECORDS))
    first, again = evaluate(records, b=100, seed=3), evaluate(records, b=100, seed=3)
    assert first == again
    assert evaluate(records, b=100, seed=4).agreement != first.agreement


# ---------------------------------------------------------------- malformed records

Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    def mutate(record: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = record
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value

    return mutate


BAD = [
    (_set("responses.1.labels", [1]), "responses.1.labels"),
    (_set("responses.0.pred_labels", [1, 0, 1]), "responses.0.pred_labels"),
    (_set("responses.2.labels.0", 2), "responses.2.labels.0"),
    (_set("preference_graph.2.rejected.response_id", 9), "preference_graph.2.rejected"),
    (_set("preference_graph.1.chosen.response_id", 2), "preference_graph.1"),
    (
        _set("preference_graph.2", {"chosen": {"response_id": 1}, "rejected": {"response_id": 0}}),
        "preference_graph.2",
    ),
    (_set("responses.1.response_id", 0), "responses.1.response_id"),
    (_set("constraint_type.0.item_id", 5), "constraint_type.0.item_id"),
    (_set("instruction_type", "Chat"), "instruction_type"),
    (lambda r: r.pop("checklist"), "checklist"),
    (_set("messages", [{"role": "assistant", "content": "hi"}]), "messages"),
]


@pytest.mark.parametrize(("mutate", "field"), BAD, ids=[field for _, field in BAD])
def test_bad_record_names_line_and_field(tmp_path: Path, mutate: Mutation, field: str) -> None:
    records = json.loads(json.dumps(RECORDS))
    mutate(records[0])
    records = [records[1], records[2], records[0]]
    with pytest.raises(InputError) as caught:
        load_ifrewardbench(write_jsonl(tmp_path / "bad.jsonl", records))
    assert (caught.value.line, caught.value.field) == (3, field)
    assert str(caught.value).startswith(f"{tmp_path / 'bad.jsonl'}:3: field '{field}': ")


def test_bad_record_in_json_list_is_located_by_record_number(tmp_path: Path) -> None:
    records = json.loads(json.dumps(RECORDS))
    records[1]["responses"][0]["labels"] = [1, 1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_ifrewardbench(path)
    assert (caught.value.line, caught.value.field) == (2, "responses.0.labels")


def test_duplicate_ids_and_malformed_json(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_ifrewardbench(write_jsonl(tmp_path / "dup.jsonl", [*RECORDS[:2], RECORDS[0]]))
    assert (caught.value.line, caught.value.field) == (3, "id")
    broken = tmp_path / "broken.json"
    broken.write_text('[\n{"id": 1},\n{"id": \n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_ifrewardbench(broken)
    assert caught.value.line == 4 and "malformed JSON" in str(caught.value)
