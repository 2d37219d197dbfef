"""The evaluation commands of the CLI: ``veritype eval BENCHMARK`` plus annotation helpers."""

from __future__ import annotations

import importlib.util
import inspect
import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from pydantic import ValidationError
from rich.console import Console

from veritype._cli import (
    DataDirOption,
    ViewOptionOption,
    output_console,
    parse_view_options,
    rich_progress,
)
from veritype._cli import fail as _fail
from veritype._cli import progress as _progress
from veritype._ray import RAY_NEEDS_EXTRA, RAY_WORKERS
from veritype.errors import VeritypeError
from veritype.evaluation import gold, truthfulqa
from veritype.evaluation.e2e import (
    DEFAULT_K,
    DEFAULT_MAX_TOKENS,
    DEFAULT_QUESTIONS,
    DEFAULT_SEED,
    E2ESettings,
    EndToEnd,
)
from veritype.evaluation.human import export_for_annotation, kappa_from_files
from veritype.evaluation.report import RunResult, format_cell, write_run
from veritype.evaluation.runner import (
    DEFAULT_TAUS,
    DEFAULT_VIEWS,
    SPLIT_SEED,
    EvalSettings,
    ProgressFactory,
    run_benchmark,
)
from veritype.settings import Settings
from veritype.views import available_views

_out = output_console()
_err = Console(stderr=True)
DEFAULT_TAU_TEXT = ",".join(f"{t:g}" for t in DEFAULT_TAUS)
BENCHMARKS = ("truthfulqa", "halueval", "scifact", "nli")
SUMMARIES = {
    "truthfulqa": "TruthfulQA claim verification (30/70 split by question; --protocol "
    "reference reproduces the ETG reference's).",
    "halueval": "HaluEval qa, dialogue, summarization (rows ≥ 8000) and general.",
    "scifact": "SciFact end to end: retrieve from the corpus, verify, cite.",
    "nli": "Every NLI evaluation set.",
}
SettingsType = TypeVar("SettingsType", bound=Settings)
# Runs an answering benchmark from its settings, showing progress.
AnsweringRun = Callable[[E2ESettings, ProgressFactory], RunResult]


def _parse_list(text: str, label: str) -> tuple[str, ...]:
    items = tuple(part.strip() for part in text.split(",") if part.strip())
    if not items:
        raise _fail(f"{label} names nothing")
    return items


def _parse_taus(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(part) for part in _parse_list(text, "--tau"))
    except ValueError:
        raise _fail(f"--tau must be comma-separated numbers, got {text!r}") from None


def _validated(settings: type[SettingsType], values: dict[str, Any]) -> SettingsType:
    """``settings`` made of ``values``; a bad value exits with its validator's message."""
    try:
        return settings.model_validate(values)
    except ValidationError as error:
        reasons = [str(item.get("ctx", {}).get("error", item["msg"])) for item in error.errors()]
        raise _fail("; ".join(reasons)) from None


def _write_and_show(result: RunResult, out: Path, *, started: float | None = None) -> Path:
    """``write_run``, then show the run's notes on stderr and its headline on stdout."""
    path = write_run(result, out, started=started)
    for note in result.notes:
        _err.print(note, highlight=False, markup=False)
    width = max(len(key) for key in result.headline)
    for key, value in result.headline.items():
        _out.print(f"{key:<{width}}  {format_cell(value)}", highlight=False)
    _out.print(f"run written to {path}", highlight=False)
    return path


def _evaluate(
    benchmark: str,
    *,
    data_dir: Path,
    views: str,
    view_option: list[str] | None,
    aggregator: str,
    tau: str,
    engine: str,
    ray_address: str | None,
    workers: int | None,
    out: Path,
    limit: int | None,
    subset: str | None,
    seed: int,
    resamples: int,
    cache_dir: Path | None,
    **benchmark_options: Any,
) -> None:
    """Run ``benchmark`` (with ``benchmark_options``, the options of its own) and write its
    run directory."""
    if not data_dir.is_dir():
        raise _fail(f"data directory not found: {data_dir}")
    engine_options: dict[str, Any] = {}
    if engine == "ray":
        if importlib.util.find_spec("ray") is None:
            raise _fail(RAY_NEEDS_EXTRA)
        engine_options = {"address": ray_address, "workers": workers or RAY_WORKERS}
    elif ray_address is not None:
        raise _fail("--ray-address needs --engine ray")
    elif workers is not None:
        engine_options = {"workers": workers}
    started = time.perf_counter()
    settings = _validated(EvalSettings, {
        "data_dir": data_dir,
        "views": _parse_list(views, "--views"),
        "view_options": parse_view_options(view_option or []),
        "aggregator": aggregator,
        "taus": _parse_taus(tau),
        "engine": engine,
        "engine_options": engine_options,
        "limit": limit,
        "subsets": _parse_list(subset, "--subset") if subset is not None else None,
        "seed": seed,
        "resamples": resamples,
        "cache_dir": cache_dir if cache_dir is not None else out / "cache",
    })
    try:
        result = run_benchmark(benchmark, settings, progress=partial(_progress, unit="pairs"),
                               ingest_progress=partial(rich_progress, _err),
                               **benchmark_options)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    _write_and_show(result, out, started=started)


