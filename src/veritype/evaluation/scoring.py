"""Batch verification for evaluation: every view on every (evidence, claim) pair, once.

Identical (evidence, claim) pairs are scored once however many examples share them; the
distinct pairs are sorted by length (less padding in the model views) and cut into fixed
blocks. A block is the unit of work of every engine, and a block's results depend only on
the block itself (model caches are cleared at its start), so the local and the Ray engine
give bit-identical results on the same inputs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from veritype._cpus import default_threads
from veritype._pool import WorkerPool
from veritype._registry import Registry
from veritype.claims import Claim
from veritype.errors import ConfigurationError
from veritype.evaluation.data import Example
from veritype.evidence import EvidencePack
from veritype.views import (
    Verdict,
    VerificationView,
    clear_model_caches,
    create_view,
    with_threads,
)

# Verdict codes are the enum's order (entailed, contradicted, unknown, abstained): saved
# score tables hold them, and the calibrated aggregator reads them as they are.
VERDICTS = tuple(Verdict)
ENTAILED, CONTRADICTED, UNKNOWN, ABSTAINED = range(4)
DEFAULT_BLOCK_SIZE = 256
# From how many pairs in one call the local engine starts a worker process per CPU. Starting
# them costs a second or two, the time of about a hundred pairs; an evaluation scores
# thousands (TruthfulQA: 6,101, verified in 37 s with two workers against 69 s in one
# process, benchmarks/eval_speed.py), while a quick run (--limit) stays in this process.
POOL_FROM_PAIRS = 2000

Pair = tuple[tuple[str, ...], str]
# A cited span: (index of the evidence text, start, end) in that text's offsets.
CitedSpan = tuple[int, int, int]


@dataclass(slots=True)
class BlockScores:
    """Every view's result on one block of pairs; arrays are (pairs, views)."""

    score: npt.NDArray[np.float64]
    contradiction: npt.NDArray[np.float64]
    verdict: npt.NDArray[np.int8]
    spans: list[list[tuple[CitedSpan, ...]]]
    seconds: dict[str, float]


@dataclass(slots=True)
class ScoreTable:
    """Every view's score, contradiction score and verdict for each example (rows)."""

    views: tuple[str, ...]
    strong: tuple[str, ...]
    score: npt.NDArray[np.float64]
    contradiction: npt.NDArray[np.float64]
    verdict: npt.NDArray[np.int8]
    spans: list[list[tuple[CitedSpan, ...]]]
    pairs: int
    timings: dict[str, float] = field(default_factory=dict)
    costs: tuple[float, ...] = ()

    def column(self, view: str) -> int:
        try:
            return self.views.index(view)
        except ValueError:
            known = ", ".join(self.views)
            raise ConfigurationError(f"view {view!r} was not run; views: {known}") from None

    def select(self, rows: npt.NDArray[np.bool_] | npt.NDArray[np.intp]) -> ScoreTable:
        """The rows ``rows`` (a mask or indices) as a table of their own."""
        index = np.arange(len(self.score))[rows]
        return ScoreTable(
            self.views,
            self.strong,
            self.score[index],
            self.contradiction[index],
            self.verdict[index],
            [self.spans[i] for i in index],
            self.pairs,
            dict(self.timings),
            self.costs,
        )


def make_views(names: Sequence[str], options: dict[str, dict[str, Any]] | None = None
               ) -> list[VerificationView]:
    """The views by registry name, each with its options (unknown names raise, listing all)."""
    if not names:
        raise ConfigurationError("no views to run")
    if len(set(names)) != len(names):
        raise ConfigurationError(f"each view may run once; duplicate names in {list(names)}")
    options = options or {}
    return [create_view(name, **options.get(name, {})) for name in names]


def score_block(views: Sequence[VerificationView], block: Sequence[Pair]) -> BlockScores:
    """Run every view over one block of distinct (evidence, claim) pairs."""
    clear_model_caches(views)
    started = time.perf_counter()
    packs: dict[tuple[str, ...], tuple[EvidencePack, dict[str, int]]] = {}
    for evidence, _ in block:
        if evidence not in packs:
            pack = EvidencePack.from_texts(list(evidence))
            order = {doc_id: i for i, doc_id in enumerate(pack.documents)}
            packs[evidence] = (pack, order)
    claims = [Claim(f"c{i}", claim) for i, (_, claim) in enumerate(block)]
    evidence_packs = [packs[evidence][0] for evidence, _ in block]
    seconds = {"prepare": time.perf_counter() - started}
    shape = (len(block), len(views))
    score = np.zeros(shape, dtype=np.float64)
    contradiction = np.zeros(shape, dtype=np.float64)
    verdict = np.zeros(shape, dtype=np.int8)
    spans: list[list[tuple[CitedSpan, ...]]] = [[() for _ in views] for _ in block]
    for column, view in enumerate(views):
        started = time.perf_counter()
        results = view.verify_batch(claims, evidence_packs)
        for row, result in enumerate(results):
            score[row, column] = result.score
            contradiction[row, column] = result.contradiction
            verdict[row, column] = VERDICTS.index(result.verdict)
            order = packs[block[row][0]][1]
            spans[row][column] = tuple(
                (order[span.doc_id], span.start, span.end) for span in result.spans
            )
        seconds[f"view:{view.name}"] = time.perf_counter() - started
    return BlockScores(score, contradiction, verdict, spans, seconds)


OnBlock = Callable[[int], None]


