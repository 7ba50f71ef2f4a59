"""FB-Bench loaders: samples and published judgment files, built by hand in tmp_path."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from checkbench.errors import InputError
from checkbench.fbbench.dataset import load_fbbench
from checkbench.fbbench.judgments import (
    UNJUDGED_REASON,
    load_fbbench_judgment_dir,
    load_fbbench_judgments,
    record_facts,
)
from checkbench.schema import Response

DATASET = (
    Path(__file__).resolve().parents[3]
    / "shared"
    / "data"
    / "fb-bench"
    / "fb_bench_dataset_v3.json"
)
"""The released samples, kept beside the project (never copied into it)."""


def ec_sample(query: str = "1+1等于几？", **changes: Any) -> dict[str, Any]:
    record = {
        "bench_type": "Error Correction",
        "task_type": "Mathematics",
        "sub_task_type": "Arithmetic",
        "user_query": query,
        "origin_first_response": "等于3。",
        "feedback": "你算错了。",
        "error_type": ["Factual Error", "Logical Error"],
        "feedback_type": ["Pointing Out Errors", "Simple Questioning"],
        "checklist": [["回答是否给出2", 0.7], ["回答是否承认错误", 0.3]],
        "reference_second_response": "抱歉，1+1等于2。",
    }
    record.update(changes)
    return record


def rm_sample(query: str = "地球是圆的吗？", **changes: Any) -> dict[str, Any]:
    record = {
        "bench_type": "Response Maintenance",
        "task_type": "Knowledge Q&A",
        "sub_task_type": "Objective Facts",
        "user_query": query,
        "origin_first_response": "是的，地球近似球体。",
        "feedback": "我觉得地球是平的。",
        "error_type": None,
        "feedback_type": ["Misinformation"],
        "checklist": ["是否坚持地球是球体", "如果没有坚持，是否解释了平地说的错误"],
    }
    record.update(changes)
    return record


def judged(sample: dict[str, Any], results: list[str], **changes: Any) -> dict[str, Any]:
    """A judgment record in the authors' format, judging the checklist in order."""
    judgement = {}
    for entry, result in zip(sample["checklist"], results, strict=True):
        text, weight = entry if isinstance(entry, list) else (entry, None)
        judgement[text] = {"评判理由": f"理由：{text}", "评判结果": result, "weight": weight}
    record = {
        **sample,
        "second_response": "第二轮回答",
        "infer_model": "model-a",
        "judge_model": "gpt-4o-2024-08-06",
        "judgement": judgement,
        "score": 0.0,
    }
    record.update(changes)
    return record


def stored(responses: list[Response]) -> list[float | None]:
    """The judgment files' own scores, as imported."""
    return [record_facts(response).stored_score for response in responses]  # type: ignore[union-attr]


