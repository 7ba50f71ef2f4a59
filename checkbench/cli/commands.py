"""Imports every command module so that each registers its commands on the app."""

from checkbench.cli import (  # noqa: F401
    build,
    evaluate,
    generate,
    judges,
    meta,
    report,
    score,
    taxonomy,
    taxonomy_navigate,
)
