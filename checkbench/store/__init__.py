"""The run store: one SQLite file (WAL) per run directory holding everything a run produced.

`RunStore` is the one class callers use; the package's modules hold its layout and migrations
(`layout`), the rows it writes (`rows`), its batch and column readers (`reads`), the group
commit (`commits`), the one-writer lock (`lock`) and the damaged-row finder (`damage`).
"""

from checkbench.store.reads import Answering, ItemHead
from checkbench.store.rows import CallRecord, UsageRow
from checkbench.store.run_store import (
    SHARED_TEXTS,
    STORE_FILE,
    RunStore,
    made_by_opening,
    remove_made,
)

__all__ = [
    "SHARED_TEXTS",
    "STORE_FILE",
    "Answering",
    "CallRecord",
    "ItemHead",
    "RunStore",
    "UsageRow",
    "made_by_opening",
    "remove_made",
]