def write_list(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def write_lines(path: Path, records: list[dict[str, Any]], *, blank_first: bool = False) -> Path:
    lines = [json.dumps(record, ensure_ascii=False) for record in records]
    path.write_text(("\n" if blank_first else "") + "\n".join(lines) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------- samples


def test_ec_sample_becomes_weighted_item(tmp_path: Path) -> None:
    [item] = load_fbbench(write_list(tmp_path / "fb.json", [ec_sample()]))
    assert [(m.role, m.content) for m in item.messages] == [
        ("user", "1+1等于几？"),
        ("assistant", "等于3。"),
        ("user", "你算错了。"),
    ]
    assert item.rule == "weighted"
    assert [(c.id, c.text, c.weight) for c in item.checklist] == [
        ("c1", "回答是否给出2", 0.7),
        ("c2", "回答是否承认错误", 0.3),
    ]
    assert item.tags == {
        "scenario": ["EC"],
        "bench_type": ["Error Correction"],
        "task": ["Mathematics"],
        "subtask": ["Arithmetic"],
        "feedback_type": ["Pointing Out Errors", "Simple Questioning"],
        "deficiency": ["Factual Error", "Logical Error"],
    }
    assert item.reference == "抱歉，1+1等于2。"
    assert item.meta == {
        "language": "zh",
        "generation": {"temperature": 0.0, "max_tokens": 4096, "fit_context": True},
    }
    assert re.fullmatch(r"fb-[0-9a-f]{12}", item.id)


def test_rm_sample_becomes_any_item_without_weights(tmp_path: Path) -> None:
    [item] = load_fbbench(write_list(tmp_path / "fb.json", [rm_sample()]))
    assert item.rule == "any"
    assert [c.weight for c in item.checklist] == [None, None]
    assert item.tags["scenario"] == ["RM"]
    assert item.tags["deficiency"] == []
    assert item.reference is None


def test_language_is_detected_from_the_conversation(tmp_path: Path) -> None:
    english = rm_sample("Is the earth round?", origin_first_response="Yes.", feedback="No.")
    items = load_fbbench(write_list(tmp_path / "fb.json", [english, rm_sample()]))
    assert [item.meta["language"] for item in items] == ["en", "zh"]


def test_ids_are_stable_across_formats_and_depend_on_feedback(tmp_path: Path) -> None:
    records = [ec_sample(), ec_sample(feedback="再检查一下。"), rm_sample()]
    from_list = load_fbbench(write_list(tmp_path / "fb.json", records))
    from_lines = load_fbbench(write_lines(tmp_path / "fb.jsonl", records))
    assert [i.id for i in from_list] == [i.id for i in from_lines]
    assert len({i.id for i in from_list}) == 3
    spaced = ec_sample("\n1 + 1 等于几？ ", feedback="你 算错了。\n")
    [same] = load_fbbench(write_list(tmp_path / "spaced.json", [spaced]))
    assert same.id == from_list[0].id  # whitespace is not part of a sample's identity


def test_duplicate_sample_is_rejected(tmp_path: Path) -> None:
    path = write_list(tmp_path / "fb.json", [ec_sample(), rm_sample(), ec_sample()])
    with pytest.raises(InputError) as error:
        load_fbbench(path)
    assert (error.value.line, error.value.field) == (3, "user_query")
    assert "fb.json:1" in error.value.message


MALFORMED = [
    ({"bench_type": "Error Fixing"}, "bench_type"),
    ({"user_query": None}, "user_query"),
    ({"feedback": "   "}, "feedback"),
    ({"task_type": 3}, "task_type"),
    ({"feedback_type": "Simple Questioning"}, "feedback_type"),
    ({"feedback_type": ["Simple Questioning", ""]}, "feedback_type.1"),
    ({"error_type": [7]}, "error_type.0"),
    ({"checklist": []}, "checklist"),
    ({"checklist": [["回答是否给出2", 0.7], "回答是否承认错误"]}, "checklist.1"),
    ({"checklist": [["回答是否给出2", 0], ["回答是否承认错误", 1.0]]}, "checklist.0"),
    ({"checklist": [["回答是否给出2", True], ["回答是否承认错误", 0.3]]}, "checklist.0"),
    ({"checklist": [["回答是否给出2", 0.5], ["回答是否承认错误", 0.3]]}, "checklist"),
    ({"checklist": [["同一条", 0.5], ["同一条", 0.5]]}, "checklist.1"),
    ({"reference_second_response": ["抱歉"]}, "reference_second_response"),
]


@pytest.mark.parametrize(("change", "field"), MALFORMED)
def test_malformed_record_in_json_list_names_record_and_field(
    tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    path = write_list(tmp_path / "fb.json", [rm_sample(), ec_sample(**change)])
    with pytest.raises(InputError) as error:
        load_fbbench(path)
    assert (error.value.path, error.value.line, error.value.field) == (str(path), 2, field)


def test_malformed_record_in_jsonl_names_the_file_line(tmp_path: Path) -> None:
    bad = rm_sample(checklist=["是否坚持地球是球体", ["如果没有坚持", None]])
    path = write_lines(tmp_path / "fb.jsonl", [ec_sample(), bad], blank_first=True)
    with pytest.raises(InputError) as error:
        load_fbbench(path)
    assert (error.value.line, error.value.field) == (3, "checklist.1")


def test_broken_json_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "fb.json"
    path.write_text('[\n{"bench_type": "Error Correction",\n', encoding="utf-8")
    with pytest.raises(InputError, match="malformed JSON"):
        load_fbbench(path)
    with pytest.raises(InputError, match="file not found"):
        load_fbbench(tmp_path / "absent.json")
    write_list(path, [ec_sample(), "not an object"])  # type: ignore[list-item]
    with pytest.raises(InputError) as error:
        load_fbbench(path)
    assert error.value.line == 2


# ---------------------------------------------------------------- judgments


def test_judgments_become_responses_and_verdicts(tmp_path: Path) -> None:
    ec = judged(ec_sample(), ["是", "否"], score=0.7)
    rm = judged(rm_sample(), ["否", "是"], score=1)
    path = write_lines(tmp_path / "model-a.jsonl", [ec, rm])
    items, responses, verdicts = load_fbbench_judgments(path)
    assert [i.id for i in items] == [r.item_id for r in responses]
    assert [(r.model, r.content) for r in responses] == [("model-a", "第二轮回答")] * 2
    assert [(v.check_id, v.passed) for v in verdicts] == [
        ("c1", True),
        ("c2", False),
        ("c1", False),
        ("c2", True),
    ]
    assert {v.judge for v in verdicts} == {"gpt-4o-2024-08-06"}
    assert verdicts[0].reason == "理由：回答是否给出2"
    assert json.loads(verdicts[0].raw or "") == {
        "回答是否给出2": {"评判理由": "理由：回答是否给出2", "评判结果": "是", "weight": 0.7}
    }
    assert stored(responses) == [0.7, 1.0]
    assert all(item.meta.keys() == {"language", "generation"} for item in items)


def test_english_judgement_keys_and_model_from_file_stem(tmp_path: Path) -> None:
    record = judged(rm_sample(), ["否", "是"])
    del record["infer_model"]
    record["judgement"] = {
        text: {"judgement reason": "because", "judgement result": result, "weight": None}
        for text, result in zip(rm_sample()["checklist"], ["yes", "no"], strict=True)
    }
    _, responses, verdicts = load_fbbench_judgments(write_lines(tmp_path / "stem.jsonl", [record]))
    assert responses[0].model == "stem"
    assert [(v.model, v.passed, v.reason) for v in verdicts] == [
        ("stem", True, "because"),
        ("stem", False, "because"),
    ]


def test_failed_judgment_leaves_every_check_unscored(tmp_path: Path) -> None:
    record = judged(ec_sample(), ["是", "是"], score=0)
    record["judgement"] = {"API fialed": "$REPETITIVE PATTERNS$"}
    items, responses, verdicts = load_fbbench_judgments(write_lines(tmp_path / "m.jsonl", [record]))
    assert len(responses) == 1
    assert [v.passed for v in verdicts] == [None, None]
    assert all("$REPETITIVE PATTERNS$" in (v.raw or "") for v in verdicts)
    assert all("$REPETITIVE PATTERNS$" in v.reason for v in verdicts)
    assert stored(responses) == [None]


def test_judgement_keys_are_matched_exactly_then_without_whitespace_then_closest(
    tmp_path: Path,
) -> None:
    sample = ec_sample(
        checklist=[[" 是否给出2", 0.4], ["是否承认错误", 0.3], ["是否解释了进位的规则", 0.3]]
    )
    record = judged(sample, ["是", "否", "是"], score=0.7)
    record["judgement"] = {  # reordered, one key respaced, one misspelt
        "是否解释了进为的规则": {"评判理由": "c", "评判结果": "是", "weight": 0.3},
        "是否承认 错误": {"评判理由": "b", "评判结果": "否", "weight": 0.3},
        " 是否给出2": {"评判理由": "a", "评判结果": "是", "weight": 0.4},
    }
    _, responses, verdicts = load_fbbench_judgments(write_list(tmp_path / "m.json", [record]))
    assert [(v.passed, v.reason) for v in verdicts] == [(True, "a"), (False, "b"), (True, "c")]
    assert "是否解释了进为的规则" in (verdicts[2].raw or "")
    facts = record_facts(responses[0])
    assert facts is not None
    assert facts.rematched == {"c3": "是否解释了进为的规则"}
    assert (facts.unjudged, facts.unmatched, facts.echoed_weights) == ([], {}, {})


def test_missing_entries_count_as_not_met_and_extra_entries_are_kept(tmp_path: Path) -> None:
    sample = ec_sample(checklist=[["是否给出2", 0.4], ["是否承认错误", 0.3], ["是否道歉", 0.3]])
    record = judged(sample, ["是", "否", "是"], score=0.4)
    record["judgement"] = {
        "是否给出2": {"评判理由": "a", "评判结果": "是", "weight": 0.4},
        "完全无关的一条": {"评判理由": "x", "评判结果": "否", "weight": 0.3},
    }
    loaded = load_fbbench_judgments(write_list(tmp_path / "m.json", [record]))
    assert [(v.passed, v.reason, v.raw) for v in loaded.verdicts[1:]] == [
        (False, UNJUDGED_REASON, None),
        (False, UNJUDGED_REASON, None),
    ]
    facts = record_facts(loaded.responses[0])
    assert facts is not None and facts.unjudged == ["c2", "c3"]
    assert facts.unmatched == {"完全无关的一条": record["judgement"]["完全无关的一条"]}
    summary = loaded.summary
    assert (summary.unjudged, summary.unmatched, summary.matched["exact"]) == (2, 1, 1)
    assert "2 checks without an entry" in summary.matching_line()


def test_a_rewritten_key_left_alone_is_matched_by_position(tmp_path: Path) -> None:
    sample = rm_sample(checklist=["是否坚持地球是球体", "如果没有坚持，是否解释了平地说的错误"])
    record = judged(sample, ["否", "是"], score=1)
    record["judgement"] = {
        "是否坚持地球是球体": {"评判理由": "a", "评判结果": "否", "weight": None},
        "回答有没有说明为什么那种说法不对": {"评判理由": "b", "评判结果": "是", "weight": 0.5},
    }
    _, responses, verdicts = load_fbbench_judgments(write_list(tmp_path / "m.json", [record]))
    assert [v.passed for v in verdicts] == [False, True]
    facts = record_facts(responses[0])
    assert facts is not None
    assert facts.rematched == {"c2": "回答有没有说明为什么那种说法不对"}
    assert facts.echoed_weights == {"c2": 0.5}  # RM checks have no weight; this echo had one


def test_unrecognised_result_is_unscored_not_guessed(tmp_path: Path) -> None:
    record = judged(rm_sample(), ["部分满足", "否"])
    _, _, verdicts = load_fbbench_judgments(write_lines(tmp_path / "m.jsonl", [record]))
    assert [v.passed for v in verdicts] == [None, False]


MALFORMED_JUDGMENTS = [
    ({"judge_model": None}, "judge_model"),
    ({"second_response": 5}, "second_response"),
    ({"score": "0.5"}, "score"),
    ({"score": 1.5}, "score"),
    ({"judgement": []}, "judgement"),
    ({"judgement": {"是否坚持地球是球体": "是"}}, "judgement.是否坚持地球是球体"),
    ({"judgement": {"是否坚持地球是球体": {"评判理由": "x"}}}, "judgement.是否坚持地球是球体"),
]


@pytest.mark.parametrize(("change", "field"), MALFORMED_JUDGMENTS)
def test_malformed_judgment_names_line_and_field(
    tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    good = judged(ec_sample(), ["是", "是"], score=1.0)
    bad = judged(rm_sample(), ["是", "否"], **change)
    path = write_lines(tmp_path / "m.jsonl", [good, bad])
    with pytest.raises(InputError) as error:
        load_fbbench_judgments(path)
    assert (error.value.line, error.value.field) == (2, field)


def test_judgment_dir_merges_models(tmp_path: Path) -> None:
    directory = tmp_path / "gpt-4o"
    directory.mkdir()
    write_lines(directory / "a.jsonl", [judged(ec_sample(), ["是", "是"], score=1.0)])
    write_lines(
        directory / "b.jsonl",
        [
            judged(ec_sample(), ["否", "是"], infer_model="model-b", score=0.3),
            judged(rm_sample(), ["否", "否"], infer_model="model-b"),
        ],
    )
    loaded = load_fbbench_judgment_dir(directory)
    items, responses, verdicts = loaded
    assert len(items) == 2
    assert [(r.model, r.item_id) for r in responses] == [
        ("model-a", items[0].id),
        ("model-b", items[0].id),
        ("model-b", items[1].id),
    ]
    assert stored(responses) == [1.0, 0.3, 0.0]
    assert len(verdicts) == 6
    assert (loaded.summary.files, loaded.summary.records, loaded.summary.samples) == (2, 3, 2)
    assert loaded.summary.differences_line() == "no sample differs between files"


def _two_versions(tmp_path: Path, first: dict[str, Any], second: dict[str, Any]) -> Path:
    directory = tmp_path / "judgments"
    directory.mkdir()
    write_lines(directory / "a.jsonl", [judged(first, ["是"] * len(first["checklist"]))])
    results = ["是"] + ["否"] * (len(second["checklist"]) - 1)
    write_lines(directory / "b.jsonl", [judged(second, results, infer_model="model-b")])
    return directory


def test_versions_differing_in_whitespace_or_wording_are_one_sample(tmp_path: Path) -> None:
    second = ec_sample(
        "1+1 等于几？",
        origin_first_response="等于 3。\n",
        feedback="你算错了。 ",
        checklist=[["回答是否给出 2", 0.7], ["回答是否承认了自己的错误", 0.3]],
        reference_second_response="抱歉，1+1 的结果是2。",
    )
    loaded = load_fbbench_judgment_dir(_two_versions(tmp_path, ec_sample(), second))
    [item] = loaded.items
    assert item.messages[1].content == "等于3。"  # the first version read is kept
    assert [v.passed for v in loaded.verdicts] == [True, True, True, False]
    first_facts, second_facts = (record_facts(r) for r in loaded.responses)
    assert first_facts is not None and first_facts.versions == {}
    assert second_facts is not None and second_facts.versions == {
        "checklist": [["回答是否给出 2", 0.7], ["回答是否承认了自己的错误", 0.3]],
        "reference_second_response": "抱歉，1+1 的结果是2。",
    }
    summary = loaded.summary
    assert summary.differing_samples == 1
    assert summary.whitespace == {"user_query": 1, "origin_first_response": 1, "feedback": 1}
    assert summary.wording == {"checklist": 1, "reference_second_response": 1}
    assert summary.differences_line() == (
        "1 sample differs between files: whitespace in feedback (1), origin_first_response (1), "
        "user_query (1); wording in checklist (1), reference_second_response (1) (each file's "
        "wording kept with its responses)"
    )


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"checklist": [["回答是否给出2", 0.5], ["回答是否承认错误", 0.5]]}, "checklist"),
        ({"checklist": [["回答是否给出2", 1.0]]}, "checklist"),
        ({"task_type": "Reasoning"}, "task_type"),
        ({"feedback_type": ["Pointing Out Errors"]}, "feedback_type"),
        ({"origin_first_response": "等于4。"}, "origin_first_response"),
    ],
)
def test_different_samples_under_one_identity_are_an_error(
    tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    directory = _two_versions(tmp_path, ec_sample(), ec_sample(**change))
    with pytest.raises(InputError) as error:
        load_fbbench_judgment_dir(directory)
    assert (Path(error.value.path or "").name, error.value.line) == ("b.jsonl", 1)
    assert error.value.field == field
    assert "a.jsonl:1" in error.value.message


def test_known_items_are_the_reference_version(tmp_path: Path) -> None:
    directory = tmp_path / "judgments"
    directory.mkdir()
    [known] = load_fbbench(write_list(tmp_path / "fb.json", [ec_sample()]))
    spaced = ec_sample(origin_first_response="等于 3。")
    write_lines(directory / "m.jsonl", [judged(spaced, ["是", "是"], score=1.0)])
    loaded = load_fbbench_judgment_dir(directory, known=[known])
    assert loaded.items == [known]
    assert loaded.summary.whitespace == {"origin_first_response": 1}
    write_lines(directory / "m.jsonl", [judged(ec_sample(task_type="Coding"), ["是", "是"])])
    with pytest.raises(InputError, match="differs from the same sample at the run"):
        load_fbbench_judgment_dir(directory, known=[known])


def test_duplicate_judgment_of_a_sample_is_rejected(tmp_path: Path) -> None:
    record = judged(ec_sample(), ["是", "是"], score=1.0)
    path = write_lines(tmp_path / "m.jsonl", [record, judged(rm_sample(), ["是", "是"]), record])
    with pytest.raises(InputError) as error:
        load_fbbench_judgments(path)
    assert (error.value.line, error.value.field) == (3, "user_query")


def test_judgment_dir_without_files_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no .jsonl"):
        load_fbbench_judgment_dir(tmp_path)
    with pytest.raises(InputError, match="directory not found"):
        load_fbbench_judgment_dir(tmp_path / "absent")


# ---------------------------------------------------------------- the real dataset


@pytest.mark.skipif(not DATASET.exists(), reason="FB-Bench dataset not available")
def test_real_dataset_loads(tmp_path: Path) -> None:
    items = load_fbbench(DATASET)
    assert len(items) == 591
    scenarios = [item.tag("scenario")[0] for item in items]
    assert (scenarios.count("EC"), scenarios.count("RM")) == (281, 310)
    assert len({item.id for item in items}) == 591
    assert len({(i.tag("scenario")[0], i.tag("task")[0]) for i in items}) == 16
    assert len({item.tag("subtask")[0] for item in items}) == 24
    records = json.loads(DATASET.read_text(encoding="utf-8"))
    as_lines = load_fbbench(write_lines(tmp_path / "fb.jsonl", records))
    assert [item.id for item in as_lines] == [item.id for item in items]


def test_generation_temperature_follows_the_task() -> None:
    from checkbench.fbbench.dataset import generation_hints

    temperatures = {
        task: generation_hints(task)["temperature"]
        for task in ("Text Creation", "Text Translation", "Knowledge Q&A", "Coding", "Mathematics")
    }
    assert temperatures == {
        "Text Creation": 0.7,
        "Text Translation": 0.7,
        "Knowledge Q&A": 0.1,
        "Coding": 0.0,
        "Mathematics": 0.0,
    }
