"""Imports every command module so that each registers its commands on the app."""

from checkbench.cli import build, evaluate, generate, meta, report, score, taxonomy  # noqa: F401
