"""Slices through the API: a run of a sample resumes, widens and refuses a narrower slice with
nothing written; a judge of a slice of a run is scored on its slice; an import keeps its slice
of the published judgments."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from checkbench import api
from checkbench.errors import InputError
from checkbench.store import RunStore
from checkbench.store.scope import RUN_SCOPE
from checkbench.testing import OpenAIServer, default_answer
from tests.conftest import EXAMPLE
from tests.judges.fbbench_sample import PUBLISHED
from tests.support.run_contents import stored


def _ids(run: Path) -> list[str]:
    with RunStore.existing(run) as store:
        return [item_id for item_id, *_ in store.item_columns()]


def test_a_sampled_run_resumes_widens_and_refuses_a_narrower_slice(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with OpenAIServer(default_answer) as server:
        model, judge = f"openai:cand@{server.base_url}", f"openai:judge@{server.base_url}"
        sample = api.Slice(sample=4, sample_seed=7)
        first = api.run(EXAMPLE, [model], judge, run, slice_=sample)
        assert [s.total for s in first.stages] == [4, 4] and first.scores.rows[0].n == 4
        scenarios = Counter(item_id.split("-")[0] for item_id in _ids(run))
        assert scenarios == {"ec": 2, "rm": 2}  # stratified: half of each scenario
        calls = len(server.requests)
        again = api.run(EXAMPLE, [model], judge, run, slice_=sample)
        assert len(server.requests) == calls  # the same slice resumes: nothing left to do
        assert [s.already_done for s in again.stages] == [4, 4]
        before = stored(run)
        with pytest.raises(InputError, match=r"this run holds 3 item\(s\) outside this slice"):
            api.run(EXAMPLE, [model], judge, run, slice_=api.Slice(tags=("task=Coding",)))
        assert stored(run) == before  # refused: nothing written
        wider = api.run(EXAMPLE, [model], judge, run)
        assert [s.total for s in wider.stages] == [8, 8]
        assert len(server.requests) == calls + 8  # only the new items' answers and verdicts
    with RunStore.existing(run) as store:
        scope = store.scope(RUN_SCOPE)
    assert sorted(scope.item_ids) == sorted(_ids(run)) and scope.spec == ""  # the whole file


def test_a_judge_of_a_slice_is_scored_on_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with OpenAIServer(default_answer) as server:
        models = [f"openai:{name}@{server.base_url}" for name in ("a", "b")]
        judge = f"openai:judge@{server.base_url}"
        api.generate(EXAMPLE, models, run)
        ids = tmp_path / "ids.jsonl"
        ids.write_text('{"id": "ec-math-1"}\n{"id": "rm-code-1"}\n{"id": "rm-know-1"}\n')
        part = api.Slice(items_file=ids, models=(models[1],))
        result = api.judge(run, judge, slice_=part)
        assert (result.stage.total, result.stage.called) == (3, 3)
        board = api.leaderboard(run).scores
        assert [(row.model, row.n) for row in board.rows] == [(models[1], 3)]
        with pytest.raises(InputError, match="narrower or different slice"):
            api.judge(run, judge, slice_=api.Slice(items_file=ids, limit=1))
        whole = api.judge(run, judge)  # no slice: the rest of the run
        assert (whole.stage.total, whole.stage.already_done) == (16, 3)
    assert sorted((row.model, row.n) for row in api.leaderboard(run).scores.rows) == [
        (models[0], 8),
        (models[1], 8),
    ]


def test_an_import_keeps_its_slice_of_the_published_judgments(tmp_path: Path) -> None:
    run = tmp_path / "run"
    part = api.Slice(sample=60, sample_seed=1, models=("DeepSeek-V3", "gpt-4o-2024-05-13"))
    api.import_fbbench_judgments(PUBLISHED, run, slice_=part)
    board = api.leaderboard(run).scores
    assert sorted(row.model for row in board.rows) == ["DeepSeek-V3", "gpt-4o-2024-05-13"]
    assert {row.n for row in board.rows} == {60}
    with RunStore.existing(run) as store:
        scenarios = Counter(json.loads(tags)["scenario"][0] for *_, tags in store.item_columns())
        total = Counter(item.tags["scenario"][0] for item in _published_items())
    assert sum(scenarios.values()) == 60
    for scenario, count in total.items():  # each scenario its share of 60, within one
        assert abs(scenarios[scenario] - 60 * count / sum(total.values())) <= 1
    again = api.import_fbbench_judgments(PUBLISHED, run, slice_=part)  # the same slice: fine
    assert again.records > 0
    with pytest.raises(InputError, match="no model 'nobody' in the judgment files"):
        api.import_fbbench_judgments(
            PUBLISHED, tmp_path / "other", slice_=api.Slice(models=("nobody",))
        )
    assert not (tmp_path / "other").exists()


def _published_items() -> list:
    from tests.judges.fbbench_sample import published

    return published().items
