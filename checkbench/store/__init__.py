"""The run store: one SQLite file (WAL) per run directory holding everything a run produced.

`RunStore` is the one class callers use; the package's modules hold its layout and migrations
(`layout`), the rows it writes and reads (`rows`), the SQL its readers share (`queries`), the
group commit (`commits`), the one-writer lock (`lock`), the files a store makes (`files`) and
the damaged-row finder (`damage`); `RecordKind` types the stage outputs it keeps
(`records`).
"""

from checkbench.lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    "checkbench.store.files": ("STORE_FILE", "made_by_opening", "remove_made"),
    "checkbench.store.queries": ("Answering",),
    "checkbench.store.records": ("RecordKind",),
    "checkbench.store.rows": ("CallRecord", "ItemHead", "UsageRow"),
    "checkbench.store.run_store": ("SHARED_TEXTS", "RunStore"),
}
"""module -> the names the package offers from it, imported on first use: declaring a record
kind (`RecordKind`) does not load the store and SQLite."""

__all__ = [name for names in _EXPORTS.values() for name in names]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
