"""Knobs of the LLM stages of `checkbench convbench build`, with the token budgets they imply.

Every free-text field a model writes has a length cap in characters; the answer's schema carries
it (so a grammar-constrained local model cannot ramble) and the call's `max_tokens` is derived
from it at one token per character at most, plus room for the JSON around it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

JSON_OVERHEAD_TOKENS = 24
"""Tokens for the braces, keys and quotes around the fields of one answer."""


class ConvBenchSettings(BaseModel):
    """Lengths, counts and re-asks of the model-driven stages (defaults suit capable models)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    domain_chars: int = Field(2000, ge=50, description="first user message shown to tier 2")
    max_user_chars: int = Field(
        12000, ge=100, description="user side longer than this is dropped (too long)"
    )
    reply_chars: int = Field(1500, ge=50, description="assistant turns shown as context, cut")
    instruction_chars: int = Field(1200, ge=20, description="longest synthesized instruction")
    check_chars: int = Field(200, ge=20, description="longest checklist requirement")
    min_checks: int = Field(3, ge=1)
    max_checks: int = Field(10, ge=1)
    reason_chars: int = Field(300, ge=20, description="curation: dissatisfaction reason")
    max_tokens_approx: int = Field(
        5000, ge=100, description="curation: longest conversation, approximate tokens"
    )
    reasks: int = Field(2, ge=0, description="re-asks after an unusable answer")

    @model_validator(mode="after")
    def _consistent(self) -> ConvBenchSettings:
        if self.min_checks > self.max_checks:
            raise ValueError("min_checks must not exceed max_checks")
        return self

    def tokens_for(self, chars: int) -> int:
        """A max_tokens budget for an answer holding `chars` characters of free text."""
        return chars + JSON_OVERHEAD_TOKENS

    @property
    def checklist_tokens(self) -> int:
        """Budget for a full checklist: every requirement at its longest, with its source."""
        return self.max_checks * (self.check_chars + 16) + JSON_OVERHEAD_TOKENS
