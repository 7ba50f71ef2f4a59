"""Tagging: scripted answers pin down the written tags (closure over ancestors, "other", unknown
domains, failures counted), and the embedded model tags a tiny benchmark end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench.jsonl import read_models
from checkbench.scan.domains import DOMAINS, OTHER
from checkbench.scan.paths import lineage
from checkbench.scan.tagging import META_KEY, TagSettings, closure, tag_items
from checkbench.scan.tagging import RECORD_KIND as TAGGING
from checkbench.scan.tree import Node, Taxonomy, save_taxonomy
from checkbench.schema import Item, Message
from checkbench.store import RunStore
from checkbench.testing import CANNED, OpenAIServer, Reply, completion
from tests.conftest import run_cli
from tests.scan.scan_stub import answer, run_on_stub

TINY = Taxonomy(
    name="tiny",
    domains=[
        Node(
            name="coding",
            description="Programming.",
            children=[
                Node(
                    name="debugging",
                    description="Finding and fixing bugs.",
                    children=[Node(name="memory errors", description="Leaks and overflows.")],
                ),
                Node(name="code generation", description="Writing new code."),
            ],
        ),
        Node(
            name="writing",
            description="Producing text.",
            children=[
                Node(name="poetry", description="Verse."),
                Node(name="email", description="Messages to people."),
            ],
        ),
        Node(name="mathematics", description="Maths, no sub-capabilities yet."),
    ],
)


def _items(*texts: str) -> list[Item]:
    return [
        Item(id=f"q{i}", messages=[Message(role="user", content=text)], tags={"task": ["t"]})
        for i, text in enumerate(texts)
    ]


def test_closure_adds_every_ancestor_once_in_taxonomy_order() -> None:
    paths = closure(TINY, ["writing/email", "coding/debugging/memory errors", "coding/debugging"])
    assert paths == [
        "coding",
        "coding/debugging",
        "coding/debugging/memory errors",
        "writing",
        "writing/email",
    ]


def test_scripted_tagging_writes_domains_and_closed_paths(tmp_path: Path) -> None:
    items = _items("leak in my C code", "a note to my landlord", "be a pirate", "2+2", "???")
    items[0].tags["taxonomy"] = ["stale/tag"]
    script = [
        answer({"reason": "r", "domain": "coding"}),
        answer({"reason": "r", "tags": ["coding/debugging"]}),  # one level at a time
        answer({"reason": "r", "tags": ["coding/debugging/memory errors"]}),
        answer({"reason": "r", "domain": "writing"}),
        answer({"reason": "r", "tags": ["writing/letters"]}),  # unknown path: re-asked
        answer({"reason": "r", "tags": [OTHER]}),
        answer({"reason": "r", "domain": "roleplay"}),  # not in the taxonomy: no second call
        answer({"reason": "r", "domain": "mathematics"}),  # a leaf domain: no second call
        *[Reply(body=completion("I cannot decide"))] * 3,
    ]
    with (
        OpenAIServer(Reply(body=completion("unexpected")), script=script) as server,
        RunStore(tmp_path) as store,
    ):
        settings = TagSettings(reasks=2)
        result = run_on_stub(server, lambda b: tag_items(store, b, items, TINY, settings=settings))
        requests = list(server.requests)
        records = store.records(TAGGING)
    assert len(requests) == len(script)
    leak, note, pirate, sums, unknown = result.items
    assert leak.tags == {
        "task": ["t"],
        "domain": ["coding"],
        "taxonomy": lineage("coding/debugging/memory errors"),
    }
    assert note.tags["taxonomy"] == ["writing"] and records["q1"]["chosen"] == [OTHER]
    assert "'tags[0]' must be one of" in requests[5]["messages"][-1]["content"]
    assert pirate.tags["domain"] == ["roleplay"] and pirate.tags["taxonomy"] == []
    assert sums.tags["taxonomy"] == ["mathematics"]
    assert "domain" not in unknown.tags and "taxonomy" not in unknown.tags
    assert unknown.meta[META_KEY]["problem"] is not None and records["q4"]["step"] == "domain"
    report = result.report
    assert (report.items, report.tagged, report.nothing_fits) == (5, 4, 1)
    assert (report.domain_failed, report.tags_failed) == (1, 0)
    assert report.domains == {"coding": 1, "writing": 1, "roleplay": 1, "mathematics": 1}
    tag_enum = requests[1]["response_format"]["json_schema"]["schema"]["properties"]["tags"]
    assert tag_enum["items"]["enum"] == ["coding/debugging", "coding/code generation", OTHER]
    deeper = requests[2]["response_format"]["json_schema"]["schema"]["properties"]["tags"]
    assert deeper["items"]["enum"] == ["coding/debugging/memory errors", OTHER]
    assert records["q0"]["levels"] == [["coding/debugging"], ["coding/debugging/memory errors"]]


def test_an_other_node_in_the_taxonomy_takes_items_of_missing_domains(tmp_path: Path) -> None:
    with_other = TINY.add_child("", OTHER, "Everything else.")
    script = [answer({"reason": "r", "domain": "reasoning"})]
    with OpenAIServer(CANNED, script=script) as server, RunStore(tmp_path) as store:
        result = run_on_stub(server, lambda b: tag_items(store, b, _items("riddle"), with_other))
    assert result.items[0].tags["taxonomy"] == [OTHER]


@pytest.mark.slow
def test_tag_command_on_the_embedded_model(tmp_path: Path) -> None:
    bench, tax, out = tmp_path / "bench.jsonl", tmp_path / "tiny.json", tmp_path / "tagged.jsonl"
    save_taxonomy(TINY, tax)
    texts = ["My C program leaks memory, why?", "Write a short poem about the sea."]
    bench.write_text("".join(item.model_dump_json() + "\n" for item in _items(*texts)))
    result = run_cli(
        "scan", "tag", str(bench), "--taxonomy", str(tax), "--out", str(tmp_path / "run"),
        "--bench-out", str(out), "--max-tags", "1", "--reason-chars", "20",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    tagged = read_models(out, Item)
    assert [item.id for item in tagged] == ["q0", "q1"]
    paths = set(TINY.paths())
    for item in tagged:
        assert item.tags["task"] == ["t"]
        if item.meta[META_KEY]["problem"] is not None:
            continue
        (domain,) = item.tags["domain"]
        assert domain in DOMAINS
        tags = item.tags["taxonomy"]
        assert set(tags) <= paths and closure(TINY, tags) == tags
        assert all(lineage(path)[0] == domain for path in tags)
    assert "items tagged" in result.stdout


def _conversation(*turns: str) -> Item:
    roles = ["user", "assistant"] * len(turns)
    messages = [Message(role=r, content=t) for r, t in zip(roles, turns, strict=False)]
    return Item(id="fb", messages=messages)


FEEDBACK = _conversation(
    "Fix this Python function: def f(x): return x +", "Done.", "你回答的不对。"
)


@pytest.mark.parametrize("turns", ["first", "all"])
def test_an_item_is_tagged_by_its_task_not_by_the_feedback_after_it(
    tmp_path: Path, turns: str
) -> None:
    script = [
        answer({"reason": "r", "domain": "coding"}),
        answer({"reason": "r", "tags": ["coding/code generation"]}),
    ]
    with OpenAIServer(CANNED, script=script) as server, RunStore(tmp_path) as store:
        settings = TagSettings(turns=turns)  # type: ignore[arg-type]
        result = run_on_stub(
            server, lambda b: tag_items(store, b, [FEEDBACK], TINY, settings=settings)
        )
        requests = [r["messages"][-1]["content"] for r in server.requests]
    assert result.items[0].tags["taxonomy"] == ["coding", "coding/code generation"]
    for request in requests:
        assert "```request\n" in request and "Fix this Python function" in request
        assert ("你回答的不对" in request) == (turns == "all")
        assert "Done." not in request
    assert ("[user turn 2]" in requests[0]) == (turns == "all")


def test_the_descent_offers_one_level_of_a_tree_with_free_text_names(tmp_path: Path) -> None:
    from checkbench.scan.tree import load_taxonomy
    from tests.scan.test_cli import RELEASED

    tree = load_taxonomy(RELEASED)
    web = "coding/Web Development"
    script = [
        answer({"reason": "r", "domain": "coding"}),
        answer({"reason": "r", "tags": [web]}),
        answer({"reason": "r", "tags": [f"{web}/Frontend"]}),
        answer({"reason": "r", "tags": [f"{web}/Frontend/UI\\/UX Design"]}),
        answer({"reason": "r", "tags": [OTHER]}),  # nothing below UI/UX fits: stop there
    ]
    with OpenAIServer(CANNED, script=script) as server, RunStore(tmp_path) as store:
        item = _items("Make my checkout page accessible")
        result = run_on_stub(server, lambda b: tag_items(store, b, item, tree))
        requests = list(server.requests)
    assert len(requests) == len(script)
    enums = [
        r["response_format"]["json_schema"]["schema"]["properties"]["tags"]["items"]["enum"]
        for r in requests[1:]
    ]
    assert enums[0] == [web, "coding/Debugging", OTHER]
    assert enums[3] == [
        f"{web}/Frontend/UI\\/UX Design/Accessibility",
        f"{web}/Frontend/UI\\/UX Design/Other",
        OTHER,
    ]
    assert result.items[0].tags["taxonomy"] == lineage(f"{web}/Frontend/UI\\/UX Design")
    assert "Contract" not in requests[1]["messages"][-1]["content"]