@runtime_checkable
class ScoringEngine(Protocol):
    """Runs the views over blocks of pairs: one block, or many (reporting each as done)."""

    views: tuple[str, ...]
    strong: tuple[str, ...]
    costs: tuple[float, ...]

    def run_block(self, block: Sequence[Pair]) -> BlockScores: ...

    def run_blocks(
        self, blocks: Sequence[Sequence[Pair]], on_block: OnBlock | None = None
    ) -> list[BlockScores]: ...


# The Ray engine imports ray only when created: the core install does without it.
_ENGINES = Registry[ScoringEngine](
    "engine", lazy={"ray": "veritype.evaluation.ray_engine:RayEngine"}
)
register_engine = _ENGINES.register
available_engines = _ENGINES.names


def create_engine(name: str, views: Sequence[str], **options: Any) -> ScoringEngine:
    """The engine registered as ``name`` running ``views``; unknown names list the known."""
    return _ENGINES.get(name)(views, **options)


@register_engine("local")
class LocalEngine:
    """Runs the blocks on this machine with the views loaded once: in this process, or in
    ``workers`` worker processes, each with its own views and one CPU thread for each model.
    By default (``workers`` None) a call with at least ``POOL_FROM_PAIRS`` pairs starts a
    worker per CPU (kept for later calls), and a smaller one runs here."""

    def __init__(
        self, views: Sequence[str], *, view_options: dict[str, dict[str, Any]] | None = None,
        workers: int | None = None,
    ) -> None:
        if workers is not None and workers < 1:
            raise ConfigurationError(f"workers must be at least 1, got {workers}")
        self._views = make_views(views, view_options)
        self.views = tuple(view.name for view in self._views)
        self.strong = tuple(view.name for view in self._views if view.strong)
        self.costs = tuple(float(view.cost) for view in self._views)
        self._view_options = dict(view_options or {})
        self.workers = workers
        self._pool: WorkerPool[Sequence[Pair], BlockScores] | None = None

    def run_block(self, block: Sequence[Pair]) -> BlockScores:
        return score_block(self._views, block)

    def run_blocks(
        self, blocks: Sequence[Sequence[Pair]], on_block: OnBlock | None = None
    ) -> list[BlockScores]:
        workers = self.workers or (default_threads() if sum(map(len, blocks)) >= POOL_FROM_PAIRS
                                   else 1)
        if workers == 1:
            done = []
            for block in blocks:
                done.append(self.run_block(block))
                if on_block is not None:
                    on_block(len(block))
            return done
        if self._pool is None:
            self._pool = WorkerPool(workers, make_views, (
                list(self.views), with_threads(self.views, self._view_options, 1)), score_block)
        scored: dict[int, BlockScores] = {}
        for index, scores in self._pool.run(blocks):
            scored[index] = scores
            if on_block is not None:
                on_block(len(blocks[index]))
        return [scored[i] for i in range(len(blocks))]

    def close(self) -> None:
        """Stop the worker processes, if any were started."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def plan_blocks(examples: Sequence[Example], block_size: int = DEFAULT_BLOCK_SIZE
                ) -> tuple[list[list[Pair]], npt.NDArray[np.intp]]:
    """The distinct pairs of ``examples`` sorted by length and cut into blocks, and for each
    example the position of its pair in that order."""
    if block_size < 1:
        raise ConfigurationError(f"block size must be >= 1, got {block_size}")
    position: dict[Pair, int] = {}
    for example in examples:
        position.setdefault((example.evidence, example.claim), len(position))
    distinct = list(position)
    # Length, then the texts themselves: a total order, so the plan never depends on input order.
    distinct.sort(key=lambda pair: (sum(map(len, pair[0])) + len(pair[1]), pair))
    rank = {pair: i for i, pair in enumerate(distinct)}
    where = np.array([rank[(e.evidence, e.claim)] for e in examples], dtype=np.intp)
    blocks = [distinct[i : i + block_size] for i in range(0, len(distinct), block_size)]
    return blocks, where


def score_examples(
    engine: ScoringEngine,
    examples: Sequence[Example],
    *,
    block_size: int = DEFAULT_BLOCK_SIZE,
    on_block: OnBlock | None = None,
) -> ScoreTable:
    """Every view of ``engine`` on every example, each distinct pair scored once."""
    started = time.perf_counter()
    blocks, where = plan_blocks(examples, block_size)
    planned = time.perf_counter()
    results = engine.run_blocks(blocks, on_block)
    n_views = len(engine.views)
    if results:
        score = np.vstack([r.score for r in results])
        contradiction = np.vstack([r.contradiction for r in results])
        verdict = np.vstack([r.verdict for r in results])
    else:
        score = np.zeros((0, n_views))
        contradiction = np.zeros((0, n_views))
        verdict = np.zeros((0, n_views), dtype=np.int8)
    spans = [row for r in results for row in r.spans]
    timings = {"plan": planned - started}
    for result in results:
        for stage, seconds in result.seconds.items():
            timings[stage] = timings.get(stage, 0.0) + seconds
    timings["verify_wall"] = time.perf_counter() - planned
    return ScoreTable(
        views=engine.views,
        strong=engine.strong,
        score=score[where],
        contradiction=contradiction[where],
        verdict=verdict[where],
        spans=[spans[i] for i in where],
        pairs=sum(len(block) for block in blocks),
        timings=timings,
        costs=engine.costs,
    )
