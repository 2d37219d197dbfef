"""``veritype check FILE``: check a file of RAG outputs and write its report."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from veritype._cli import (
    ViewOptionOption,
    output_console,
    parse_view_options,
    with_view_options,
)
from veritype._cli import fail as _fail
from veritype._cli import progress as _progress
from veritype.aggregate import DEFAULT_VIEWS
from veritype.checking._check_result import CheckResult
from veritype.checking._report import write_outputs
from veritype.checking._row_result import RowVerdict, UncertainAs, verdict_label
from veritype.checking._rows import ALIASES, Columns
from veritype.checking._run import check_file
from veritype.checking._verify import CheckSettings
from veritype.errors import InputError, VeritypeError
from veritype.graph import EvidenceType
from veritype.views import available_views

_out = output_console()
_err = Console(stderr=True)
_STYLE = {EvidenceType.VERIFIED: "green", EvidenceType.UNCERTAIN: "yellow",
          EvidenceType.UNSUPPORTED: "red"}


def _column_help(field: str, what: str = "") -> str:
    return (f"Column holding the {field}{what} (default: the first of "
            f"{', '.join(ALIASES[field])}).")


def check(
    file: Annotated[Path, typer.Argument(help="JSON Lines, CSV or Parquet file of rows, each "
                                              "with an answer, its contexts and optionally a "
                                              "question.", show_default=False)],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Run directory for the results and the report (default: "
                            "FILE's name with .check beside it); a stopped check there "
                            "continues.", show_default=False)] = None,
    question_column: Annotated[str | None, typer.Option(
        help=_column_help("question"), show_default=False)] = None,
    answer_column: Annotated[str | None, typer.Option(
        help=_column_help("answer"), show_default=False)] = None,
    contexts_column: Annotated[str | None, typer.Option(
        help=_column_help("contexts", ": a list of texts or one text"), show_default=False)] = None,
    id_column: Annotated[str | None, typer.Option(
        help=_column_help("id"), show_default=False)] = None,
    views: Annotated[str | None, typer.Option(
        help=f"Comma-separated views; known: {', '.join(available_views())}.",
        show_default=",".join(DEFAULT_VIEWS))] = None,
    view_option: ViewOptionOption = None,
    aggregator: Annotated[str | None, typer.Option(
        help="How view results combine: default (the shipped fitted model when its views "
             "run, else vote), vote, rule or learned.", show_default="default")] = None,
    aggregator_file: Annotated[Path | None, typer.Option(
        help="A fitted aggregator (JSON), for --aggregator learned.", show_default=False)] = None,
    relevance: Annotated[bool | None, typer.Option(
        "--relevance/--no-relevance", help="Score each answer's relevance to its question "
        "(the MiniLM encoder; about 10 ms a row).", show_default="on")] = None,
    answer_model: Annotated[str | None, typer.Option(
        help="The answer model that reads a bare answer (\"Warsaw\") against its question: "
        "stated by the contexts' answer, or answered otherwise (a name or a model directory; "
        "none: the views alone).", show_default="answers")] = None,
    config: Annotated[Path | None, typer.Option(
        "--config", "-c", help="Check settings (TOML: views, view_options, aggregator, "
        "aggregator_file, tau, tau_low, relevance, answer_model); options given here "
        "override it.",
        show_default=False)] = None,
    tau: Annotated[float | None, typer.Option(
        help="τ: support needed for Verified.", show_default="the default aggregator's")] = None,
    tau_low: Annotated[float | None, typer.Option(
        help="τ': support at or below which Unsupported; between τ' and τ a claim is "
             "Uncertain.", show_default="the default aggregator's")] = None,
    uncertain_as: Annotated[UncertainAs, typer.Option(
        help="How Uncertain claims and uncertain (needs review) rows count: fail (an "
             "Uncertain claim is not faithful, the row fails) or pass (it counts towards "
             "faithfulness, the row passes). --fail-under and the report use it.",
        case_sensitive=False)] = UncertainAs.FAIL,
    engine: Annotated[str, typer.Option(help="local, or ray (needs the ray extra).")] = "local",
    address: Annotated[str | None, typer.Option(
        help="Ray cluster address ('auto' for one started with `ray start`; default: start "
             "a local cluster).", show_default=False)] = None,
    workers: Annotated[int | None, typer.Option(
        help="Worker processes, each with one CPU thread for its models (default: ray 2; "
             "local one per CPU from 200 rows, else none: 1 checks in this process).",
        min=1, show_default=False)] = None,
    limit: Annotated[int | None, typer.Option(
        help="Check only the first N rows.", min=1, show_default="every row")] = None,
    restart: Annotated[bool, typer.Option(
        "--restart", help="Discard a run directory's earlier results instead of continuing."
    )] = False,
    fail_under: Annotated[float | None, typer.Option(
        help="Exit with code 1 when the mean faithfulness (Uncertain claims counted as "
             "--uncertain-as says) is below this (for CI).",
        min=0.0, max=1.0, show_default=False)] = None,
    strict: Annotated[bool, typer.Option(
        "--strict", help="Exit with code 1 when a row was skipped (a malformed line, a row "
        "without an answer) (for CI).")] = False,
    worst: Annotated[int, typer.Option(help="Worst rows to print.", min=0)] = 5,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the summary as JSON instead of tables.")] = False,
) -> None:
    """Check each row's answer against its contexts: every claim typed Verified (support
    ≥ τ), Uncertain (between) or Unsupported (support ≤ τ', or contradicted), a verdict per
    row (faithful, unfaithful, uncertain: needs review, or no claims), a faithfulness score
    per row (the share of claims Verified; with --uncertain-as pass, Verified or Uncertain),
    and JSON, CSV and HTML reports for the file."""
    names = None if views is None else tuple(
        part.strip() for part in views.split(",") if part.strip())
    options = parse_view_options(view_option or [])
    try:
        settings = CheckSettings.load(
            config, views=names, tau=tau, tau_low=tau_low, aggregator=aggregator,
            relevance=relevance, answer_model=answer_model,
            aggregator_file=None if aggregator_file is None else str(aggregator_file))
        if options:
            settings = CheckSettings.validated({
                **settings.model_dump(),
                "view_options": with_view_options(settings.view_options, options)})
    except VeritypeError as error:
        raise _fail(str(error)) from None
    columns = Columns(question_column, answer_column, contexts_column, id_column)
    run_dir = out if out is not None else file.with_name(file.name + ".check")
    with ExitStack() as stack:
        bar: list[Callable[[int], None]] = []

        def on_start(total: int, done: int) -> None:
            if done:
                _err.print(f"continuing the check in {escape(str(run_dir))}: {done:,} of "
                           f"{total:,} rows already done", highlight=False)
            advance = stack.enter_context(_progress("checking rows", total, "rows"))
            advance(done)
            bar.append(advance)

        try:
            result = check_file(file, run_dir, settings=settings, columns=columns,
                                engine=engine, address=address, workers=workers, limit=limit,
                                restart=restart, on_start=on_start,
                                on_rows=lambda n: bar[0](n), uncertain_as=uncertain_as)
        except InputError as error:
            raise _fail(str(error)) from None
    paths = write_outputs(result, run_dir)
    summary = result.summary()
    if as_json:
        typer.echo(json.dumps({**summary, "outputs": {k: str(v) for k, v in paths.items()}},
                              indent=2))
    else:
        _show(result, worst)
        for kind, path in paths.items():
            _out.print(f"{kind}: {escape(str(path))}", highlight=False)
    mean = result.mean_faithfulness
    if fail_under is not None and (mean is None or mean < fail_under):
        shown = "no row with claims" if mean is None else f"{mean:.3f}"
        _err.print(f"mean faithfulness {shown} is below --fail-under {fail_under:g} "
                   f"(--uncertain-as {uncertain_as.value})", highlight=False)
        raise typer.Exit(code=1)
    if strict and result.bad_rows:
        _err.print(f"{len(result.bad_rows):,} row(s) skipped (--strict)", highlight=False)
        raise typer.Exit(code=1)


def _show(result: CheckResult, worst: int) -> None:
    summary = result.summary()
    table = Table(title="veritype check", show_header=False, title_justify="left")
    mean = summary["mean_faithfulness"]
    low, high = summary["mean_faithfulness_ci95"] or (0.0, 0.0)
    table.add_row("rows checked / skipped", f"{summary['checked']:,} / {summary['skipped']:,}")
    table.add_row("mean faithfulness",
                  "n/a" if mean is None else f"{mean:.3f} (95% CI {low:.3f}–{high:.3f})")
    relevance = summary["mean_relevance"]
    table.add_row("mean answer relevance", "n/a" if relevance is None else f"{relevance:.3f}")
    table.add_row("rows", ", ".join(f"{n:,} {verdict_label(RowVerdict(v))}"
                                    for v, n in summary["verdicts"].items()))
    table.add_row("rows failing",
                  f"{summary['failing_rows']:,} (uncertain rows {summary['uncertain_as']})")
    table.add_row("claims", ", ".join(f"{n:,} {t}" for t, n in summary["claims"].items()))
    table.add_row("thresholds", f"Verified at support ≥ τ = {summary['tau']:.4g}, "
                  f"Unsupported at ≤ τ' = {summary['tau_low']:.4g}, Uncertain between")
    rate = summary["rows_per_second"]
    table.add_row("speed", "n/a" if rate is None else
                  f"{rate:.2f} rows/s ({summary['engine']}, {summary['workers']} worker(s))")
    _out.print(table)
    counts = summary["histogram"]
    top = max(counts) or 1
    for i, count in enumerate(counts):
        _out.print(f"  {i / len(counts):.1f}–{(i + 1) / len(counts):.1f} "
                   f"{'█' * round(30 * count / top):<30} {count:,}", highlight=False)
    for row in result.worst(worst):
        score = result.faithfulness_of(row)
        if score is None or row.passes(result.uncertain_as):
            continue
        named = f" (id {escape(row.row.row_id)})" if row.row.row_id else ""
        relevant = "" if row.relevance is None else f", relevance {row.relevance:.2f}"
        _out.print(f"\n[bold]line {row.row.line}[/]{named} faithfulness {score:.2f}, "
                   f"{escape(verdict_label(row.verdict))}{relevant}", highlight=False)
        if row.row.question:
            _out.print(f"  Q: {escape(row.row.question[:160])}", highlight=False)
        for claim in row.claims:
            if claim.type is not EvidenceType.VERIFIED:
                _out.print(f"  [{_STYLE[claim.type]}]{claim.type.value}[/] "
                           f"{escape(claim.written[:160])}", highlight=False)
                _out.print(f"      {escape(claim.reason)}", highlight=False)
    for bad in result.bad_rows[:10]:
        _err.print(f"skipped line {bad.line}: {escape(bad.problem)}", highlight=False)
    if len(result.bad_rows) > 10:
        _err.print(f"... and {len(result.bad_rows) - 10:,} more skipped rows (see the report)",
                   highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``check`` to the main CLI."""
    app.command("check")(check)
