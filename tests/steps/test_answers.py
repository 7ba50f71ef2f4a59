"""The model-step kit's answers: every answer a stage asks for is a plain, bounded schema that
llama.cpp's grammar conversion takes, and replies are read as before (fences and chatter
around the JSON, case and blanks in choices, stray properties) with short readable problems."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llama_cpp.llama_grammar import json_schema_to_gbnf

from checkbench.convbench.checklist import checklist_answer
from checkbench.convbench.curate import draft_answer
from checkbench.convbench.domain import DomainAnswer
from checkbench.convbench.feedback import FeedbackAnswer
from checkbench.convbench.instruction import QualityAnswer, instruction_answer
from checkbench.convbench.settings import ConvBenchSettings
from checkbench.judges.checklist import verdicts_answer
from checkbench.judges.pairwise import PairAnswer
from checkbench.scan.builder.decisions import insert_answer, refine_answer, tags_answer
from checkbench.scan.pc2 import PC2Settings, criteria_answer
from checkbench.scan.pc2.grading import BETTER, POINTS, grade_answer
from checkbench.scan.realmix import quality_answer, query_answer
from checkbench.scan.tagging import domain_answer, paths_answer
from checkbench.steps.answers import (
    Answer,
    Unusable,
    YesNo,
    answer_model,
    answer_schema,
    choice,
    extract_json,
    listing,
    parse_answer,
    repair_latex,
    text,
)

ANSWERS: dict[str, type[Answer]] = {
    "checklist judge": verdicts_answer(("c1", "json", "check 3")),
    "pairwise judge": PairAnswer,
    "pc2 criteria": criteria_answer(PC2Settings()),
    "pc2 points": grade_answer(("k1", "k2"), "score", tuple(POINTS), 160),
    "pc2 better": grade_answer(("k1", "k2"), "better", BETTER, 160),
    "build domain": DomainAnswer,
    "build instruction": instruction_answer(1200),
    "build quality": QualityAnswer,
    "build feedback": FeedbackAnswer,
    "build checklist": checklist_answer(("instruction", "feedback:3"), ConvBenchSettings()),
    "build draft": draft_answer(ConvBenchSettings()),
    "taxbuilder tags": tags_answer(3, 40, 160, "how do I sort a list in Python?"),
    "taxbuilder insert": insert_answer(("exists", "add here", "testing"), 200),
    "taxbuilder refine": refine_answer(("testing", "debugging"), 200, 40, 160),
    "tagging domain": domain_answer(160),
    "tagging paths": paths_answer(("coding/debugging", "coding/testing"), 4, 160),
    "realmix query": query_answer(300, 800),
    "realmix quality": quality_answer(160),
}


def _schemas(node: Any) -> list[dict[str, Any]]:
    """Every (sub)schema of a schema, the properties' names aside."""
    if isinstance(node, list):
        return [found for part in node for found in _schemas(part)]
    if not isinstance(node, dict):
        return []
    found = [node]
    for key, value in node.items():
        parts = list(value.values()) if key == "properties" else [value]
        found += [sub for part in parts for sub in _schemas(part)]
    return found


@pytest.mark.parametrize("name", list(ANSWERS))
def test_every_answer_is_a_plain_bounded_schema_llama_cpp_converts(name: str) -> None:
    schema = answer_schema(ANSWERS[name])
    for node in _schemas(schema):
        assert not {"$ref", "$defs", "title", "description", "default", "oneOf"} & set(node)
        if node.get("type") == "object":
            assert node["additionalProperties"] is False
            assert node["required"] == list(node["properties"])
        if node.get("type") == "string" and "enum" not in node:
            assert node["maxLength"] <= 1200
        if node.get("type") == "array":
            assert "maxItems" in node
    assert "root ::=" in json_schema_to_gbnf(json.dumps(schema))


def test_ids_that_clash_with_pydantic_names_are_plain_properties() -> None:
    schema = answer_schema(ANSWERS["checklist judge"])
    assert list(schema["properties"]) == ["c1", "json", "check 3"]
    verdict = {"reason": "r", "verdict": "yes"}
    answer = parse_answer(
        json.dumps(dict.fromkeys(["c1", "json", "check 3"], verdict)), ANSWERS["checklist judge"]
    )
    assert list(answer.entries()) == ["c1", "json", "check 3"]


