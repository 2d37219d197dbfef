"""The benchmark registry: every built-in benchmark is an evaluator sharing one split."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from veritype.errors import ConfigurationError, UnknownComponentError
from veritype.evaluation import (
    EvalSettings,
    Evaluator,
    available_benchmarks,
    create_benchmark,
)
from veritype.evaluation.runner import split_by_group
from veritype.evaluation.truthfulqa import PROTOCOLS, TruthfulQA


def test_every_builtin_benchmark_is_a_registered_evaluator(tmp_path: Path) -> None:
    assert available_benchmarks() == ["halueval", "nli", "scifact", "truthfulqa"]
    settings = EvalSettings(data_dir=tmp_path)
    for name in available_benchmarks():
        evaluator = create_benchmark(name, settings=settings)
        assert isinstance(evaluator, Evaluator) and evaluator.name == name
    with pytest.raises(UnknownComponentError, match=r"unknown benchmark 'mmlu'.*halueval"):
        create_benchmark("mmlu", settings=settings)


def test_evaluators_draw_the_shared_split_or_their_protocols(tmp_path: Path) -> None:
    groups = [f"q{i}" for i in range(40) for _ in range(3)]
    settings = EvalSettings(data_dir=tmp_path, seed=7)
    shared = split_by_group(groups, 7)
    assert shared.sum() == 3 * int(0.3 * 40)
    for name in ("halueval", "scifact", "nli"):
        np.testing.assert_array_equal(
            create_benchmark(name, settings=settings).calibration_split(groups), shared)
    current = TruthfulQA(settings, protocol="current")
    np.testing.assert_array_equal(current.calibration_split(groups), shared)
    reference = TruthfulQA(settings, protocol="reference")
    np.testing.assert_array_equal(reference.calibration_split(groups),
                                  PROTOCOLS["reference"].split(groups, 7))


def test_bad_settings_and_options_are_configuration_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="aggregator must be vote or learned"):
        EvalSettings.validated({"data_dir": tmp_path, "aggregator": "rule"})
    with pytest.raises(ConfigurationError, match="--seeds must be >= 0"):
        TruthfulQA(EvalSettings(data_dir=tmp_path), seeds=-1)
