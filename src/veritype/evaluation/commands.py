"""The evaluation commands of the CLI: ``veritype eval BENCHMARK`` plus annotation helpers."""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from veritype._cli import fail as _fail
from veritype._cli import progress as _progress
from veritype._ray import RAY_NEEDS_EXTRA
from veritype.errors import ConfigurationError, DataError, UnknownComponentError
from veritype.evaluation import e2e, gold, truthfulqa
from veritype.evaluation.human import export_for_annotation, kappa_from_files
from veritype.evaluation.report import RunResult, write_and_show
from veritype.evaluation.runner import DEFAULT_TAUS, EvalSettings, run_benchmark
from veritype.views import available_views

_out = Console()
_err = Console(stderr=True)
DEFAULT_TAU_TEXT = ",".join(f"{t:g}" for t in DEFAULT_TAUS)
BENCHMARKS = ("truthfulqa", "halueval", "scifact", "nli")


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


def _evaluate(
    benchmark: str,
    *,
    data_dir: Path,
    views: str,
    aggregator: str,
    tau: str,
    engine: str,
    ray_address: str | None,
    workers: int,
    out: Path,
    limit: int | None,
    subset: str | None,
    seed: int,
    resamples: int,
    cache_dir: Path | None,
    run: Callable[[EvalSettings], RunResult] | None = None,
) -> None:
    """Run ``benchmark`` (or ``run``, a benchmark with options of its own) and write its
    run directory."""
    if not data_dir.is_dir():
        raise _fail(f"data directory not found: {data_dir}")
    engine_options: dict[str, Any] = {}
    if engine == "ray":
        if importlib.util.find_spec("ray") is None:
            raise _fail(RAY_NEEDS_EXTRA)
        engine_options = {"address": ray_address, "workers": workers}
    elif ray_address is not None:
        raise _fail("--ray-address needs --engine ray")
    started = time.perf_counter()
    try:
        settings = EvalSettings(
            data_dir=data_dir,
            views=_parse_list(views, "--views"),
            aggregator=aggregator,
            taus=_parse_taus(tau),
            engine=engine,
            engine_options=engine_options,
            limit=limit,
            subsets=_parse_list(subset, "--subset") if subset is not None else None,
            seed=seed,
            resamples=resamples,
            cache_dir=cache_dir if cache_dir is not None else out / "cache",
            progress=partial(_progress, unit="pairs"),
            console=_err,
        )
        result = run_benchmark(benchmark, settings) if run is None else run(settings)
    except (DataError, ConfigurationError, UnknownComponentError, ValueError) as error:
        raise _fail(str(error)) from None
    write_and_show(result, out, started=started)


DataDirOption = Annotated[
    Path,
    typer.Option("--data-dir", envvar="VERITYPE_DATA_DIR",
                 help="The datasets folder (truthfulqa/, halueval/, scifact/, nli/)."),
]
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
WorkersOption = Annotated[int, typer.Option("--workers", help="Ray workers (one model copy each).")]
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


def _benchmark_command(name: str, summary: str) -> Any:
    def command(
        data_dir: DataDirOption,
        views: ViewsOption = "numeric,lexical,nli,align",
        aggregator: AggregatorOption = "learned",
        tau: TauOption = DEFAULT_TAU_TEXT,
        engine: EngineOption = "local",
        ray_address: RayAddressOption = None,
        workers: WorkersOption = 2,
        out: OutOption = Path("eval-runs"),
        limit: LimitOption = None,
        subset: SubsetOption = None,
        seed: SeedOption = 2024,
        resamples: ResamplesOption = 1000,
        cache_dir: CacheOption = None,
    ) -> None:
        _evaluate(name, data_dir=data_dir, views=views, aggregator=aggregator, tau=tau,
                  engine=engine, ray_address=ray_address, workers=workers, out=out,
                  limit=limit, subset=subset, seed=seed, resamples=resamples, cache_dir=cache_dir)

    command.__doc__ = summary
    return command


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


def _truthfulqa_command(summary: str) -> Any:
    def command(
        data_dir: DataDirOption,
        protocol: ProtocolOption = "current",
        seeds: SeedsOption = truthfulqa.DEFAULT_SEEDS,
        views: ViewsOption = "numeric,lexical,nli,align",
        aggregator: AggregatorOption = "learned",
        tau: TauOption = DEFAULT_TAU_TEXT,
        engine: EngineOption = "local",
        ray_address: RayAddressOption = None,
        workers: WorkersOption = 2,
        out: OutOption = Path("eval-runs"),
        limit: LimitOption = None,
        subset: SubsetOption = None,
        seed: ProtocolSeedOption = None,
        resamples: ResamplesOption = 1000,
        cache_dir: CacheOption = None,
    ) -> None:
        if protocol not in truthfulqa.PROTOCOLS:
            raise _fail(f"--protocol must be one of {', '.join(truthfulqa.PROTOCOLS)}, "
                        f"got {protocol!r}")
        split_seed = truthfulqa.PROTOCOLS[protocol].fixed_seed if seed is None else seed
        _evaluate("truthfulqa", data_dir=data_dir, views=views, aggregator=aggregator, tau=tau,
                  engine=engine, ray_address=ray_address, workers=workers, out=out,
                  limit=limit, subset=subset, seed=split_seed, resamples=resamples,
                  cache_dir=cache_dir, run=partial(truthfulqa.run_protocol, protocol=protocol,
                                              seeds=seeds, split_seed=split_seed))

    command.__doc__ = summary
    return command


def register(app: typer.Typer) -> None:
    """Add the evaluation commands to the main CLI."""
    eval_app = typer.Typer(
        help="Evaluate verification on public benchmarks; each run writes "
        "<out>/<benchmark>-<time>/ with report.json, report.md, table.tex and plots.",
        no_args_is_help=True,
    )
    summaries = {
        "truthfulqa": "TruthfulQA claim verification (30/70 split by question; --protocol "
        "reference reproduces the ETG reference's).",
        "halueval": "HaluEval qa, dialogue, summarization (rows ≥ 8000) and general.",
        "scifact": "SciFact end to end: retrieve from the corpus, verify, cite.",
        "nli": "Every NLI evaluation set.",
    }
    for name in BENCHMARKS:
        make = _truthfulqa_command if name == "truthfulqa" else partial(_benchmark_command, name)
        eval_app.command(name)(make(summaries[name]))
    e2e.register(eval_app)
    gold.register(eval_app)

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
        except DataError as error:
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
        except DataError as error:
            raise _fail(str(error)) from None
        if as_json:
            typer.echo(json.dumps(result, indent=2))
        else:
            _out.print(f"Fleiss' kappa {result['fleiss_kappa']:.3f} over {result['items']} items, "
                       f"{result['annotators']} annotators", highlight=False)

    app.add_typer(eval_app, name="eval")
