"""The score cache keeps every stored row beside its own pair's key."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from veritype.errors import DataError
from veritype.evaluation.data import Example
from veritype.evaluation.scoring import LocalEngine, ScoreTable, score_examples
from veritype.train._score_cache import cached_scores

EVIDENCE = ("The bridge opened in 1937. It is 2,737 metres long.",)
CLAIMS = ["The bridge opened in 1937.", "The bridge opened in 1938.",
          "It is 2,737 metres long.", "It is 2,000 metres long.", "The bridge is red."]


def _example(index: int, claim: str) -> Example:
    return Example(f"e{index}", "pairs", EVIDENCE, claim, "supported", {})


def _score(examples: list[Example]) -> ScoreTable:
    return score_examples(LocalEngine(("numeric",)), examples)


def test_a_pair_seen_twice_is_stored_once_and_later_rows_keep_their_scores(
        tmp_path: Path) -> None:
    path = tmp_path / "scores.npz"
    # The same pair twice in the first batch, then new pairs in a second.
    first = [_example(0, CLAIMS[0]), _example(1, CLAIMS[1]), _example(2, CLAIMS[1])]
    everything = [*first, *(_example(i + 3, claim) for i, claim in enumerate(CLAIMS[2:]))]
    cached_scores(path, first, _score)
    table = cached_scores(path, everything, _score)
    again = cached_scores(path, everything, lambda new: pytest.fail("all scored already"))
    fresh = _score(everything)
    for got in (table, again):
        np.testing.assert_array_equal(got.score, fresh.score)
        np.testing.assert_array_equal(got.verdict, fresh.verdict)
    saved = np.load(path)
    assert len(saved["ids"]) == len(saved["score"]) == len(CLAIMS)


def test_a_cache_whose_rows_do_not_line_up_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "scores.npz"
    examples = [_example(i, claim) for i, claim in enumerate(CLAIMS)]
    cached_scores(path, examples, _score)
    saved = dict(np.load(path))
    saved["ids"] = saved["ids"][1:]
    np.savez(path, **saved)
    with pytest.raises(DataError, match="do not line up"):
        cached_scores(path, examples, _score)
