"""`python -m checkbench` runs the CLI."""

from checkbench.cli import main

main()
