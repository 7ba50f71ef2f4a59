"""checkbench: checklist-grounded evaluation of LLMs and of their judges.

The public API is small: the data model, the run store, and `checkbench.api` (one function per
CLI command). Everything else is an implementation module.
"""

from checkbench.schema import Check, Item, Message, Response, Usage, Verdict
from checkbench.store import RunStore

__all__ = ["Check", "Item", "Message", "Response", "RunStore", "Usage", "Verdict"]
__version__ = "0.1.0"