def _command(run: Callable[..., None], summary: str,
             parameters: list[tuple[str, Any, Any]]) -> Callable[..., None]:
    """``run`` as a command whose options are ``parameters`` (name, annotation with its
    typer option, default; ``inspect.Parameter.empty`` for a required one)."""

    def command(**options: Any) -> None:
        run(**options)

    command.__doc__ = summary
    command.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                          default=default)
        for name, annotation, default in parameters
    ])
    return command


ViewsOption = Annotated[
    str,
    typer.Option("--views", help=f"Comma-separated views; known: {', '.join(available_views())}."),
]
AggregatorOption = Annotated[
    str, typer.Option("--aggregator", help="Family of the headline configuration: vote or learned.")
]
TauOption = Annotated[
    str, typer.Option("--tau", help="Comma-separated τ values of the vote sweep.")
]
EngineOption = Annotated[str, typer.Option("--engine", help="local, or ray (Ray Data).")]
RayAddressOption = Annotated[
    str | None, typer.Option("--ray-address", help="A running Ray cluster (default: start one).")
]
WorkersOption = Annotated[
    int | None,
    typer.Option("--workers", min=1, show_default=False,
                 help="Worker processes, one model copy each (default: ray 2; local one per "
                 "CPU from 2,000 pairs, else none: 1 scores in this process)."),
]
OutOption = Annotated[Path, typer.Option("--out", help="Where run directories are written.")]
LimitOption = Annotated[
    int | None, typer.Option("--limit", help="Only the first N questions/rows/claims (quick runs).")
]
SubsetOption = Annotated[
    str | None,
    typer.Option("--subset", help="Comma-separated tasks or sets (halueval: qa,dialogue,"
                 "summarization,general; nli: set names). Default: all."),
]
SeedOption = Annotated[int, typer.Option("--seed", help="Seed of the calibration split.")]
ResamplesOption = Annotated[int, typer.Option("--resamples", help="Bootstrap resamples.")]
CacheOption = Annotated[
    Path | None,
    typer.Option("--cache-dir",
                 help="Where the SciFact corpus store is kept (default: under --out)."),
]
ProtocolOption = Annotated[
    str,
    typer.Option("--protocol",
                 help="current: the later 2021 file and the 2025 release, evidence = Best "
                 "Answer; reference: the ETG reference's 2021-09-10 file, 5,865 claims, "
                 "evidence = question + Best Answer, numpy seed-42 split."),
]
SeedsOption = Annotated[
    int,
    typer.Option("--seeds", help="Split seeds 0..N-1 on which the whole selection is redone "
                 "for the spread of the held-out figures (0: none)."),
]
ProtocolSeedOption = Annotated[
    int | None,
    typer.Option("--seed", help="Seed of the calibration split (default: the protocol's, "
                 "2024 for current, 42 for reference)."),
]
# The options of every benchmark command, in the order --help lists them.
BENCHMARK_OPTIONS: list[tuple[str, Any, Any]] = [
    ("data_dir", DataDirOption, inspect.Parameter.empty),
    ("views", ViewsOption, ",".join(DEFAULT_VIEWS)),
    ("view_option", ViewOptionOption, None),
    ("aggregator", AggregatorOption, "learned"),
    ("tau", TauOption, DEFAULT_TAU_TEXT),
    ("engine", EngineOption, "local"),
    ("ray_address", RayAddressOption, None),
    ("workers", WorkersOption, None),
    ("out", OutOption, Path("eval-runs")),
    ("limit", LimitOption, None),
    ("subset", SubsetOption, None),
    ("seed", SeedOption, SPLIT_SEED),
    ("resamples", ResamplesOption, 1000),
    ("cache_dir", CacheOption, None),
]


def _truthfulqa(protocol: str, seeds: int, seed: int | None, **options: Any) -> None:
    if protocol not in truthfulqa.PROTOCOLS:
        raise _fail(f"--protocol must be one of {', '.join(truthfulqa.PROTOCOLS)}, "
                    f"got {protocol!r}")
    split_seed = truthfulqa.PROTOCOLS[protocol].fixed_seed if seed is None else seed
    _evaluate("truthfulqa", seed=split_seed, protocol=protocol, seeds=seeds, **options)


def _benchmark_command(name: str) -> Callable[..., None]:
    if name != "truthfulqa":
        return _command(partial(_evaluate, name), SUMMARIES[name], BENCHMARK_OPTIONS)
    # TruthfulQA adds its protocol and seed spread, and defaults the seed by protocol.
    seed = ("seed", ProtocolSeedOption, None)
    return _command(_truthfulqa, SUMMARIES[name], [
        BENCHMARK_OPTIONS[0], ("protocol", ProtocolOption, "current"),
        ("seeds", SeedsOption, truthfulqa.DEFAULT_SEEDS),
        *(seed if option[0] == "seed" else option for option in BENCHMARK_OPTIONS[1:]),
    ])


