"""The generation commands of the CLI."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the generation commands to the main CLI."""
