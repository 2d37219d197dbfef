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
from veritype._cli import EngineConfigOption, StoreOption, rich_progress
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
from veritype.verification import VerificationReport, verify_answer
from veritype.views import available_views, create_view

app = typer.Typer(
    name="veritype",
    help="Type every claim of an answer as Verified, Uncertain or Unsupported against evidence.",
    no_args_is_help=True,
    add_completion=False,
)
_out = Console()
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


def _drafting_with(settings: EngineConfig, model_path: Path) -> EngineConfig:
    """``settings`` drafting with the GGUF model at ``model_path`` (the local generator)."""
    if settings.generator != "local":
        raise InputError(f"--model-path drafts with the local generator, but the generator is "
                         f"{settings.generator!r}")
    if not model_path.is_file():
        raise InputError(f"--model-path {model_path}: no such model file")
    return settings.model_copy(update={"generator_options": {
        **settings.generator_options, "model_path": str(model_path)}})


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
    views: Annotated[
        str,
        typer.Option(
            "--views", help=f"Comma-separated view names; known: {', '.join(available_views())}."
        ),
    ] = DEFAULT_VIEWS,
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
        str,
        typer.Option("--aggregator",
                     help="How view results combine: default (the shipped fitted model when "
                     "its views run, else vote), vote, rule or learned."),
    ] = "default",
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
    contradicted), with the τ and τ' used (--json: "tau" and "tau_low")."""
    if (answer is None) == (answer_file is None):
        raise _fail("give exactly one of --answer TEXT or --answer-file FILE")
    try:
        limit = Budget(limit=budget)
        text = read_text_file(answer_file) if answer_file is not None else answer or ""
        documents = [
            Document.from_text(read_text_file(path), title=path.name, source=str(path))
            for path in evidence
        ]
        view_list = [create_view(name.strip()) for name in views.split(",") if name.strip()]
        strong = [view.name for view in view_list if view.strong]
        options: dict[str, object] = {"strong": strong}
        if aggregator_file is not None:
            options["path"] = aggregator_file
        combiner = (default_for([view.name for view in view_list], strong)
                    if aggregator == "default" else create_aggregator(aggregator, **options))
        recommended = recommended_thresholds(combiner)
        thresholds = Thresholds(tau=recommended[0] if tau is None else tau,
                                tau_low=recommended[1] if tau_low is None else tau_low)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    if not text.strip():
        raise _fail("the answer is empty")
    empty = [doc.source for doc in documents if not doc.text.strip()]
    if empty:
        raise _fail(f"evidence file is empty: {', '.join(empty)}")
    if not view_list:
        raise _fail("--views names no view")
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


train_app = typer.Typer(help="Train veritype's verifier models (needs the train extra).",
                        no_args_is_help=True)
app.add_typer(train_app, name="train")


DataDir = Annotated[
    Path,
    typer.Option("--data-dir", envvar="VERITYPE_DATA_DIR",
                 help="The datasets folder (nli/, halueval/, scifact/, ...)."),
]


@train_app.command("verifier")
def train_verifier(
    config: Annotated[Path, typer.Option("--config", "-c", help="Training config (TOML).")],
    data_dir: DataDir,
    output_dir: Annotated[
        Path | None,
        typer.Option("--output-dir", help="Where runs are written (overrides the config)."),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue from the run's last checkpoint.")
    ] = False,
    ship_to: Annotated[
        Path | None,
        typer.Option("--ship-to", help="Also copy the finished model into this directory."),
    ] = None,
    threads: Annotated[
        int | None, typer.Option("--threads", help="CPU threads (overrides the config).")
    ] = None,
) -> None:
    """Assemble data, fine-tune, evaluate, export to ONNX int8 and write the model card."""
    try:
        from veritype.train.run import run_training
    except ImportError as error:
        raise _fail(
            f"training needs the train extra ({error.name} is missing): "
            'pip install -e ".[train]"'
        ) from None

    try:
        with rich_progress() as progress:
            run_training(
                config, data_dir, output_dir=output_dir, resume=resume, ship_to=ship_to,
                threads=threads, progress=progress,
            )
    except VeritypeError as error:
        raise _fail(str(error)) from None


