"""Runs read and written in batches: group commits, lazy pools, a store walked in batches,
scores read in columns equal to scores from objects, and large reports that embed no items."""

from __future__ import annotations

import asyncio
import json
import random
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from checkbench.api import prepare_run
from checkbench.errors import InputError
from checkbench.fbbench.scoring import fbbench_leaderboard, is_fbbench_store, store_leaderboard
from checkbench.report.assemble import build_report, write_report
from checkbench.report.page import read_page
from checkbench.report.run import ReportOptions
from checkbench.schema import Check, Item, Message, Response, Verdict
from checkbench.scoring import score_responses, store_scores
from checkbench.steps.pool import run_pool
from checkbench.store import RecordKind, RunStore

JUDGE = "j"
MODELS = ("m-a", "m-b", "m-c")
CHROMIUM = Path("/usr/bin/chromium")

COUNT = RecordKind("test_streaming.count", int)


def _item(i: int) -> Item:
    """FB-Bench-tagged items; EC weights that do not add up exactly in binary, multi-valued
    and repeated facet values, an item without deficiency."""
    ec = i % 3 != 2
    weights = [0.1, 0.2, 0.3, 0.4] if i % 2 else [0.7, 0.3]
    return Item(
        id=f"{'ec' if ec else 'rm'}-{i}",
        messages=[Message(role="user", content=f"Question {i} ÄÖÜ")],
        checklist=[
            Check(id=f"c{k}", text=f"check {k} of {i}", weight=w if ec else None)
            for k, w in enumerate(weights)
        ],
        rule="weighted" if ec else "any",
        tags={
            "scenario": ["EC" if ec else "RM"],
            "task": [["Coding", "Mathematics", "Reasoning"][i % 3]],
            "subtask": [f"sub {i % 4}"],
            "feedback_type": ["Hint", "Hint"] if i % 5 == 0 else ["Hint", "Question"][: 1 + i % 2],
            "deficiency": [] if i % 4 == 0 else ["Logic"],
        },
    )


def _judged_store(run_dir: Path, n: int) -> RunStore:
    """Three models answer n items (one answer failed); the judge leaves some checks unscored
    or without a verdict, and some responses unjudged."""
    rng = random.Random(7)
    items = [_item(i) for i in range(n)]
    store = RunStore(run_dir)
    store.add_items(items)
    with store.transaction():
        for model in MODELS:
            for item in items:
                failed = model == MODELS[1] and item.id == items[3].id
                store.put_response(
                    Response(
                        item_id=item.id,
                        model=model,
                        content=None if failed else f"answer of {model} to {item.id}",
                        error="boom" if failed else None,
                    )
                )
                if rng.random() < 0.1:
                    continue
                store.put_verdicts(
                    _verdict(item.id, model, check.id, rng)
                    for check in item.checklist
                    if rng.random() > 0.03
                )
    return store


def _verdict(item_id: str, model: str, check_id: str, rng: random.Random) -> Verdict:
    """Unscored ones keep the judge's raw answer; a few scored ones keep another."""
    passed = None if rng.random() < 0.08 else rng.random() < 0.6
    raw = "RAW-ANSWER-Zz" if passed is None else "RAW-SCORED-Qq" if rng.random() < 0.1 else None
    return Verdict(
        item_id=item_id,
        model=model,
        judge=JUDGE,
        check_id=check_id,
        passed=passed,
        reason=f"reason {rng.random():.3f}",
        raw=raw,
    )


@pytest.fixture()
def judged(tmp_path: Path) -> Iterator[RunStore]:
    with _judged_store(tmp_path / "run", 60) as store:
        yield store


# ---------------------------------------------------------------- scores in columns


@pytest.mark.parametrize("policy", ["zero", "exclude"])
def test_leaderboard_read_in_columns_is_the_one_from_objects(judged: RunStore, policy) -> None:
    objects = fbbench_leaderboard(
        judged.items(), judged.responses(), judged.verdicts(JUDGE), policy=policy, b=200
    )
    columns = store_leaderboard(judged, JUDGE, policy=policy, b=200)
    assert columns == objects
    assert len(columns.rows) == len(MODELS) and columns.breakdowns[MODELS[0]]["deficiency"]


def test_item_scores_read_in_columns_are_those_from_objects(judged: RunStore) -> None:
    ids = [item.id for item in judged.items()]
    from_objects = score_responses(judged.items(), judged.responses(), judged.verdicts(JUDGE))
    from_columns = {m: s.as_scores(ids) for m, s in store_scores(judged, JUDGE).items()}
    assert from_columns == from_objects
    assert any(score is None for score in from_columns[MODELS[0]].values())
    assert is_fbbench_store(judged)


# ---------------------------------------------------------------- writes


def _count(path: Path, query: str) -> int:
    with sqlite3.connect(path) as other:
        return other.execute(query).fetchone()[0]


