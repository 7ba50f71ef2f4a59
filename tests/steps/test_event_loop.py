"""The loop stages run on: the collector is tuned while a stage runs and as it was after."""

from __future__ import annotations

import asyncio
import gc

import pytest

from checkbench.steps import loop


def test_a_stage_runs_with_rarer_young_collections_and_the_old_heap_frozen() -> None:
    before = gc.get_threshold()
    seen = []

    async def stage() -> str:
        await asyncio.sleep(0)
        seen.append((gc.get_threshold(), gc.get_freeze_count()))
        return "done"

    assert loop.run(stage()) == "done"
    ((threshold, frozen),) = seen
    assert threshold[0] == max(before[0], loop.YOUNG_THRESHOLD)
    assert threshold[1:] == before[1:]
    assert frozen > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_the_collector_is_restored_when_a_stage_fails() -> None:
    before = gc.get_threshold()

    async def stage() -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        loop.run(stage())
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_process_that_froze_objects_itself_keeps_them_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()

        async def stage() -> int:
            return gc.get_freeze_count()

        assert loop.run(stage()) == frozen
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
