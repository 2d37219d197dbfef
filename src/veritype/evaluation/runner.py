"""What every benchmark shares: its settings, progress reporting, scoring and a registry."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from veritype._registry import Registry
from veritype.evaluation.data import Example
from veritype.evaluation.metrics import Bools, Bootstrap, Floats, binary_metrics, confusion
from veritype.evaluation.report import RunResult
from veritype.evaluation.scoring import (
    DEFAULT_BLOCK_SIZE,
    OnBlock,
    ScoreTable,
    ScoringEngine,
    create_engine,
    plan_blocks,
    score_examples,
)

DEFAULT_VIEWS = ("numeric", "lexical", "nli", "align")
DEFAULT_TAUS = (0.2, 0.4, 0.6, 0.8, 1.0)
SPLIT_SEED = 2024

# Opens a progress display for ``total`` units of work; the callback reports units done.
ProgressFactory = Callable[[str, int], AbstractContextManager[OnBlock]]


@contextmanager
def no_progress(description: str, total: int) -> Iterator[OnBlock]:
    yield lambda done: None


@dataclass(slots=True)
class EvalSettings:
    """How to run a benchmark. ``aggregator`` picks the family of the headline configuration;
    ``subsets`` the tasks or sets of benchmarks that have several (None: all)."""

    data_dir: Path
    views: tuple[str, ...] = DEFAULT_VIEWS
    aggregator: str = "learned"
    taus: tuple[float, ...] = DEFAULT_TAUS
    engine: str = "local"
    engine_options: dict[str, Any] = field(default_factory=dict)
    limit: int | None = None
    subsets: tuple[str, ...] | None = None
    seed: int = SPLIT_SEED
    block_size: int = DEFAULT_BLOCK_SIZE
    resamples: int = 1000
    cache_dir: Path | None = None
    progress: ProgressFactory = no_progress
    # Where long steps outside verification (corpus ingestion) show their own progress.
    console: Any = None
    engine_cache: ScoringEngine | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.aggregator not in ("vote", "learned"):
            raise ValueError(f"aggregator must be vote or learned, got {self.aggregator!r}")
        if not self.views:
            raise ValueError("no views given")
        for tau in self.taus:
            if not 0.0 < tau <= 1.0:
                raise ValueError(f"tau must lie in (0, 1], got {tau}")
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"limit must be >= 1, got {self.limit}")

    def engine_instance(self) -> ScoringEngine:
        """The scoring engine, created once per run (models load once)."""
        if self.engine_cache is None:
            self.engine_cache = create_engine(self.engine, self.views, **self.engine_options)
        return self.engine_cache


def score(settings: EvalSettings, examples: Sequence[Example], description: str) -> ScoreTable:
    """Every view on every example, with a progress bar over the distinct pairs."""
    engine = settings.engine_instance()
    blocks, _ = plan_blocks(examples, settings.block_size)
    started = time.perf_counter()
    with settings.progress(description, sum(len(b) for b in blocks)) as advance:
        table = score_examples(engine, examples, block_size=settings.block_size, on_block=advance)
    table.timings["score_total"] = time.perf_counter() - started
    return table


def split_by_group(groups: Sequence[str], seed: int, share: float = 0.3) -> Bools:
    """True for the calibration share of the groups (shuffled with ``seed``), else held out.

    The order of first appearance fixes the shuffle, as the original protocol did with
    question numbers.
    """
    import random

    names = list(dict.fromkeys(groups))
    random.Random(seed).shuffle(names)
    calibration = set(names[: int(share * len(names))])
    mask: Bools = np.array([g in calibration for g in groups], dtype=bool)
    return mask


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


class Benchmark(Protocol):
    def __call__(self, settings: EvalSettings) -> RunResult: ...


_BENCHMARKS = Registry[Benchmark]("benchmark")
register_benchmark = _BENCHMARKS.register


def available_benchmarks() -> list[str]:
    _load_builtin()
    return _BENCHMARKS.names()


def run_benchmark(name: str, settings: EvalSettings) -> RunResult:
    """Run the benchmark registered as ``name``; unknown names list the known ones."""
    _load_builtin()
    benchmark = _BENCHMARKS.get(name)
    started = time.perf_counter()
    result = benchmark(settings)
    result.timings["benchmark_total"] = time.perf_counter() - started
    return result


def _load_builtin() -> None:
    # The built-in benchmarks register themselves on import.
    from veritype.evaluation import halueval, nli, scifact, truthfulqa  # noqa: F401
