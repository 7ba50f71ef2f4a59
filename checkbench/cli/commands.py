"""Imports every core command module so that each registers its commands on the app, then
mounts each registered protocol's sub-app."""

from checkbench import registry
from checkbench.cli import (  # noqa: F401
    app,
    audit,
    compare,
    evaluate,
    generate,
    judges,
    report,
)

for _protocol in registry.protocols():
    if _protocol.cli is not None:
        app.add_typer(_protocol.cli(), name=_protocol.name)
