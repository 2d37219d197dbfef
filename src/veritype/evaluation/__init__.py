"""Evaluation on public benchmarks: ``veritype eval`` and its Python API.

A benchmark (an ``Evaluator`` registered by name) loads its examples, scores them with every
view through a scoring engine (``local`` or ``ray``, registered by name), compares
configurations (single views, the vote, the learned aggregator) with bootstrap intervals and
McNemar tests, and returns a ``RunResult`` that ``write_run`` turns into a run directory.
"""

from veritype.evaluation.report import RunResult, write_run
from veritype.evaluation.runner import (
    EvalSettings,
    Evaluator,
    available_benchmarks,
    create_benchmark,
    register_benchmark,
    run_benchmark,
)
from veritype.evaluation.scoring import (
    ScoreTable,
    ScoringEngine,
    available_engines,
    create_engine,
    register_engine,
    score_examples,
)

__all__ = [
    "EvalSettings",
    "Evaluator",
    "RunResult",
    "ScoreTable",
    "ScoringEngine",
    "available_benchmarks",
    "available_engines",
    "create_benchmark",
    "create_engine",
    "register_benchmark",
    "register_engine",
    "run_benchmark",
    "score_examples",
    "write_run",
]
