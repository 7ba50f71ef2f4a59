"""What TaxBuilder's model decides, as typed answers, and how each decision changes the tree.

- Extraction: 1..`max_tags` capabilities, each a lowercase name (blanks collapsed) that is a
  short phrase of plain words and no copy of the query (`names`), and a one-sentence
  description; a repeated name counts once.
- Insertion: at the root one of the domains; at any other node "exists", "add here" (not at the
  depth limit), "add beside" (below a domain: a new sibling of the node) or the name of a child
  to descend into (a child literally named like a choice reads as that choice).
- Refinement: one decision about a parent's children: keep, merge, reparent, delete or split (a
  leaf into 2-3 parts), naming only children that exist. Whether the tree accepts it is decided
  by the pure tree operations, which refuse e.g. a merge of a node into itself.
"""

from __future__ import annotations

from functools import cache, partial
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, Field

from checkbench.scan.builder.names import capability_name, not_copied
from checkbench.scan.paths import TaxonomyError, depth_of, join_path, parent_of
from checkbench.scan.tree import Node, Taxonomy
from checkbench.steps.answers import Answer, answer_model, choice, listing, text

EXISTS, ADD_HERE, ADD_BESIDE = "exists", "add here", "add beside"
Action = Literal["keep", "merge", "reparent", "delete", "split"]


class Tag(BaseModel):
    """A capability named by the model: a node-to-be."""

    name: str
    description: str


class Decision(BaseModel):
    """One refinement decision about a parent's children."""

    action: Action
    node: str | None = None
    target: str | None = None
    parts: list[Tag] = []


def _tag_entry(name_chars: int, description_chars: int, query: str | None = None) -> Any:
    """A capability entry; with `query`, its name must not be a piece of it."""
    name: Any = Annotated[text(name_chars, min_chars=1), AfterValidator(capability_name)]
    if query is not None:
        name = Annotated[name, AfterValidator(partial(not_copied, query=query))]
    return answer_model("Capability", name=name, description=(text(description_chars), ""))


def _tags(entries: list[Any]) -> list[Tag]:
    return [Tag(name=entry.name, description=entry.description) for entry in entries]


class TagsAnswer(Answer):
    """The capabilities a query needs (see `tags_answer`)."""

    tags: list[Any]

    def capabilities(self) -> list[Tag]:
        """The tags in order, a repeated name counting once (with its first description)."""
        kept: dict[str, Tag] = {}
        for tag in _tags(self.tags):
            kept.setdefault(tag.name, tag)
        return list(kept.values())


def tags_answer(
    max_tags: int, name_chars: int, description_chars: int, query: str
) -> type[TagsAnswer]:
    """1..max_tags capabilities of `query` (made per query: names must not copy it)."""
    entry = _tag_entry(name_chars, description_chars, query)
    return answer_model("Tags", TagsAnswer, tags=listing(entry, min_items=1, max_items=max_tags))


def children(taxonomy: Taxonomy, at: str) -> list[Node]:
    """The nodes below `at` ("" is the root, whose children are the domains)."""
    return taxonomy.find(at).children if at else taxonomy.domains


def insert_options(taxonomy: Taxonomy, at: str, max_depth: int) -> list[str]:
    """The choices at a node: a domain at the root; else "exists", "add beside" below the
    domains, and while the node is above `max_depth` "add here" and its children."""
    names = [child.name for child in children(taxonomy, at)]
    if not at:
        return names
    depth = depth_of(at)
    beside = [ADD_BESIDE] if depth > 1 else []
    return [EXISTS, ADD_HERE, *beside, *names] if depth < max_depth else [EXISTS, *beside]


@cache
def insert_answer(options: tuple[str, ...], reason_chars: int) -> type[Answer]:
    """A short reason and one of the options."""
    return answer_model("Insertion", reason=(text(reason_chars), ""), choice=choice(options))


class RefineAnswer(Answer):
    """A reason and one decision about the children (see `refine_answer`)."""

    reason: str = ""
    decision: Any

    def decided(self) -> Decision:
        made = self.decision
        target = getattr(made, "into", None) or getattr(made, "under", None)
        parts = _tags(getattr(made, "parts", []))
        return Decision(
            action=made.action, node=getattr(made, "node", None), target=target, parts=parts
        )


@cache
def refine_answer(
    names: tuple[str, ...], reason_chars: int, name_chars: int, description_chars: int
) -> type[RefineAnswer]:
    """A decision about the children `names`: keep, merge (node into another), reparent (node
    under another), delete (node) or split (node into 2-3 parts)."""
    node = choice(names)
    parts = listing(_tag_entry(name_chars, description_chars), min_items=2, max_items=3)
    variants = (
        answer_model("Keep", action=Literal["keep"]),
        answer_model("Merge", action=Literal["merge"], node=node, into=node),
        answer_model("Reparent", action=Literal["reparent"], node=node, under=node),
        answer_model("Delete", action=Literal["delete"], node=node),
        answer_model("Split", action=Literal["split"], node=node, parts=parts),
    )
    return answer_model(
        "Refinement",
        RefineAnswer,
        reason=(text(reason_chars), ""),
        decision=Annotated[Union[variants], Field(discriminator="action")],  # noqa: UP007
    )


def apply_decision(taxonomy: Taxonomy, parent: str, decision: Decision) -> Taxonomy:
    """The taxonomy after a refinement decision; TaxonomyError when the tree refuses it."""

    def at(name: str | None) -> str:
        return join_path(parent, str(name))

    if decision.action == "keep":
        return taxonomy
    if decision.action == "delete":
        return taxonomy.delete(at(decision.node))
    if decision.action == "merge":
        return taxonomy.merge(at(decision.node), at(decision.target))
    if decision.action == "reparent":
        return taxonomy.reparent(at(decision.node), at(decision.target))
    names = [part.name for part in decision.parts]
    if len(set(names)) != len(names):
        raise TaxonomyError(f"the parts of a split need distinct names, got {names}")
    parts = {part.name: part.description for part in decision.parts}
    return taxonomy.split(at(decision.node), parts, {})


def apply_step(taxonomy: Taxonomy, step: dict[str, Any]) -> Taxonomy:
    """Replay one recorded step: an added capability or an applied refinement; others are
    records only."""
    if step["kind"] == "insert" and step["outcome"] == "added":
        tag = Tag.model_validate(step["tag"])
        return taxonomy.add_child(parent_of(step["path"]), tag.name, tag.description)
    if step["kind"] == "refine" and step["outcome"] == "applied":
        decision = Decision.model_validate(step["decision"])
        return apply_decision(taxonomy, step["parent"], decision)
    return taxonomy
