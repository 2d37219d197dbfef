"""The ``veritype`` command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from veritype import __version__
from veritype._cli import (
    EngineConfigOption,
    ModelPathOption,
    ReaderModelOption,
    StoreOption,
    ViewOptionOption,
    drafting_with,
    output_console,
    parse_key_values,
    parse_view_options,
    reading_with,
    rich_progress,
    with_view_options,
)
from veritype._cli import fail as _fail
from veritype._files import read_text_file
from veritype.aggregate import DEFAULT_VIEWS as DEFAULT_VIEW_NAMES
from veritype.aggregate import create_aggregator, default_for, recommended_thresholds
from veritype.answer import GroundedAnswer, grounded_answer_schema
from veritype.budget import Budget
from veritype.checking.commands import register as register_check_command
from veritype.engine import EngineConfig
from veritype.errors import InputError, VeritypeError
from veritype.evaluation.commands import register as register_eval_commands
from veritype.evidence import Document, EvidencePack
from veritype.generation.commands import register as register_generation_commands
from veritype.graph import EvidenceType, Status
from veritype.ingest.commands import register as register_corpus_commands
from veritype.models.commands import register as register_model_commands
from veritype.server.commands import register as register_server_commands
from veritype.thresholds import Thresholds
from veritype.train.commands import register as register_train_commands
from veritype.verification import VerificationReport, verify_answer
from veritype.views import VerificationView, available_views, create_view

app = typer.Typer(
    name="veritype",
    help="Type every claim of an answer as Verified, Uncertain or Unsupported against evidence.",
    no_args_is_help=True,
    add_completion=False,
)
_out = output_console()
_err = Console(stderr=True)


def _print_version(given: bool) -> None:
    if given:
        typer.echo(f"veritype {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", is_eager=True,
                     callback=_print_version),
    ] = False,
) -> None:
    """Type every claim of an answer as Verified, Uncertain or Unsupported against evidence."""

_TYPE_STYLE = {
    EvidenceType.VERIFIED: "bold green",
    EvidenceType.UNCERTAIN: "bold yellow",
    EvidenceType.UNSUPPORTED: "bold red",
}
DEFAULT_VIEWS = ",".join(DEFAULT_VIEW_NAMES)


def _engine_defaults() -> dict[str, str]:
    """The engine's defaults as ``ask --help`` shows them (its options default to None, so
    that a config file and the environment can set them)."""
    shown = {}
    calibrated = recommended_thresholds(create_aggregator("default"))
    for name, field in EngineConfig.model_fields.items():
        value = field.get_default(call_default_factory=True)
        shown[name] = ",".join(value) if isinstance(value, list) else str(value)
    for name, value in zip(("tau", "tau_low"), calibrated, strict=True):
        shown[name] = f"{value:.3g}, the default aggregator's"
    shown["budget"] = "no cap"
    return shown


_ENGINE_DEFAULT = _engine_defaults()


def _engine_option(field: str, *flags: str, help: str) -> Any:
    """An ``ask`` option that defaults to the engine configuration's ``field``: unset, it
    leaves the value to --config and the environment, and --help shows the default."""
    return typer.Option(*flags, help=help, show_default=_ENGINE_DEFAULT[field])


@app.command()
def verify(
    evidence: Annotated[
        list[Path],
        typer.Option("--evidence", "-e", help="Evidence text file (repeat for several)."),
    ],
    answer: Annotated[
        str | None, typer.Option("--answer", "-a", help="The answer text to verify.")
    ] = None,
    answer_file: Annotated[
        Path | None, typer.Option("--answer-file", "-f", help="Read the answer from a file.")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="Engine configuration (TOML), the file ask and "
                     "serve read; verify takes its views, view_options, aggregator, "
                     "aggregator_file, tau, tau_low and budget.", show_default=False),
    ] = None,
    views: Annotated[
        str | None,
        typer.Option(
            "--views", help=f"Comma-separated view names; known: {', '.join(available_views())}.",
            show_default=DEFAULT_VIEWS,
        ),
    ] = None,
    view_option: ViewOptionOption = None,
    tau: Annotated[
        float | None,
        typer.Option("--tau", help="τ: score needed for Verified (default: the aggregator's "
                     "calibrated τ; 0.8 for vote and rule).", show_default=False),
    ] = None,
    tau_low: Annotated[
        float | None,
        typer.Option("--tau-low", help="τ': score at or below which a claim is Unsupported "
                     "(default: the aggregator's; 0.3 for vote and rule).", show_default=False),
    ] = None,
    aggregator: Annotated[
        str | None,
        typer.Option("--aggregator",
                     help="How view results combine: default (the shipped fitted model when "
                     "its views run, else vote), vote, rule or learned.",
                     show_default="default"),
    ] = None,
    aggregator_file: Annotated[
        Path | None,
        typer.Option("--aggregator-file", help="A fitted learned aggregator (JSON)."),
    ] = None,
    budget: Annotated[
        float | None, typer.Option("--budget", help="Cap on the total cost of view calls.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the full verification report as JSON.")
    ] = False,
) -> None:
    """Verify an answer against evidence files and print each claim's evidence type:
    Verified (support ≥ τ), Uncertain (between τ' and τ) or Unsupported (support ≤ τ', or
    contradicted), with the τ and τ' used (--json: "tau" and "tau_low").

    The defaults shown give way to --config, then VERITYPE_* variables, then these options.
    """
    if (answer is None) == (answer_file is None):
        raise _fail("give exactly one of --answer TEXT or --answer-file FILE")
    names = None if views is None else [part.strip() for part in views.split(",")
                                        if part.strip()]
    if names == []:
        raise _fail("--views names no view")
    given = parse_view_options(view_option or [])
    try:
        settings = EngineConfig.load(config, views=names, tau=tau, tau_low=tau_low,
                                     aggregator=aggregator, aggregator_file=aggregator_file,
                                     budget=budget)
        if given:
            settings = EngineConfig.validated({
                **settings.model_dump(),
                "view_options": with_view_options(settings.view_options, given)})
        limit = Budget(limit=settings.budget)
        text = read_text_file(answer_file) if answer_file is not None else answer or ""
        documents = [
            Document.from_text(read_text_file(path), title=path.name, source=str(path))
            for path in evidence
        ]
        view_list = [_configured_view(name, settings) for name in settings.views]
        strong = [view.name for view in view_list if view.strong]
        options: dict[str, object] = {"strong": strong}
        if settings.aggregator_file is not None:
            options["path"] = settings.aggregator_file
        combiner = (default_for([view.name for view in view_list], strong)
                    if settings.aggregator == "default"
                    else create_aggregator(settings.aggregator, **options))
        recommended = recommended_thresholds(combiner)
        thresholds = Thresholds(
            tau=recommended[0] if settings.tau is None else settings.tau,
            tau_low=recommended[1] if settings.tau_low is None else settings.tau_low)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    if not text.strip():
        raise _fail("the answer is empty")
    empty = [doc.source for doc in documents if not doc.text.strip()]
    if empty:
        raise _fail(f"evidence file is empty: {', '.join(empty)}")
    unique = list({doc.doc_id: doc for doc in documents}.values())
    report = verify_answer(
        text,
        EvidencePack.from_documents(unique),
        view_list,
        aggregator=combiner,
        thresholds=thresholds,
        budget=limit,
    )
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        _print_report(report)


def _configured_view(name: str, settings: EngineConfig) -> VerificationView:
    """The view ``name`` with the options ``settings`` give it; a bad option is bad input."""
    try:
        return create_view(name, **settings.view_options.get(name, {}))
    except (TypeError, ValueError, RuntimeError) as error:
        # The view's factory names its own problem: an unknown option, a bad value.
        raise InputError(f"view {name!r}: {error}") from None


@app.command()
def schema() -> None:
    """Print the JSON Schema of the GroundedAnswer contract."""
    typer.echo(json.dumps(grounded_answer_schema(), indent=2))


@app.command()
def ask(
    query: Annotated[str, typer.Argument(help="The question to answer from the corpus.")],
    store: StoreOption = None,
    config: EngineConfigOption = None,
    generator: Annotated[str | None, _engine_option(
        "generator", "--generator", "-g", help="extractive, local or openai.")] = None,
    views: Annotated[str | None, _engine_option(
        "views", "--views", help="Comma-separated view names.")] = None,
    tau: Annotated[float | None, _engine_option(
        "tau", "--tau", help="τ: score needed for Verified.")] = None,
    tau_low: Annotated[float | None, _engine_option(
        "tau_low", "--tau-low", help="τ': score at or below which Unsupported.")] = None,
    budget: Annotated[float | None, _engine_option(
        "budget", "--budget", help="Cap on the total cost of view calls.")] = None,
    k: Annotated[int | None, _engine_option(
        "k", "-k", "--top-k", help="Evidence chunks for the query.")] = None,
    contradicted: Annotated[str | None, _engine_option(
        "contradicted", "--contradicted",
        help="What happens to contradicted claims: drop, flag or correct.")] = None,
    mode: Annotated[str | None, _engine_option(
        "mode", "--mode", help="brief or detailed.")] = None,
    filters: Annotated[
        list[str] | None,
        typer.Option("--filter", help="Metadata filter KEY=VALUE (source, title, added_after, "
                     "added_before); repeatable."),
    ] = None,
    model_path: ModelPathOption = None,
    reader_model: ReaderModelOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the GroundedAnswer as JSON.")
    ] = False,
) -> None:
    """Answer QUERY from the corpus: draft, verify every claim, show only Verified, cited ones.

    The defaults shown give way to --config, then VERITYPE_* variables, then these options.
    """
    from veritype.engine import Engine, checked_query

    try:
        checked_query(query)
        parsed = parse_key_values(filters or [], "--filter")
        settings = EngineConfig.load(
            config, store=store, tau=tau, tau_low=tau_low, budget=budget,
            generator=generator or ("local" if model_path is not None else None),
            k=k, contradicted=contradicted, mode=mode,
            views=[name.strip() for name in views.split(",") if name.strip()] if views else None,
        )
        if model_path is not None:
            settings = drafting_with(settings, model_path)
        if reader_model is not None:
            settings = reading_with(settings, reader_model)
        if settings.store is None and not settings.demo:
            settings = settings.model_copy(update={"demo": True})
        with rich_progress() as progress:
            engine = Engine(settings, progress=progress, create_store=False)
        if engine.demo_ingested:
            _err.print("The store was empty, so the bundled demo corpus (SciFact abstracts) was "
                       "ingested into it and answers this question: run `veritype ingest PATH` "
                       "to ask your own documents.", highlight=False)
        with engine:
            grounded = engine.ask(query, filters=parsed)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    if as_json:
        typer.echo(grounded.model_dump_json(indent=2))
    else:
        _print_grounded(grounded)
        seconds = grounded.timings.get("total_s", 0.0)
        _out.print(f"[dim]trace {grounded.trace_id} · {seconds:.2f} s[/]")


def _print_report(report: VerificationReport) -> None:
    _print_grounded(report.grounded, asked=False)
    _out.print(f"Verified at support ≥ τ = {report.tau:.4g}; Unsupported at ≤ τ' = "
               f"{report.tau_low:.4g} or when contradicted; Uncertain between.",
               highlight=False)


def _print_grounded(grounded: GroundedAnswer, *, asked: bool = True) -> None:
    """The claim table, the answer with its references, and its confidence. Without a
    question (``asked`` off: ``verify``) the confidence counts the claims shown of all, and
    no searches are suggested: there is no corpus to search."""
    table = Table(title="Claims", show_lines=True)
    table.add_column("id", no_wrap=True)
    table.add_column("claim", ratio=3, overflow="fold")
    for column in ("class", "type", "support", "views", "citations"):
        table.add_column(column, no_wrap=column == "support", overflow="fold")
    for claim in grounded.claims:
        kind = claim.type.value.capitalize()
        if claim.status is Status.CONTRADICTED:
            kind += " (contradicted)"
        table.add_row(
            claim.id,
            escape(claim.text),
            claim.claim_class.value,
            f"[{_TYPE_STYLE[claim.type]}]{kind}[/]",
            f"{claim.support:.2f}",
            "\n".join(_view_cell(v.name, v.verdict, v.score) for v in claim.views),
            escape(" ".join(f"[{c.ref}]" for c in claim.citations)),
        )
    _out.print(table)
    if grounded.abstained:
        _out.print(f"[bold]Abstained:[/] {escape(grounded.abstention_reason or '')}",
                   highlight=False)
    else:
        _out.print(f"[bold]Answer:[/] {escape(grounded.answer)}", highlight=False)
    for reference in grounded.references:
        _out.print(
            escape(
                f"  [{reference.ref}] {reference.title or reference.doc_id} "
                f"{reference.start}..{reference.end}: \u201c{reference.quote}\u201d"
            ),
            highlight=False,
        )
    counted = [claim for claim in grounded.claims if claim.counted]
    shown = sum(claim.rendered for claim in counted)
    right = ("" if grounded.answer_probability is None
             else f"P(right) {grounded.answer_probability:.2f}; ")
    scope = "claims on the question shown" if asked else "claims shown"
    _out.print(f"[bold]Confidence:[/] {grounded.confidence.value} "
               f"({right}{shown} of {len(counted)} {scope})")
    for limitation in grounded.limitations:
        _out.print(f"  - {escape(limitation)}", highlight=False)
    if asked and grounded.query_refinements:
        _out.print("[bold]Try searching for:[/] " + escape("; ".join(grounded.query_refinements)),
                   highlight=False)


def _view_cell(name: str, verdict: str, score: float) -> str:
    # A contradiction's support score is 0 by definition; printing it adds only noise.
    return f"{name}: {verdict}" if verdict == "contradicted" else f"{name}: {verdict} {score:.2f}"


register_corpus_commands(app)
register_generation_commands(app)
register_server_commands(app)
register_eval_commands(app)
register_check_command(app)
register_model_commands(app)
register_train_commands(app)


def main() -> None:
    app()
