"""Adaptive concurrency: against a server that answers 429 above N calls in flight, a limit
started below N grows to it and one started above is cut down to it; every item is answered
and the calls table shows where each limit settled."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from checkbench import api
from checkbench.console.calls import print_calls
from checkbench.llm import ModelOptions
from checkbench.steps.caller import LIMITS_META
from checkbench.store import RunStore
from checkbench.testing import ServerProcess
from tests.llm.test_endpoints import bench

CAPACITY = 6
ITEMS = 200


def test_limits_settle_near_the_servers_capacity_and_every_item_is_answered(
    tmp_path: Path,
) -> None:
    items = bench(tmp_path / "b.jsonl", ITEMS)
    run = tmp_path / "run"
    with ServerProcess("--capacity", str(CAPACITY), "--delay-ms", "30") as server:
        models = tmp_path / "models.toml"
        entry = f'base_url = "{server.base_url}"\nmax_concurrency = 32\nretries = 20\n'
        models.write_text(
            f'[models.low]\nmodel = "cand"\nconcurrency = 2\n{entry}\n'
            f'[models.high]\nmodel = "judge"\nconcurrency = 24\n{entry}'
        )
        options = ModelOptions(models_file=models)
        generated = api.generate(items, ["low"], run, options=options).stage
        judged = api.judge(run, "high", options=options).stage
        counts = server.stats()
    assert (generated.errors, judged.errors, judged.failed_calls) == (0, 0, 0)
    assert counts["refused"] > 0  # the limits were found by meeting the server's, not guessed
    with RunStore.existing(run) as store:
        assert [r.error for r in store.responses("low")] == [None] * ITEMS
        assert [v.passed for v in store.verdicts("high")] == [True] * ITEMS
        limits = store.get_meta(LIMITS_META)
        out = io.StringIO()
        print_calls(store.usage(), limits, {}, Console(file=out, width=200, color_system=None))
    # started at 2 and at 24; both settle where the server starts refusing
    assert all(CAPACITY - 2 <= limits[name] <= CAPACITY + 1 for name in ("low", "high")), limits
    for name, role in (("low", "candidate"), ("high", "judge")):  # the limit column, last
        row = next(line for line in out.getvalue().splitlines() if line.startswith(name))
        assert row.split()[:2] == [name, f"({role})"] and row.split()[-1] == str(limits[name])
