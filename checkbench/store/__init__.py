"""The run store: one SQLite file (WAL) per run directory holding everything a run produced.

`RunStore` is the one class callers use; the package's modules hold its layout and migrations
(`layout`), the rows it writes and reads (`rows`), the SQL its readers share (`queries`), the
group commit (`commits`), the one-writer lock (`lock`), the files a store makes (`files`) and
the damaged-row finder (`damage`); `RecordKind` types the stage outputs it keeps
(`records`).
"""

from checkbench.store.files import STORE_FILE, made_by_opening, remove_made
from checkbench.store.queries import Answering
from checkbench.store.records import RecordKind
from checkbench.store.rows import CallRecord, ItemHead, UsageRow
from checkbench.store.run_store import SHARED_TEXTS, RunStore

__all__ = [
    "SHARED_TEXTS",
    "STORE_FILE",
    "Answering",
    "CallRecord",
    "ItemHead",
    "RecordKind",
    "RunStore",
    "UsageRow",
    "made_by_opening",
    "remove_made",
]