Sample = answer_model(
    "Sample",
    reason=(text(20), ""),
    pick=choice(("Alpha", "beta")),
    points=choice(range(3)),
    verdict=YesNo,
    names=listing(text(5, min_chars=1), min_items=1, max_items=2),
)


def _reply(**fields: Any) -> str:
    sample = {"reason": "ok", "pick": "Alpha", "points": 2, "verdict": "yes", "names": ["a"]}
    return json.dumps({**sample, **fields})


def test_replies_are_read_through_fences_chatter_case_and_stray_properties() -> None:
    raw = "Sure!\n```json\n" + _reply(pick="  ALPHA ", verdict="是", extra="ignored") + "\n```"
    answer = parse_answer(raw, Sample)
    assert (answer.pick, answer.verdict, answer.points) == ("Alpha", "yes", 2)
    assert not hasattr(answer, "extra")
    without_reason = json.loads(_reply())
    del without_reason["reason"]
    assert parse_answer(json.dumps(without_reason), Sample).reason == ""
    assert parse_answer(_reply(verdict=False), Sample).verdict == "no"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"points": True}, "'points' must be one of 0, 1 or 2, not \"true\""),
        ({"points": "2"}, "'points' must be one of 0, 1 or 2"),
        ({"pick": "gamma"}, "'pick' must be one of 'Alpha' or 'beta', not \"gamma\""),
        ({"verdict": "maybe"}, "'verdict' must be one of 'yes' or 'no'"),
        ({"names": []}, "'names' needs at least 1 entries, not 0"),
        ({"names": ["a", "b", "c"]}, "'names' allows at most 2 entries, not 3"),
        ({"names": ["toolong"]}, "'names[0]': String should have at most 5 characters"),
        ({"names": ["  "]}, "'names[0]' must not be empty"),
        ({"names": "a"}, "'names' must be a list"),
        ({"verdict": None, "pick": None}, "'pick' must be one of"),
    ],
)
def test_problems_name_the_place_and_what_is_wrong(fields: dict[str, Any], problem: str) -> None:
    with pytest.raises(Unusable) as caught:
        parse_answer(_reply(**fields), Sample)
    assert problem in str(caught.value)
    assert "pydantic" not in str(caught.value) and "\n" not in str(caught.value)


def test_a_reply_that_is_no_usable_json_says_so() -> None:
    for raw, problem in [
        ("no braces", "no JSON object found"),
        ('{"pick": "Alpha"', "the JSON is incomplete"),
        ('{"pick": Alpha}', "invalid JSON"),
        ('["Alpha"]', "expected a JSON object"),
    ]:
        with pytest.raises(Unusable, match=problem):
            parse_answer(raw, Sample)


def test_many_problems_are_cut_to_the_first_three() -> None:
    with pytest.raises(Unusable) as caught:
        parse_answer("{}", Sample)
    message = str(caught.value)
    assert message.count("is missing") == 3 and message.endswith("(and 1 more)")


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        (r"\frac{1}{2}", r"\frac{1}{2}"),
        (r"\beta + \nu", r"\beta + \nu"),
        (r"\text{km} \right)", r"\text{km} \right)"),
        (r"\alpha \sqrt{x} \underline{y}", r"\alpha \sqrt{x} \underline{y}"),
        (r"line one\nThe next\tcell", "line one\nThe next\tcell"),
        (r"say \"hi\" \\ \u00e9 a\/b", 'say "hi" \\ \u00e9 a/b'),
    ],
)
def test_latex_in_model_json_is_repaired_and_real_escapes_kept(written: str, meant: str) -> None:
    raw = '{"text": "' + written + '"}'
    assert json.loads(repair_latex(raw))["text"] == meant
    assert extract_json(raw)["text"] == meant


def test_an_answer_with_latex_parses_to_what_the_model_wrote() -> None:
    Text = answer_model("Text", text=text(80))
    assert parse_answer(r'{"text": "\frac{a}{b} = \beta"}', Text).text == r"\frac{a}{b} = \beta"
