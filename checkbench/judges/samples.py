"""Meta-evaluation compares judges (and humans) on one response per (item, model): a run
generated with `--samples K` (K > 1) holds several, which those comparisons would mix, so
they refuse it."""

from __future__ import annotations

from checkbench.errors import InputError
from checkbench.store import RunStore


def refuse_samples(store: RunStore, command: str) -> None:
    """Stop `command` (the CLI command, named in the message) on a run with several samples
    of an item by one model."""
    most = max((count for _, _, count in store.response_samples()), default=1)
    if most > 1:
        raise InputError(
            f"`{command}` compares one response per item and model, and this run has {most} "
            f"samples of an item (generated with `--samples {most}`): use a run generated "
            "without --samples",
            path=store.run_dir,
        )