def _answer(run: AnsweringRun, out: Path, **options: Any) -> None:
    """Run an answering benchmark: settings from ``options``, errors as one line, the run
    directory under ``out`` and the headline printed."""
    started = time.perf_counter()
    settings = _validated(E2ESettings, options)
    try:
        result = run(settings, _progress)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    _write_and_show(result, out, started=started)


def _answering_command(run: AnsweringRun, summary: str, *, generator: tuple[str, str],
                       limit: tuple[int, str], seed_help: str, distractors_help: str
                       ) -> Callable[..., None]:
    """A command with the options every answering benchmark takes; ``generator`` and
    ``limit`` give the default and help of those options."""
    return _command(partial(_answer, run), summary, [
        ("data_dir", Annotated[Path, typer.Option(
            "--data-dir", envvar="VERITYPE_DATA_DIR",
            help="The datasets folder (truthfulqa/, halueval/).")], inspect.Parameter.empty),
        ("generator", Annotated[str, typer.Option("--generator", help=generator[1])],
         generator[0]),
        ("limit", Annotated[int, typer.Option("--limit", help=limit[1])], limit[0]),
        ("k", Annotated[int, typer.Option("--k", help="Chunks retrieved for the draft.")],
         DEFAULT_K),
        ("max_tokens", Annotated[int, typer.Option(
            "--max-tokens", help="Longest draft, in tokens.")], DEFAULT_MAX_TOKENS),
        ("seed", Annotated[int, typer.Option("--seed", help=seed_help)], DEFAULT_SEED),
        ("resamples", ResamplesOption, 1000),
        ("distractors", Annotated[int | None, typer.Option(
            "--distractors", help=distractors_help)], None),
        ("out", OutOption, Path("eval-runs")),
    ])


def _end_to_end(settings: E2ESettings, progress: ProgressFactory) -> RunResult:
    return EndToEnd(settings, progress=progress).run()


def _register_answering(eval_app: typer.Typer) -> None:
    eval_app.command("e2e")(_answering_command(
        _end_to_end,
        "Raw drafts vs rendered answers judged by veritype's own models (self-consistency).",
        generator=("local", "Drafting generator: local, extractive, openai."),
        limit=(DEFAULT_QUESTIONS, "Questions sampled from each of TruthfulQA and HaluEval-QA."),
        seed_help="Seed of the question samples.",
        distractors_help="Only the questions' own evidence plus this many other texts per "
        "corpus (default: every text)."))
    gold_options: dict[str, Any] = {
        "seed_help": "Seed of the question sample.",
        "distractors_help": "Only the questions' own evidence plus this many other texts "
        "(default: every text).",
    }
    eval_app.command("corpus-qa")(_answering_command(
        gold.run_corpus_qa,
        "Questions over a corpus of similar paragraphs, judged by their gold answers.",
        generator=("extractive", "Drafting generator: extractive, local, openai."),
        limit=(gold.CORPUS_QA_QUESTIONS, "Questions asked (HaluEval-QA rows ≥ 8000)."),
        **gold_options))
    eval_app.command("truthfulqa-gen")(_answering_command(
        gold.run_truthfulqa,
        "TruthfulQA generation judged by its own metric (ROUGE-L against the references).",
        generator=("local", "Drafting generator: extractive, local, openai."),
        limit=(gold.TRUTHFULQA_QUESTIONS, "TruthfulQA questions asked."),
        **gold_options))


def register(app: typer.Typer) -> None:
    """Add the evaluation commands to the main CLI."""
    eval_app = typer.Typer(
        help="Evaluate verification on public benchmarks; each run writes "
        "<out>/<benchmark>-<time>/ with report.json, report.md, table.tex and plots.",
        no_args_is_help=True,
    )
    for name in BENCHMARKS:
        eval_app.command(name)(_benchmark_command(name))
    _register_answering(eval_app)

    @eval_app.command("export")
    def export(
        run_dir: Annotated[Path, typer.Argument(help="A run directory of veritype eval.")],
        output: Annotated[
            Path, typer.Option("--output", "-o", help="The .csv or .jsonl to write.")
        ],
        count: Annotated[int | None, typer.Option("--count", help="How many claims.")] = None,
        seed: Annotated[int, typer.Option("--seed", help="Shuffle seed.")] = 0,
    ) -> None:
        """Export a run's claims with their evidence, shuffled, for human annotators."""
        try:
            written, key = export_for_annotation(run_dir, output, count=count, seed=seed)
        except VeritypeError as error:
            raise _fail(str(error)) from None
        _out.print(f"wrote {written} (answer key: {key})", highlight=False)

    @eval_app.command("kappa")
    def kappa(
        files: Annotated[list[Path], typer.Argument(help="One returned file per annotator.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Fleiss' κ of the annotators' labels on the items they all labelled."""
        try:
            result = kappa_from_files(files)
        except VeritypeError as error:
            raise _fail(str(error)) from None
        if as_json:
            typer.echo(json.dumps(result, indent=2))
        else:
            _out.print(f"Fleiss' kappa {result['fleiss_kappa']:.3f} over {result['items']} items, "
                       f"{result['annotators']} annotators", highlight=False)

    app.add_typer(eval_app, name="eval")
