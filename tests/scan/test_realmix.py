"""RealMix: scripted rounds (provenance, quality filter, duplicates, stopping), and one round on
the embedded model through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkbench.errors import InputError
from checkbench.jsonl import read_models
from checkbench.scan.paths import lineage
from checkbench.scan.realmix import META_KEY, MixResult, MixSettings, realmix
from checkbench.scan.realmix import RECORD_KIND as REALMIX
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
            children=[Node(name="debugging"), Node(name="code generation")],
        ),
        Node(
            name="writing",
            children=[Node(name="poetry"), Node(name="email", description="Messages to people.")],
        ),
    ],
)
TAGGED = {
    "q1": ("Write a Python function that reverses a linked list.", "coding/code generation"),
    "q2": ("Why does my fetch call return undefined?", "coding/debugging"),
    "q3": ("Write a short poem about autumn rain.", "writing/poetry"),
    "q4": ("Help me with some writing for work.", "writing"),
}
NEW_QUERY = "Write an email to my landlord about the broken heater, polite but firm."


def _items() -> list[Item]:
    return [
        Item(
            id=key,
            messages=[Message(role="user", content=text)],
            tags={"domain": [path.split("/")[0]], "taxonomy": lineage(path)},
        )
        for key, (text, path) in TAGGED.items()
    ]


def _mix(
    script: list[Reply], run_dir: Path, default: Reply | None = None, **settings: int
) -> tuple[MixResult, int, dict]:
    """The result, the number of requests the stub got, and the stored attempt records."""
    mix = MixSettings(**settings)
    fallback = default or Reply(body=completion("unexpected"))
    with OpenAIServer(fallback, script=script) as server, RunStore(run_dir) as store:
        result = run_on_stub(server, lambda b: realmix(store, b, _items(), TINY, settings=mix))
        return result, len(server.requests), store.records(REALMIX)


def test_a_thin_leaf_gets_a_query_with_provenance_and_the_rounds_stop(tmp_path: Path) -> None:
    script = [
        answer({"analysis": "email + rent details", "query": NEW_QUERY}),
        answer({"reason": "clear and realistic", "verdict": "yes"}),
    ]
    result, calls, records = _mix(script, tmp_path, min_per_leaf=1, max_rounds=3)
    assert calls == 2
    (added,) = result.added
    assert added.messages[-1].content == NEW_QUERY
    assert added.tags == {"domain": ["writing"], "taxonomy": ["writing", "writing/email"]}
    provenance = added.meta[META_KEY]
    assert provenance["leaf"] == "writing/email" and provenance["round"] == 0
    assert provenance["reference"] in ("q3", "q4")  # tagged at the nearest tagged ancestor
    assert len(provenance["details"]) == 3 and provenance["reference"] not in provenance["details"]
    assert provenance["quality"] == "clear and realistic"
    assert [item.id for item in result.items] == [*TAGGED, added.id]
    report = result.report
    assert (report.rounds, report.short_before, report.short_after) == (1, 1, [])
    assert records["writing/email#0.0"]["outcome"] == "accepted"


def test_a_round_that_accepts_nothing_ends_the_synthesis(tmp_path: Path) -> None:
    duplicate = answer({"analysis": "a", "query": TAGGED["q3"][0].upper()})
    thin = {"analysis": "a", "query": "Write an email.", "reason": "too thin", "verdict": "no"}
    result, calls, records = _mix([duplicate], tmp_path, answer(thin), min_per_leaf=2, max_rounds=5)
    # round 0: one attempt per missing item (1 + 1 + 1 + 2); the duplicate skips its check, and
    # the two email attempts' identical checks are one call (the second is a cache hit)
    assert calls == 1 + 4 + 3
    assert result.added == [] and [item.id for item in result.items] == list(TAGGED)
    report = result.report
    assert report.rounds == 1 and report.outcomes == {"duplicate": 1, "rejected": 4}
    assert set(report.short_after) == set(TINY.leaves())
    assert records["coding/debugging#0.0"]["outcome"] == "duplicate"
    assert records["writing/email#0.1"]["quality"] == {"verdict": "no", "reason": "too thin"}


def test_unusable_answers_are_failures_and_leaves_without_reference_are_reported(
    tmp_path: Path,
) -> None:
    with_orphan = TINY.add_child("", "mathematics").add_child("mathematics", "algebra")
    with OpenAIServer(Reply(body=completion('{"analysis": "a", "query": "  "}'))) as server:
        settings = MixSettings(min_per_leaf=1, reasks=1)
        with RunStore(tmp_path) as store:
            result = run_on_stub(
                server, lambda b: realmix(store, b, _items(), with_orphan, settings=settings)
            )
        assert len(server.requests) == 2  # one attempt (writing/email), asked twice
    assert result.report.no_reference == ["mathematics/algebra"]
    assert result.report.outcomes == {"failed": 1}
    assert result.summary.errors == 1


def test_tags_must_be_paths_of_the_taxonomy(tmp_path: Path) -> None:
    items = _items()
    items[0].tags["taxonomy"] = ["coding/compilers"]
    with (
        OpenAIServer(CANNED) as server,
        RunStore(tmp_path) as store,
        pytest.raises(InputError, match="coding/compilers"),
    ):
        run_on_stub(server, lambda b: realmix(store, b, items, TINY))


@pytest.mark.slow
def test_synthesize_command_runs_one_round_on_the_embedded_model(tmp_path: Path) -> None:
    tagged, tax, more = tmp_path / "tagged.jsonl", tmp_path / "tiny.json", tmp_path / "more.jsonl"
    tagged.write_text("".join(item.model_dump_json() + "\n" for item in _items()))
    save_taxonomy(TINY, tax)
    result = run_cli(
        "scan", "synthesize", str(tagged), "--taxonomy", str(tax), "--min-per-leaf", "1",
        "--out", str(tmp_path / "run"), "--bench-out", str(more), "--max-rounds", "1",
        "--query-chars", "80",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    items = read_models(more, Item)
    assert [item.id for item in items[:4]] == list(TAGGED)
    for item in items[4:]:
        assert item.meta[META_KEY]["leaf"] == "writing/email"
        assert item.tags["taxonomy"] == ["writing", "writing/email"]
    with RunStore(tmp_path / "run") as store:
        (record,) = store.records(REALMIX).values()
    assert record["outcome"] in ("accepted", "rejected", "duplicate", "failed")
    assert (record["outcome"] == "accepted") == (len(items) == 5)
