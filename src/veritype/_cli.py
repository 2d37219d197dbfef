"""What the command-line modules share: common options, the error exit and the progress bar."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from typer import rich_utils
from typer.core import TyperOption

from veritype.errors import InputError

if TYPE_CHECKING:
    from veritype.engine import EngineConfig

_err = Console(stderr=True)
# Piped output has no terminal to take a width from: rich would wrap at 80 columns, a claim
# table one word a line. COLUMNS, when set, still wins.
PIPED_WIDTH = 120


def output_console() -> Console:
    """The console a command prints its results on: standard output, as wide as the terminal,
    or ``PIPED_WIDTH`` when piped."""
    piped = not sys.stdout.isatty() and "COLUMNS" not in os.environ
    return Console(width=PIPED_WIDTH if piped else None)

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
DataDirOption = Annotated[
    Path,
    typer.Option("--data-dir", envvar="VERITYPE_DATA_DIR",
                 help="The datasets folder (truthfulqa/, halueval/, scifact/, nli/, ...)."),
]
EngineConfigOption = Annotated[
    Path | None, typer.Option("--config", "-c", help="Engine configuration (TOML).")
]
ModelPathOption = Annotated[
    Path | None,
    typer.Option("--model-path", help="A GGUF model to draft with: the local generator "
                 "(the llm extra), e.g. the judge's Qwen2.5 GGUF.", show_default=False),
]


def drafting_with(settings: EngineConfig, model_path: Path) -> EngineConfig:
    """``settings`` drafting with the GGUF model at ``model_path`` (the local generator)."""
    return _with_model(settings, model_path, "--model-path", "local", "model_path",
                       "drafts with the local generator")


def _with_model(settings: EngineConfig, model_path: Path, flag: str, generator: str,
                option: str, role: str) -> EngineConfig:
    """``settings`` with ``generator``'s ``option`` set to ``model_path``, an existing file;
    ``flag`` and its ``role`` name the command-line option in the errors."""
    if settings.generator != generator:
        raise InputError(f"{flag} {role}, but the generator is {settings.generator!r}")
    if not model_path.is_file():
        raise InputError(f"{flag} {model_path}: no such model file")
    return settings.model_copy(update={"generator_options": {
        **settings.generator_options, option: str(model_path)}})


ReaderModelOption = Annotated[
    Path | None,
    typer.Option("--reader-model", help="A GGUF chat model that reads the extractive draft's "
                 "best sentences and abstains when none states the answer (the llm extra), "
                 "e.g. the judge's Qwen2.5 GGUF.", show_default=False),
]


def reading_with(settings: EngineConfig, model_path: Path) -> EngineConfig:
    """``settings`` with the extractive drafter's sentences read by the GGUF chat model at
    ``model_path``."""
    return _with_model(settings, model_path, "--reader-model", "extractive",
                       "reader_model_path", "reads the extractive drafter's sentences")


def _flags_show_no_type() -> None:
    """Typer's help prints a type beside every option, ``<bool>`` beside a flag too, which
    reads as if the flag took a value (``--json true`` is then refused): a flag shows none."""
    shown = TyperOption.display_type_rich

    def display_type_rich(option: TyperOption, ctx: Any) -> str | None:
        return None if option.is_flag else shown(option, ctx)

    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign,assignment]


def _paragraphs_reflow() -> None:
    """Typer keeps the line breaks of a command's docstring after its first paragraph, so
    the help came out wrapped mid-sentence at the source's width: paragraphs reflow to the
    terminal instead (a paragraph starting with \\b keeps its lines, as in click)."""
    if not hasattr(rich_utils, "_fix_linebreaks"):
        return

    def reflowed(paragraphs: list[str], markup_mode: Any) -> str:
        return "\n\n".join(paragraph if paragraph.startswith("\b") else
                           " ".join(paragraph.split()) for paragraph in paragraphs)

    rich_utils._fix_linebreaks = reflowed


_flags_show_no_type()
_paragraphs_reflow()


def parse_view_options(items: list[str]) -> dict[str, dict[str, Any]]:
    """``VIEW.KEY=VALUE`` items as options by view; a value is read as JSON when it parses
    (numbers, true/false, lists) and as text otherwise."""
    options: dict[str, dict[str, Any]] = {}
    for item in items:
        key, sep, text = item.partition("=")
        view, dot, name = key.strip().partition(".")
        if not (sep and dot and view and name):
            raise fail(f"--view-option must look like VIEW.KEY=VALUE "
                       f"(e.g. nli.model=runs/nli/onnx), got {item!r}")
        try:
            value: Any = json.loads(text)
        except json.JSONDecodeError:
            value = text
        options.setdefault(view, {})[name] = value
    return options


def with_view_options(configured: dict[str, dict[str, Any]] | None,
                      given: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The view options of a configuration with those given on the command line: an option
    given there joins those the configuration gives the same view, and wins over them."""
    configured = configured or {}
    return {**configured, **{view: {**configured.get(view, {}), **options}
                             for view, options in given.items()}}