@train_app.command("answer-calibration")
def train_answer_calibration(
    model: Annotated[Path, typer.Option("--model", help="The exported answer model's folder "
                                        "(model.onnx, tokenizer.json, labels.json).")],
    data_dir: DataDir,
    questions: Annotated[int, typer.Option(
        "--questions", min=50, help="Calibration questions asked (default: one per "
        "calibration row).")] = 1000,
) -> None:
    """Calibrate an answer model on HaluEval-QA rows it never read: its threshold, P(right)
    and confidence labels (writes calibration.json and calibration_report.json beside it)."""
    from veritype._cli import progress as question_progress
    from veritype.train.answer_calibration import REPORT_FILE, calibrate_answers

    try:
        calibration = calibrate_answers(model, data_dir, questions=questions,
                                        progress=question_progress)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    report = json.loads((model / REPORT_FILE).read_text())
    _out.print(f"threshold {calibration.threshold:.4f}, high from P(right) "
                  f"{calibration.high:.3f}, medium from {calibration.medium:.3f}; answered "
                  f"{report['coverage']:.3f} of {report['questions']} questions, right "
                  f"{report['accuracy_answered']:.3f}")


@train_app.command("answer-reader")
def train_answer_reader(
    corpora: Annotated[list[Path], typer.Option(
        "--corpora", help="A folder of corpora with questions and gold answers (repeatable): "
        "benchmarks/data/answer_corpora (its calibration half only) or tests/data/corpora.")],
    out: Annotated[Path, typer.Option("--out", help="Where reader.json and "
                                      "reader_report.json are written.")],
    answer_model: Annotated[str, typer.Option(
        "--answer-model", help="The answer model whose P(answers) the reader reads: a name "
        "or a folder.")] = "answers",
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="The shared data folder: adds HaluEval-QA calibration rows "
        "7000-7999 as one more source.")] = None,
) -> None:
    """Fit the answer reader (the answer model's P(answers) weighed with what the question
    asks) on questions written for other corpora, calibrated by holding out each corpus."""
    from veritype.train.answer_reader import train_answer_reader as fit

    try:
        report = fit(corpora, out, answer_model=answer_model, data_dir=data_dir,
                     progress=_out.print)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    best = report["best_candidate_holds_answer"]
    held = report["calibration"]["held_out"]["all"]
    _out.print(
        f"held out by corpus, the best-ranked sentence holds the answer for {best['reader']} "
        f"of {best['answerable']} answerable questions (answer model alone "
        f"{best['answer_model']}, shared words {best['shared_words']}); held out, shown answers "
        f"right {held['right_when_shown']} at coverage {held['answerable_coverage']}, "
        f"unanswerable abstained {held['unanswerable_abstained']}")


@train_app.command("label")
def train_label(
    config: Annotated[Path, typer.Option("--config", "-c", help="The recipe whose training "
                                         "pairs are labelled (TOML).")],
    teacher: Annotated[str, typer.Option("--teacher", help="judge, or a verifier model: a "
                                         "shipped name, an exported folder or a hub id.")],
    out: Annotated[Path, typer.Option("--out", help="The soft-label file (JSON lines); an "
                                      "unfinished one is continued.")],
    data_dir: DataDir,
    teacher_option: Annotated[
        list[str] | None,
        typer.Option("--teacher-option", help="KEY=VALUE for the judge teacher, repeatable "
                     "(model_path=..., judge=openai, base_url=...)."),
    ] = None,
    threads: Annotated[int, typer.Option("--threads", help="CPU threads of a model teacher.")
                       ] = 2,
) -> None:
    """Score a recipe's training pairs with a teacher, for distillation: name the file in a
    later recipe's soft_label_files."""
    try:
        from veritype.train.config import TrainConfig
        from veritype.train.label import label_pairs, make_teacher
    except ImportError as error:
        raise _fail(
            f"labelling needs the train extra ({error.name} is missing): "
            'pip install -e ".[train]"'
        ) from None
    options = _parse_key_values(teacher_option or [], "--teacher-option")
    try:
        recipe = TrainConfig.load(config)
        scorer = make_teacher(teacher, threads=threads, **options)
        with rich_progress() as progress:
            total = label_pairs(recipe, data_dir, scorer, out, progress=progress)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    typer.echo(f"{total} pairs labelled by {teacher} in {out}")


