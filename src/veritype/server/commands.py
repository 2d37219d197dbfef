"""The server commands of the CLI."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the server commands to the main CLI."""
