"""Imports every command module so that each registers its commands on the app."""

from checkbench.cli import evaluate, generate  # noqa: F401