@train_app.command("aggregator")
def train_aggregator(
    data_dir: DataDir,
    output_dir: Annotated[
        Path, typer.Option("--output-dir", help="Where aggregator.json and its card go.")
    ],
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed of the made-up pairs.")] = 0,
    judge: Annotated[
        bool, typer.Option("--judge", help="Also fit the judge's head on a judged sample of "
                           "the claims the encoders leave unsettled (needs the judge extra; "
                           "about 20 minutes on 2 cores).")
    ] = False,
    judge_head_from: Annotated[
        Path | None, typer.Option("--judge-head-from", show_default=False,
                                  help="Reuse the judge head of this earlier aggregator.json, "
                                  "shifted to the new τ, instead of judging a sample anew.")
    ] = None,
    per_source: Annotated[
        int | None, typer.Option("--per-source", min=50, show_default="every claim",
                                 help="Fit on a sample of at most this many claims of each "
                                 "source (seeded): a fraction of the scoring time.")
    ] = None,
) -> None:
    """Fit the default aggregator on training-side data from several sources; choose its views
    by leave-one-source-out and its thresholds on the pooled data; write the model, its report
    and its card. Scores are cached in the output folder: a rerun scores only what is new."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from veritype.train.aggregator import fit_default

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), transient=True) as progress:
        task = progress.add_task("scoring pairs", total=None)
        try:
            report = fit_default(
                data_dir, output_dir, seed=seed, judge=judge, per_source=per_source,
                judge_head_from=judge_head_from,
                on_progress=lambda done, total: progress.update(task, completed=done,
                                                                total=total),
            )
        except VeritypeError as error:
            raise _fail(str(error)) from None
    chosen = report["chosen"]
    # The figure the views were chosen by (``fit_default``): right less wrong, held out.
    mean = report["leave_one_source_out"][chosen["candidate"]]["mean_net_right"]
    single = report["leave_one_source_out"][chosen["best_single_view"]]
    typer.echo(
        f"views {chosen['candidate']}: tau {chosen['tau']:.3f}, tau_low {chosen['tau_low']:.3f}, "
        f"kappa {chosen['kappa']:.3f}; held-out right less wrong {mean:.3f} (best single view "
        f"{chosen['best_single_view']}: {single['mean_net_right']:.3f}) -> {output_dir}"
    )


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
        "k", "-k", help="Evidence chunks for the query.")] = None,
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
    model_path: Annotated[
        Path | None,
        typer.Option("--model-path", help="A GGUF model to draft with: the local generator "
                     "(the llm extra), e.g. the judge's Qwen2.5 GGUF."),
    ] = None,
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
        parsed = _parse_key_values(filters or [], "--filter")
        settings = EngineConfig.load(
            config, store=store, tau=tau, tau_low=tau_low, budget=budget,
            generator=generator or ("local" if model_path is not None else None),
            k=k, contradicted=contradicted, mode=mode,
            views=[name.strip() for name in views.split(",") if name.strip()] if views else None,
        )
        if model_path is not None:
            settings = _drafting_with(settings, model_path)
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


def _parse_key_values(items: list[str], option: str) -> dict[str, str]:
    """``KEY=VALUE`` items of a repeatable ``option``; anything else exits naming it."""
    parsed: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise _fail(f"{option} takes KEY=VALUE, got {item!r}")
        parsed[key.strip()] = value.strip()
    return parsed


def _print_report(report: VerificationReport) -> None:
    _print_grounded(report.grounded)
    _out.print(f"Verified at support ≥ τ = {report.tau:.4g}; Unsupported at ≤ τ' = "
               f"{report.tau_low:.4g} or when contradicted; Uncertain between.",
               highlight=False)


def _print_grounded(grounded: GroundedAnswer) -> None:
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
    _out.print(f"[bold]Confidence:[/] {grounded.confidence.value} "
               f"({right}{shown} of {len(counted)} claims on the question shown)")
    for limitation in grounded.limitations:
        _out.print(f"  - {escape(limitation)}", highlight=False)
    if grounded.query_refinements:
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


def main() -> None:
    app()