ViewOptionOption = Annotated[
    list[str] | None,
    typer.Option("--view-option", help="VIEW.KEY=VALUE, repeatable: an option of one view, "
                 "e.g. nli.model=runs/nli/onnx or judge.base_url=http://localhost:8080/v1."),
]


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr; raise the result to exit with code 2 (bad input)."""
    _err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


class RichProgress:
    """:class:`veritype.progress.Progress` drawn as rich bars; warnings print above them."""

    def __init__(self, bars: Progress) -> None:
        self._bars = bars

    def start(self, description: str, total: int, completed: int = 0) -> int:
        return int(self._bars.add_task(escape(description), total=total, completed=completed))

    def advance(self, task: int, amount: int = 1) -> None:
        self._bars.advance(TaskID(task), amount)

    def describe(self, task: int, description: str) -> None:
        self._bars.update(TaskID(task), description=escape(description))

    def finish(self, task: int) -> None:
        self._bars.remove_task(TaskID(task))

    def warn(self, message: str) -> None:
        self._bars.console.print(f"[yellow]warning:[/] {escape(message)}", highlight=False,
                                 soft_wrap=True)


@contextmanager
def rich_progress(console: Console | None = None) -> Iterator[RichProgress]:
    """Bars with a count and the elapsed time on ``console`` (stderr by default)."""
    columns: list[ProgressColumn] = [
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
    ]
    with Progress(*columns, console=console or _err, transient=False) as bars:
        yield RichProgress(bars)


@contextmanager
def progress(description: str, total: int, unit: str = "") -> Iterator[Callable[[int], None]]:
    """A progress bar with elapsed time and ETA; yields ``advance(done)``. When stderr is not a
    terminal (a background job writing to a log), a plain line every ``LOG_EVERY_S`` instead."""
    if not _err.is_terminal:
        with _logged_progress(description, total, unit) as advance:
            yield advance
        return
    columns: list[ProgressColumn] = [
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
    ]
    if unit:
        columns.append(TextColumn(unit))
    columns += [TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn()]
    with Progress(*columns, console=_err, transient=False) as bar:
        task = bar.add_task(description, total=total)
        yield lambda done: bar.advance(task, done)


LOG_EVERY_S = 30.0


@contextmanager
def _logged_progress(description: str, total: int, unit: str) -> Iterator[Callable[[int], None]]:
    """Progress as lines of text (done of total, elapsed, ETA) at most every ``LOG_EVERY_S``."""
    started = last = time.monotonic()
    done = 0

    def line() -> str:
        elapsed = time.monotonic() - started
        remaining = elapsed * (total - done) / done if done else float("nan")
        eta = f"{remaining / 60:.1f} min" if done else "unknown"
        return (f"{description}: {done}/{total} {unit}".rstrip()
                + f", {elapsed / 60:.1f} min elapsed, ETA {eta}")

    def advance(count: int) -> None:
        nonlocal done, last
        done += count
        now = time.monotonic()
        if now - last >= LOG_EVERY_S:
            last = now
            _err.print(line(), highlight=False, markup=False)

    yield advance
    _err.print(line(), highlight=False, markup=False)


def parse_key_values(items: list[str], option: str) -> dict[str, str]:
    """``KEY=VALUE`` items of a repeatable ``option``; anything else exits naming it."""
    parsed: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise fail(f"{option} takes KEY=VALUE, got {item!r}")
        parsed[key.strip()] = value.strip()
    return parsed
