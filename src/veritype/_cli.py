"""What the command-line modules share: common options, the error exit and the progress bar."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

_err = Console(stderr=True)

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        "-s",
        help="Store URL: sqlite:///path, a file path, or postgresql://… "
        "(default: $VERITYPE_STORE, else .veritype/store.sqlite).",
        show_default=False,
    ),
]
EngineConfigOption = Annotated[
    Path | None, typer.Option("--config", "-c", help="Engine configuration (TOML).")
]


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr; raise the result to exit with code 2 (bad input)."""
    _err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


@contextmanager
def progress(description: str, total: int, unit: str = "") -> Iterator[Callable[[int], None]]:
    """A progress bar with elapsed time and ETA; yields ``advance(done)``."""
    columns: list[ProgressColumn] = [
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
    ]
    if unit:
        columns.append(TextColumn(unit))
    columns += [TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn()]
    with Progress(*columns, console=_err, transient=False) as bar:
        task = bar.add_task(description, total=total)
        yield lambda done: bar.advance(task, done)
