"""TaxBuilder's guards against a model that answers badly on purpose (a scripted local server):
fragment tags are refused and re-asked, insertion stops at the depth limit, the insertion prompt
shows the node's siblings, and every failure is counted per step and cause."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench.scan.builder import TaxBuilderSettings, TaxBuildResult, build_taxonomy
from checkbench.scan.builder.names import NOT_A_NAME, capability_name, not_copied
from checkbench.scan.tree import Node, Taxonomy
from checkbench.schema import Item, Message
from checkbench.store import RunStore
from checkbench.testing import OpenAIServer, Reply, completion
from tests.scan.scan_stub import answer, run_on_stub

QUERY = Item(
    id="q1",
    messages=[
        Message(role="user", content="Kannst du mysettings.json reparieren? Excel öffnet nicht.")
    ],
)
# a/b/c/d is four levels deep; b has a sibling b2, c a sibling c2
SEED = Taxonomy(
    name="seed",
    domains=[
        Node(
            name="a",
            description="Level one.",
            children=[
                Node(
                    name="b",
                    description="Level two.",
                    children=[
                        Node(name="c", description="Level three.", children=[Node(name="d")]),
                        Node(name="c2", description="Another level three."),
                    ],
                ),
                Node(name="b2", description="Another level two."),
            ],
        )
    ],
)
UNEXPECTED = Reply(body=completion("unexpected"))


def _build(server: OpenAIServer, run_dir: Path, **settings: object) -> TaxBuildResult:
    chosen = TaxBuilderSettings(max_tags=1, reasks=2, refine=False, **settings)  # type: ignore[arg-type]
    with RunStore(run_dir) as store:
        return run_on_stub(
            server, lambda b: build_taxonomy(store, b, [QUERY], seed=SEED, settings=chosen)
        )


def _tags(*names: str) -> list[Reply]:
    return [answer({"tags": [{"name": name, "description": "d"}]}) for name in names]


def _pick(*choices: str) -> list[Reply]:
    return [answer({"reason": "r", "choice": choice}) for choice in choices]


def _last_user(request: dict) -> str:
    return request["messages"][-1]["content"]


def test_fragment_tags_are_refused_and_reasked_with_the_reason(tmp_path: Path) -> None:
    script = [*_tags("mysettings.json", "kannst du", "settings file repair"), *_pick("a", "exists")]
    with OpenAIServer(UNEXPECTED, script=script) as server:
        result = _build(server, tmp_path)
        requests = list(server.requests)
    assert len(requests) == len(script)
    assert "file name" in _last_user(requests[1]) and NOT_A_NAME in _last_user(requests[1])
    assert "copies words of the request" in _last_user(requests[2])
    assert result.report.calls["tag"] == 3 and result.report.failures["tag"] == {}
    assert result.report.insert == {"exists": 1}


def test_a_tag_that_stays_a_fragment_fails_its_extraction_and_is_counted(tmp_path: Path) -> None:
    with OpenAIServer(UNEXPECTED, script=_tags("excel", "1.1.", "a")) as server:
        result = _build(server, tmp_path)
    assert result.report.extraction_failed == 1 and result.report.tags == 0
    assert result.report.failures["tag"] == {NOT_A_NAME: 1}
    assert result.summary.errors == 1


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("config.json", "file name"),
        ("src/main", "contains '/'"),
        ("print_line()", "file name"),
        ("2024", "short phrase of words"),
        ("q", "short phrase of words"),
        ("one two three four five six seven", "at most 6 words"),
    ],
)
def test_names_must_be_short_phrases_of_plain_words(raw: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        capability_name(raw)


def test_plain_names_pass_and_copies_of_the_query_do_not() -> None:
    assert capability_name("  C++   Template  Metaprogramming ") == "c++ template metaprogramming"
    assert capability_name("错别字检测") == "错别字检测"
    assert capability_name("list_deduplication") == "list deduplication"
    assert not_copied("spreadsheet formulas", QUERY.messages[0].content) == "spreadsheet formulas"
    for copy in ("excel öffnet", "Öffnet-Nicht", "mysettingsjson"):
        with pytest.raises(ValueError, match="copies words"):
            not_copied(copy, QUERY.messages[0].content)


def test_insertion_stops_at_the_depth_limit_and_shows_the_siblings(tmp_path: Path) -> None:
    # The model descends as far as it can, then tries "add here" at a/b/c/d (level 4, the
    # limit), which is no choice there; re-asked, it adds the tag beside d.
    script = [*_tags("settings file repair"), *_pick("a", "b", "c", "d", "add here", "add beside")]
    with OpenAIServer(UNEXPECTED, script=script) as server:
        result = _build(server, tmp_path, max_depth=4)
        requests = list(server.requests)
    assert len(requests) == len(script)
    enums = [r["response_format"]["json_schema"]["schema"]["properties"]["choice"]["enum"]
             for r in requests[1:]]  # fmt: skip
    assert enums[0] == ["a"]
    assert enums[1] == ["exists", "add here", "b", "b2"]  # a domain: nothing beside it to add
    assert enums[2] == ["exists", "add here", "add beside", "c", "c2"]
    assert enums[4] == enums[5] == ["exists", "add beside"]
    at_b = _last_user(requests[3])
    assert "Beside it, at the same level" in at_b and "b2: Another level two." in at_b
    assert "c2: Another level three." in at_b  # its children
    assert "as deep as the taxonomy goes" in _last_user(requests[5])
    assert "must be one of" in _last_user(requests[6])
    assert result.unpruned.has("a/b/c/settings file repair")
    assert result.report.depth_before_pruning == 4
    assert result.report.calls["insert"] == 6 and result.report.insert == {"added": 1}


def test_a_shallower_limit_offers_no_level_below_it(tmp_path: Path) -> None:
    script = [*_tags("settings file repair"), *_pick("a", "b", "exists")]
    with OpenAIServer(UNEXPECTED, script=script) as server:
        _build(server, tmp_path, max_depth=2)
        requests = list(server.requests)
    enum = requests[-1]["response_format"]["json_schema"]["schema"]["properties"]["choice"]
    assert enum["enum"] == ["exists", "add beside"]  # neither "add here" nor c, c2


def test_invalid_json_and_refusals_are_counted_per_step_and_cause(tmp_path: Path) -> None:
    broken = Reply(body=completion('{"reason": "the answer was cut off befo'))
    deeper = {"action": "reparent", "node": "b", "under": "b2"}  # a/b2/b/c/d: 5 levels
    script = [
        *_tags("settings file repair"),
        *_pick("a"),
        broken, broken, broken,
        answer({"reason": "r", "decision": deeper}),
        answer({"reason": "r", "decision": {"action": "keep"}}),
    ]  # fmt: skip
    with OpenAIServer(UNEXPECTED, script=script) as server, RunStore(tmp_path) as store:
        settings = TaxBuilderSettings(max_tags=1, reasks=2, max_depth=4)
        result = run_on_stub(
            server, lambda b: build_taxonomy(store, b, [QUERY], seed=SEED, settings=settings)
        )
    report = result.report
    assert report.failures == {
        "tag": {},
        "insert": {"invalid JSON": 1},
        "refine": {"refused by the tree": 1},
    }
    assert report.insert == {"failed": 1} and report.refine == {"rejected": 1, "kept": 1}
    assert report.calls == {"tag": 1, "insert": 4, "refine": 2}
    assert result.unpruned.has("a/b/c/d")  # the reparent was not applied
