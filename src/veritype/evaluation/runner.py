"""What every benchmark shares: its settings, the calibration split, scoring and a registry.

A benchmark is an :class:`Evaluator` subclass registered by name: configured in
``__init__`` (settings, plus the runtime objects a run reports progress to), run by
:meth:`Evaluator.run`, which returns its :class:`RunResult`.
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import Field, field_validator, model_validator

from veritype._registry import Registry
from veritype.errors import ConfigurationError
from veritype.evaluation.data import Example
from veritype.evaluation.metrics import Bools, Bootstrap, Floats, binary_metrics, confusion
from veritype.evaluation.report import RunResult, Table
from veritype.evaluation.scoring import (
    DEFAULT_BLOCK_SIZE,
    OnBlock,
    ScoreTable,
    ScoringEngine,
    create_engine,
    plan_blocks,
    score_examples,
)
from veritype.settings import Settings, check_view_options

if TYPE_CHECKING:
    from veritype.progress import Progress

DEFAULT_VIEWS = ("numeric", "lexical", "nli", "align")
DEFAULT_TAUS = (0.2, 0.4, 0.6, 0.8, 1.0)
SPLIT_SEED = 2024
CALIBRATION_SHARE = 0.3

# Opens a display for the steps of a corpus ingestion (see ``veritype.progress``).
IngestProgressFactory = Callable[[], AbstractContextManager["Progress | None"]]

# Opens a progress display for ``total`` units of work; the callback reports units done.
ProgressFactory = Callable[[str, int], AbstractContextManager[OnBlock]]


@contextmanager
def no_progress(description: str, total: int) -> Iterator[OnBlock]:
    yield lambda done: None


class EvalSettings(Settings):
    """How to run a benchmark. ``aggregator`` picks the family of the headline configuration;
    ``subsets`` the tasks or sets of benchmarks that have several (None: all)."""

    data_dir: Path
    views: tuple[str, ...] = DEFAULT_VIEWS
    aggregator: str = "learned"
    taus: tuple[float, ...] = DEFAULT_TAUS
    engine: str = "local"
    engine_options: dict[str, Any] = Field(default_factory=dict)
    view_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    limit: int | None = None
    subsets: tuple[str, ...] | None = None
    seed: int = SPLIT_SEED
    block_size: int = DEFAULT_BLOCK_SIZE
    resamples: int = 1000
    cache_dir: Path | None = None

    @field_validator("aggregator")
    @classmethod
    def _known_family(cls, aggregator: str) -> str:
        if aggregator not in ("vote", "learned"):
            raise ConfigurationError(f"aggregator must be vote or learned, got {aggregator!r}")
        return aggregator

    @field_validator("views")
    @classmethod
    def _some_views(cls, views: tuple[str, ...]) -> tuple[str, ...]:
        if not views:
            raise ConfigurationError("no views given")
        return views

    @model_validator(mode="after")
    def _options_name_run_views(self) -> EvalSettings:
        check_view_options(self.view_options, self.views)
        return self

    @field_validator("taus")
    @classmethod
    def _fractions(cls, taus: tuple[float, ...]) -> tuple[float, ...]:
        for tau in taus:
            if not 0.0 < tau <= 1.0:
                raise ConfigurationError(f"tau must lie in (0, 1], got {tau}")
        return taus

    @field_validator("limit")
    @classmethod
    def _positive_limit(cls, limit: int | None) -> int | None:
        return at_least("limit", limit, 1)


def at_least(label: str, value: int | None, minimum: int) -> int | None:
    """``value`` (None passes) unless it is below ``minimum``: ConfigurationError then."""
    if value is not None and value < minimum:
        raise ConfigurationError(f"{label} must be >= {minimum}, got {value}")
    return value


def engine_for(settings: EvalSettings) -> ScoringEngine:
    """The scoring engine the settings name, running their views."""
    return create_engine(settings.engine, settings.views, view_options=settings.view_options,
                         **settings.engine_options)


def score(
    settings: EvalSettings,
    examples: Sequence[Example],
    description: str,
    *,
    engine: ScoringEngine | None = None,
    progress: ProgressFactory = no_progress,
) -> ScoreTable:
    """Every view on every example, with a progress display over the distinct pairs;
    without ``engine`` one is created from the settings."""
    if engine is None:
        engine = engine_for(settings)
    blocks, _ = plan_blocks(examples, settings.block_size)
    started = time.perf_counter()
    with progress(description, sum(len(b) for b in blocks)) as advance:
        table = score_examples(engine, examples, block_size=settings.block_size, on_block=advance)
    table.timings["score_total"] = time.perf_counter() - started
    return table


def split_by_group(groups: Sequence[str], seed: int, share: float = CALIBRATION_SHARE) -> Bools:
    """The calibration/evaluation split of every benchmark that draws one: True for the
    calibration share of the groups (shuffled with ``seed``), False for the held-out rest.

    The order of first appearance fixes the shuffle, as the original protocol did with
    question numbers.
    """
    names = list(dict.fromkeys(groups))
    random.Random(seed).shuffle(names)
    calibration = set(names[: int(share * len(names))])
    mask: Bools = np.array([g in calibration for g in groups], dtype=bool)
    return mask


def held_out_bootstrap(groups: Sequence[str], calibration: Bools, resamples: int, seed: int
                       ) -> Bootstrap:
    """Bootstrap resamples of the held-out groups (those outside ``calibration``)."""
    return Bootstrap.draw([g for g, c in zip(groups, calibration, strict=True) if not c],
                          resamples, seed)


def operating_point(
    score_values: Floats,
    threshold: float | None,
    truth: Bools,
    bootstrap: Bootstrap | None,
) -> dict[str, Any]:
    """Metrics (with bootstrap CIs) of accepting ``score ≥ threshold``; None accepts nothing."""
    accepted: Bools = (
        score_values >= threshold if threshold is not None else np.zeros(len(truth), dtype=bool)
    )
    point: dict[str, Any] = {"threshold": threshold, **binary_metrics(accepted, truth)}
    point["confusion"] = confusion(accepted, truth)
    if bootstrap is not None:
        point["ci95"] = {k: list(v) for k, v in bootstrap.intervals(accepted, truth).items()}
    return point


class Evaluator(ABC):
    """One benchmark run: configured here, run by :meth:`run`; ``name`` is the benchmark's
    registered name.

    ``progress`` shows the long steps, ``ingest_progress`` the ingestion of a corpus, and ``engine``
    (created from the settings on first use when not given) scores every example.
    """

    name: ClassVar[str]

    def __init__(
        self,
        settings: EvalSettings,
        *,
        progress: ProgressFactory = no_progress,
        ingest_progress: IngestProgressFactory = nullcontext,
        engine: ScoringEngine | None = None,
    ) -> None:
        self.settings = settings
        self.progress = progress
        self.ingest_progress = ingest_progress
        self._engine = engine

    @abstractmethod
    def run(self) -> RunResult:
        """The benchmark's figures, tables, plots and examples."""

    @property
    def engine(self) -> ScoringEngine:
        """The scoring engine, created once per run (models load once)."""
        if self._engine is None:
            self._engine = engine_for(self.settings)
        return self._engine

    def score(self, examples: Sequence[Example], description: str) -> ScoreTable:
        return score(self.settings, examples, description, engine=self.engine,
                     progress=self.progress)

    def calibration_split(self, groups: Sequence[str], seed: int | None = None) -> Bools:
        """The run's calibration split of ``groups`` (seed: the settings', unless given)."""
        return split_by_group(groups, self.settings.seed if seed is None else seed)

    def bootstrap(self, groups: Sequence[str], calibration: Bools, seed: int | None = None
                  ) -> Bootstrap:
        """The held-out bootstrap of a split, with the settings' resamples."""
        return held_out_bootstrap(groups, calibration, self.settings.resamples,
                                  self.settings.seed if seed is None else seed)

    def result(self, *, config: dict[str, Any], headline: dict[str, float | int | str],
               sections: dict[str, Any], tables: list[Table], timings: dict[str, float]
               ) -> RunResult:
        """The run's result under this benchmark's name; the config records the view options
        (a model path changes every figure)."""
        config = {**config, "view_options": self.settings.view_options}
        return RunResult(benchmark=self.name, config=config, headline=headline,
                         sections=sections, tables=tables, timings=timings)


_BENCHMARKS = Registry[Evaluator](
    "benchmark",
    lazy={
        "halueval": "veritype.evaluation.halueval:HaluEval",
        "nli": "veritype.evaluation.nli:NLI",
        "scifact": "veritype.evaluation.scifact:SciFact",
        "truthfulqa": "veritype.evaluation.truthfulqa:TruthfulQA",
    },
)


# The built-in benchmarks load on first use; ``register_benchmark(name)`` adds others.
register_benchmark = _BENCHMARKS.register
available_benchmarks = _BENCHMARKS.names
create_benchmark = _BENCHMARKS.create


def run_benchmark(name: str, settings: EvalSettings, **options: Any) -> RunResult:
    """Run the benchmark registered as ``name`` with ``options`` (progress, ingest_progress,
    engine, and any of its own); unknown names list the known ones."""
    evaluator = create_benchmark(name, settings=settings, **options)
    started = time.perf_counter()
    result = evaluator.run()
    result.timings["benchmark_total"] = time.perf_counter() - started
    return result