def test_writes_in_an_event_loop_commit_together_and_each_write_is_atomic(tmp_path) -> None:
    store = RunStore(tmp_path)
    records = "SELECT COUNT(*) FROM records"

    def broken() -> Iterator[Verdict]:
        yield Verdict(item_id="x", model="m", judge=JUDGE, check_id="c", passed=True)
        raise ValueError("half way")

    async def work() -> tuple[int, int]:
        store.put_record(COUNT, "a", 1)
        store.put_record(COUNT, "b", 2)
        with pytest.raises(ValueError):
            store.put_verdicts(broken())
        before = _count(store.path, records)
        await store.durable()
        return before, _count(store.path, records)

    assert asyncio.run(work()) == (0, 2)  # nothing visible until the turn of the loop ends
    assert _count(store.path, "SELECT COUNT(*) FROM verdicts") == 0
    store.put_record(COUNT, "c", 3)  # without a loop: at once
    assert _count(store.path, records) == 3
    store.close()


def test_a_pool_takes_jobs_only_as_workers_free_up() -> None:
    taken: list[int] = []
    seen_when_first_done: list[int] = []

    def jobs() -> Iterator[int]:
        for job in range(50):
            taken.append(job)
            yield job

    async def handle(job: int) -> None:
        await asyncio.sleep(0.001)
        if job == 0:
            seen_when_first_done.append(len(taken))

    asyncio.run(run_pool(jobs(), 4, handle))
    assert seen_when_first_done == [4] and taken == list(range(50))


def test_unanswered_items_are_read_in_batches_while_answers_are_written(tmp_path) -> None:
    with RunStore(tmp_path) as store:
        items = [_item(i) for i in range(9)]
        store.add_items(items)
        store.put_response(Response(item_id=items[2].id, model="m", content="done"))
        store.put_response(Response(item_id=items[3].id, model="m", error="failed"))
        walked = []
        for item, sample in store.unanswered("m", batch=2):
            assert sample == 0
            walked.append(item)
            store.put_response(Response(item_id=item.id, model="m", content="new"))
        assert walked == [item for i, item in enumerate(items) if i != 2]
        assert list(store.unanswered("m")) == [] and store.count_answered("m") == 9


def test_a_bad_last_record_is_found_before_anything_is_written(tmp_path) -> None:
    bench = tmp_path / "bench.jsonl"
    lines = [_item(i).model_dump_json() for i in range(300)]
    bench.write_text("\n".join([*lines, '{"id": "late", "messages": []}']) + "\n")
    with pytest.raises(InputError) as caught:
        prepare_run(bench, tmp_path / "run")
    assert (caught.value.line, caught.value.field) == (301, "messages")
    assert not (tmp_path / "run").exists()


# ---------------------------------------------------------------- reports


def _page_data(html: str) -> dict:
    block = re.search(r'<script type="application/json" id="cb-data">(.*?)</script>', html, re.S)
    assert block
    return json.loads(block.group(1))


def test_a_large_report_embeds_aggregates_and_points_to_view(judged: RunStore, tmp_path) -> None:
    small = write_report(judged.run_dir, tmp_path / "small.html", ReportOptions(embed_items=60))
    large = write_report(judged.run_dir, tmp_path / "large.html", ReportOptions(embed_items=59))
    small_raw, large_raw = (page.read_bytes().decode("latin-1") for page in (small, large))
    assert 'id="cb-chunk-0"' in small_raw and 'id="cb-chunk-' not in large_raw
    small_html, large_html = read_page(small), read_page(large)
    index = _page_data(large_html)["index"]
    assert index["items"] == [] and "checkbench view" in index["omitted"]
    assert _page_data(large_html)["leaderboards"] == _page_data(small_html)["leaderboards"]
    assert len(_page_data(small_html)["index"]["items"]) == 60
    if CHROMIUM.exists():
        _shows_the_note(large, index["omitted"])


def _shows_the_note(page_file: Path, note: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(page_file.as_uri())
        page.locator(".tab[data-tab=items]").click()
        assert page.locator("[data-role=omitted]").text_content() == note
        browser.close()
    assert errors == []


def test_served_search_reads_the_store_with_the_pages_definition(judged: RunStore) -> None:
    details = build_report(judged, served=True).details
    ids = [item.id for item in judged.items()]
    unscored = {v.item_id for v in judged.verdicts(JUDGE) if v.passed is None}
    by_text = {
        "m-c to ec-7": [7],  # a response
        "rm-14": [14],  # an id
        "äöü": list(range(60)),  # case folded beyond ASCII, in a message
        "check 3 of 11": [11],  # a check
        "boom": [3],  # an error
        "content": [],  # a key of the stored JSON, not a text
        "raw-scored-qq": [],  # a raw answer is kept for unscored verdicts only
        "raw-answer-zz": [p for p, item_id in enumerate(ids) if item_id in unscored],
    }
    for query, positions in by_text.items():
        assert details.search(query) == positions, query
    assert by_text["raw-answer-zz"]
    pages, after = [], -1
    while page := details.search("ÄÖÜ", after=after, limit=7):  # as `view` pages a search
        pages, after = pages + page, page[-1]
    assert pages == by_text["äöü"]
    [record] = details.records([3])["records"]
    assert [response[0] for response in record[4]] == [0, 1, 2]  # every model, in order
