"""Fitting the default aggregator: training-side data only, groups kept whole, a monotone
model, and thresholds that reach their precision."""

from pathlib import Path

import numpy as np
import pytest

from veritype.aggregate import LearnedAggregator, StagedAggregator, create_aggregator
from veritype.evaluation.data import Example
from veritype.evaluation.metrics import threshold_for_precision
from veritype.train.aggregator import (
    CANDIDATES,
    JUDGE_SAMPLE,
    JudgeStage,
    is_monotone,
    part_of,
    training_examples,
)


def test_monotone_means_more_support_never_lowers_the_score() -> None:
    assert is_monotone(LearnedAggregator(["nli", "align"], [1.0, 2.0], -1.0, products=False))
    assert not is_monotone(LearnedAggregator(["nli", "align"], [1.0, -0.5], 0.0,
                                             products=False))
    # A positive product cannot rescue a negative score weight at the grid's corner.
    assert not is_monotone(LearnedAggregator(["nli", "align"], [-1.0, 1.0, 0.5], 0.0))
    assert is_monotone(LearnedAggregator(["nli", "align"], [1.0, 1.0, 0.5], 0.0))


def test_the_shipped_aggregator_is_monotone() -> None:
    model = create_aggregator("default")
    stages = [model.first, model.second] if isinstance(model, StagedAggregator) else [model]
    assert all(isinstance(stage, LearnedAggregator) and is_monotone(stage) for stage in stages)


def test_the_judge_is_asked_about_a_fixed_sample_of_borderline_claims() -> None:
    examples = [Example(f"e{i}", f"g{i}", ("evidence",), "claim", "supported")
                for i in range(5000)]
    first_score = np.linspace(0.0, 1.0, 5000)
    first = LearnedAggregator(["nli"], [1.0], 0.0, thresholds=(0.6, 0.3), products=False)
    stage = JudgeStage(examples, None, CANDIDATES[0], first,  # type: ignore[arg-type]
                       np.ones(5000, dtype=bool), np.array(["fit"] * 5000), first_score,
                       seed=0)
    rows = stage.sample(0.6, 0.3)
    assert len(rows) == JUDGE_SAMPLE
    assert np.all((first_score[rows] > 0.3) & (first_score[rows] < 0.6))
    assert np.array_equal(rows, stage.sample(0.6, 0.3)) and np.all(np.diff(rows) > 0)
    # Drawn across the band, not its first rows.
    assert first_score[rows].min() < 0.31 and first_score[rows].max() > 0.59
    # A narrower band holding fewer claims than the sample gives every one of them.
    assert len(stage.sample(0.35, 0.3)) == np.sum((first_score > 0.3) & (first_score < 0.35))


def test_the_lowest_threshold_reaching_a_precision() -> None:
    scores = np.array([0.1, 0.4, 0.6, 0.7, 0.9, 0.95])
    truth = np.array([False, True, False, True, True, True])
    assert threshold_for_precision(scores, truth, 0.95) == 0.7
    assert threshold_for_precision(scores, truth, 0.7) == 0.4
    assert threshold_for_precision(scores, np.zeros(6, dtype=bool), 0.5) is None


def test_parts_keep_groups_whole_and_have_their_shares() -> None:
    groups = [f"g{i}" for i in range(5000)]
    parts = [part_of(group, 0) for group in groups]
    assert part_of("g1", 0) == part_of("g1", 0)
    shares = {name: parts.count(name) / len(parts) for name in ("fit", "choose", "check")}
    assert abs(shares["fit"] - 0.6) < 0.03 and abs(shares["check"] - 0.2) < 0.03


@pytest.mark.slow
def test_training_examples_come_from_training_side_rows_only(data_dir: Path) -> None:
    examples = training_examples(data_dir)
    assert {example.meta["source"] for example in examples} == {"halueval_dialogue"}
    rows = [int(example.example_id.split("-")[1]) for example in examples
            if example.meta["source"] == "halueval_dialogue"]
    assert min(rows) >= 4000 and max(rows) < 7000  # align read rows < 4000; >= 7000 are eval
    assert {example.label for example in examples} == {"supported", "unsupported"}
