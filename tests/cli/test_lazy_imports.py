"""Start-up stays light: the CLI and the evaluation API import only what they use.

Each check runs in a fresh interpreter (this test process has imported everything already) and
compares the modules it loaded; none is timed (CPU figures: README, "CLI start-up").
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from checkbench.benchmarks import loaders
from checkbench.console.options import BenchFormat

PROTOCOLS = ("convbench", "scan", "ifrewardbench", "fbbench")


def _loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return set(json.loads(result.stdout.splitlines()[-1]))


REGISTRATION = ("protocol", "cli")
"""A protocol's modules that registering it loads: its registration and its CLI sub-app."""


def _protocols_in(modules: set[str], kept: tuple[str, ...] = ("protocol",)) -> set[str]:
    """The protocol packages' modules in `modules`, but the package itself and `kept`."""
    return {
        m
        for m in modules
        if m.split(".")[:2] in (["checkbench", p] for p in PROTOCOLS)
        and len(m.split(".")) > 2
        and m.split(".")[2] not in kept
    }


def test_the_cli_loads_no_domain_module_to_build_its_commands() -> None:
    """Registering every command (what --help needs) loads of the protocols only their
    registration and CLI sub-apps, no run store, no stage machinery and no Ray: option types
    come from checkbench.choices."""
    loaded = _loaded_after("from checkbench.cli import app, commands")
    assert "checkbench.scan.cli" in loaded and "checkbench.choices" in loaded
    assert {"checkbench.fbbench.cli", "checkbench.ifrewardbench.cli"} <= loaded
    assert _protocols_in(loaded, REGISTRATION) == set()
    heavy = {"checkbench.store.run_store", "checkbench.scoring", "checkbench.steps.caller", "ray"}
    assert loaded & heavy == set()
    assert not any(m.startswith("checkbench.distributed.") and "executor" not in m for m in loaded)


@pytest.mark.parametrize("name", ["generate", "judge", "run", "leaderboard"])
def test_evaluation_api_loads_no_other_protocol(name: str) -> None:
    """generate, judge and run load no protocol's modules, nor the Ray build engine, until a
    run asks for them (a Conv-to-Bench score, a SCAN file, --executor ray); the leaderboard is
    FB-Bench's own (`fbbench.api`) and loads FB-Bench's modules, no other protocol's."""
    loaded = _loaded_after(f"from checkbench import api\napi.{name}")
    assert "checkbench.evaluation.flow" in loaded
    protocols = _protocols_in(loaded)
    if name == "leaderboard":
        assert {"checkbench.fbbench.api", "checkbench.fbbench.scoring"} <= protocols
        assert all(module.startswith("checkbench.fbbench.") for module in protocols)
    else:
        assert protocols == set()
    assert {"ray", "checkbench.convbench.ray_engine"} & loaded == set()


def test_the_data_model_is_re_exported_on_first_use() -> None:
    import checkbench
    from checkbench.schema import Item
    from checkbench.store import RunStore

    assert checkbench.Item is Item and checkbench.RunStore is RunStore
    assert {"Item", "Verdict", "RunStore"} <= set(dir(checkbench))
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        checkbench.Nope  # noqa: B018


def test_every_benchmark_format_has_its_loader() -> None:
    """--format's choices and the loaders name the same formats: the native one and each
    registered protocol's."""
    assert sorted(BenchFormat) == sorted(["auto", *loaders()])
    assert {"native", "fb-bench", "scan"} <= set(loaders())
