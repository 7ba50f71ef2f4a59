"""Imports every command module so that each registers its commands on the app."""

from checkbench.cli import generate  # noqa: F401
