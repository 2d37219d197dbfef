"""The evaluation engines: deduplication, block planning, and local = Ray, bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from veritype.errors import ConfigurationError, UnknownComponentError
from veritype.evaluation.data import Example, truthfulqa_examples
from veritype.evaluation.scoring import (
    ABSTAINED,
    LocalEngine,
    create_engine,
    plan_blocks,
    score_examples,
)

VIEWS = ("numeric", "lexical", "nli", "align")


def _example(i: int, evidence: str, claim: str, label: str = "supported") -> Example:
    return Example(f"e{i}", f"g{i}", (evidence,), claim, label)


def test_identical_pairs_are_planned_once_and_sorted_by_length() -> None:
    examples = [
        _example(0, "The tower is 330 metres tall.", "The tower is 330 metres tall."),
        _example(1, "Paris is in France.", "Paris is in France."),
        _example(2, "The tower is 330 metres tall.", "The tower is 330 metres tall."),
        _example(3, "Paris is in France.", "Paris lies in Europe."),
    ]
    blocks, where = plan_blocks(examples, block_size=2)
    pairs = [pair for block in blocks for pair in block]
    assert len(pairs) == 3
    lengths = [len(e[0]) + len(c) for e, c in pairs]
    assert lengths == sorted(lengths)
    assert where[0] == where[2]
    assert [len(b) for b in blocks] == [2, 1]


def test_score_table_rows_follow_examples(data_dir: Path) -> None:
    examples = truthfulqa_examples(data_dir)[:30]
    engine = LocalEngine(["numeric", "lexical"])
    table = score_examples(engine, [*examples, *examples[:5]], block_size=7)
    assert table.score.shape == (35, 2)
    assert table.pairs == len({(e.evidence, e.claim) for e in examples})
    np.testing.assert_array_equal(table.score[30:], table.score[:5])
    # A claim with no numbers or names: the numeric view abstains.
    assert ABSTAINED in set(table.verdict[:, 0].tolist())
    assert {"plan", "prepare", "view:numeric", "view:lexical", "verify_wall"} <= set(table.timings)


def test_block_results_do_not_depend_on_what_ran_before(data_dir: Path) -> None:
    examples = truthfulqa_examples(data_dir)[:40]
    blocks, _ = plan_blocks(examples, block_size=10)
    engine = LocalEngine(["nli"])
    forward = [engine.run_block(b) for b in blocks]
    backward = [engine.run_block(b) for b in reversed(blocks)][::-1]
    for a, b in zip(forward, backward, strict=True):
        np.testing.assert_array_equal(a.score, b.score)
        np.testing.assert_array_equal(a.contradiction, b.contradiction)


def test_unknown_engine_and_view_are_named() -> None:
    with pytest.raises(UnknownComponentError, match=r"unknown engine 'spark'.*local, ray"):
        create_engine("spark", VIEWS)
    with pytest.raises(UnknownComponentError, match="unknown view 'oracle'"):
        create_engine("local", ["oracle"])
    with pytest.raises(ConfigurationError, match="duplicate"):
        create_engine("local", ["lexical", "lexical"])


@pytest.mark.slow
@pytest.mark.needs_ray
def test_ray_engine_equals_local_engine(data_dir: Path) -> None:
    import ray

    examples = [e for e in truthfulqa_examples(data_dir) if e.group in {"q0", "q1", "q2", "q3",
                                                                        "q4", "q5", "q6", "q7"}]
    local = score_examples(create_engine("local", VIEWS), examples, block_size=16)
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        engine = create_engine("ray", VIEWS, workers=2)
        done: list[int] = []
        distributed = score_examples(engine, examples, block_size=16, on_block=done.append)
    finally:
        ray.shutdown()
    assert sum(done) == local.pairs
    assert len(done) > 1
    np.testing.assert_array_equal(distributed.score, local.score)
    np.testing.assert_array_equal(distributed.contradiction, local.contradiction)
    np.testing.assert_array_equal(distributed.verdict, local.verdict)
    assert distributed.spans == local.spans
    assert distributed.views == local.views and distributed.strong == local.strong


def test_worker_processes_give_this_process_results_bit_for_bit(data_dir: Path) -> None:
    examples = truthfulqa_examples(data_dir)[:48]
    here = score_examples(LocalEngine(VIEWS, workers=1), examples, block_size=8)
    pooled = LocalEngine(VIEWS, workers=2)
    done: list[int] = []
    try:
        spread = score_examples(pooled, examples, block_size=8, on_block=done.append)
    finally:
        pooled.close()
    assert sum(done) == here.pairs and len(done) > 2
    for name in ("score", "contradiction", "verdict"):
        np.testing.assert_array_equal(getattr(spread, name), getattr(here, name))
    assert spread.spans == here.spans
    with pytest.raises(ConfigurationError, match="workers must be at least 1"):
        LocalEngine(VIEWS, workers=0)
