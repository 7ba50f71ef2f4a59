"""The run store: one SQLite file (WAL) per run directory holding everything a run produced.

`RunStore` is the one class callers use (`run_store`): it opens the file, holds the lock and
commits, and hands each call to the part of the run it concerns: the run's meta, model names
and stage records (`meta`), its items (`items`), model calls and responses (`answers`),
verdicts (`verdicts`) and the reads of reports and audits (`drilldown`). Beside them: the
layout and migrations (`layout`), the rows it writes and reads (`rows`), the SQL its readers
share (`queries`), the group commit (`commits`), the one-writer lock (`lock`), the files a
store makes (`files`) and the damaged-row finder (`damage`); `RecordKind` types the stage
outputs it keeps (`records`).
"""

from checkbench.lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    "checkbench.store.files": ("STORE_FILE", "made_by_opening", "remove_made"),
    "checkbench.store.queries": ("Answering",),
    "checkbench.store.records": ("RecordKind",),
    "checkbench.store.rows": ("CallRecord", "ItemHead", "UsageRow"),
    "checkbench.store.answers": ("SHARED_TEXTS",),
    "checkbench.store.run_store": ("RunStore",),
}
"""module -> the names the package offers from it, imported on first use: declaring a record
kind (`RecordKind`) does not load the store and SQLite."""

__all__ = [name for names in _EXPORTS.values() for name in names]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
