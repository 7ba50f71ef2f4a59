"""The seven SCAN domains every query is sorted into, the seed taxonomy built from them, and
the item tag facets that place an item on a taxonomy."""

from __future__ import annotations

from checkbench.scan.tree import Node, Taxonomy

OTHER = "other"
DOMAIN_FACET = "domain"
"""`Item.tags[DOMAIN_FACET]`: the item's domain, one of DOMAINS."""
TAXONOMY_FACET = "taxonomy"
"""`Item.tags[TAXONOMY_FACET]`: the item's taxonomy paths, each with all its ancestors."""

DOMAINS: dict[str, str] = {
    "writing": "Producing or improving text for a purpose: essays, letters, stories, editing, "
    "grammar, translation and other language work.",
    "roleplay": "Playing a character or persona, acting out scenes and sustaining an immersive "
    "dialogue.",
    "knowledge": "Explaining facts and subjects: science, history, culture, law, medicine, "
    "current affairs, advice that rests on knowing things.",
    "coding": "Programming: writing, reading, debugging, explaining and designing code, "
    "tools and systems.",
    "mathematics": "Calculating, proving, modelling and explaining mathematics.",
    "reasoning": "Logic, puzzles, planning and multi-step inference that rest on thinking "
    "rather than on knowledge or code.",
    OTHER: "Anything that fits none of the other domains.",
}
"""Domain name -> what belongs there, in the order a query is checked against them."""


def seed_taxonomy() -> Taxonomy:
    """A taxonomy holding only the seven domains: where TaxBuilder starts by default."""
    return Taxonomy(
        name="scan",
        description="Capability taxonomy grown by TaxBuilder from the seven SCAN domains.",
        domains=[Node(name=name, description=text) for name, text in DOMAINS.items()],
    )
