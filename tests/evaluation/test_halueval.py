"""HaluEval: calibration rows no model was trained on, honest labels and baselines, and a
selection that held-out labels cannot move."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from veritype.evaluation.binary import detection
from veritype.evaluation.configurations import fit_learned
from veritype.evaluation.data import SUPPORTED, UNSUPPORTED, Example
from veritype.evaluation.halueval import (
    TRAINED_ROWS,
    baselines,
    calibration_rows,
    describe,
    task_examples,
)
from veritype.evaluation.metrics import Bootstrap
from veritype.evaluation.runner import EvalSettings, score
from veritype.train.config import TrainConfig
from veritype.train.fitting_data import DIALOGUE_ROWS, PERTURBED_ROWS, SUMMARIZATION_ROWS

ROOT = Path(__file__).resolve().parents[2]


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def test_trained_rows_follow_the_recipes_and_calibration_avoids_them() -> None:
    spec = TrainConfig.load(ROOT / "configs" / "align.toml").data
    align = {"qa": spec.halueval_qa, "dialogue": spec.halueval_dialogue,
             "summarization": spec.halueval_summarization}
    for task, rows in align.items():
        assert TRAINED_ROWS[task]["align"] == (0, rows)
    # The perturbations are made from qa knowledge and summarization documents.
    assert spec.synthetic_halueval_rows <= min(align["qa"], align["summarization"])
    assert TRAINED_ROWS["dialogue"]["default aggregator"] == DIALOGUE_ROWS
    assert TRAINED_ROWS["summarization"]["default aggregator"] == (PERTURBED_ROWS[0],
                                                                  SUMMARIZATION_ROWS[1])
    for task, models in TRAINED_ROWS.items():
        rows = calibration_rows(task)
        assert rows is None or not any(_overlaps(rows, trained) for trained in models.values())
    assert calibration_rows("qa") is None
    assert calibration_rows("general") is None
    assert calibration_rows("dialogue") == calibration_rows("summarization") == (7000, 8000)


def test_view_rows_say_what_they_were_trained_on() -> None:
    views = ("numeric", "lexical", "nli", "align")
    assert describe("qa", "view:align", views) == "align (fine-tuned on HaluEval-qa rows 0–7999)"
    assert "rows 0–3999" in describe("dialogue", "view:align (own verdict)", views)
    assert "not general" in describe("general", "view:align", views)
    assert describe("qa", "view:nli", views) == "nli (NLI pool only; no HaluEval)"
    assert "calibration rows" in describe("qa", "learned", views)


def _example(row: int, claim: str, output: str, evidence: str, label: str) -> Example:
    return Example(f"qa-{row}-{label}", f"row{row}", (evidence,), claim, label,
                   {"row": row, "output": output})


def test_baselines_use_the_bare_output_and_the_calibration_majority() -> None:
    evidence = "Paris is the capital of France."
    examples = [
        _example(0, "What is the capital of France? Paris", "Paris", evidence, SUPPORTED),
        _example(0, "What is the capital of France? Lyon", "Lyon", evidence, UNSUPPORTED),
        _example(1, "Where is Paris? France", "France", evidence, SUPPORTED),
        _example(1, "Where is Paris? Spain", "Spain", evidence, UNSUPPORTED),
        _example(2, "Name a city? Rome", "Rome", evidence, UNSUPPORTED),
    ]
    calibration = np.array([False, False, False, False, True])
    bootstrap = Bootstrap.draw([e.group for e in examples[:4]], 20, 0)
    result = baselines(examples, calibration, bootstrap)
    assert result["verbatim substring"]["accuracy"] == 1.0
    assert result["accept everything"]["accuracy"] == 0.5
    # The only calibration row is unsupported: the majority rejects.
    assert result["majority class"]["accepts"] is False
    assert result["majority class"]["recall"] == 0.0


def test_qa_split_is_fixed_by_seed_and_disjoint(data_dir: Path) -> None:
    settings = EvalSettings(data_dir=data_dir)
    examples, calibration = task_examples(settings, "qa")
    rows = np.array([e.meta["row"] for e in examples])
    assert rows.min() == 8000 and rows.max() == 9999 and len(examples) == 4000
    assert not set(rows[calibration]) & set(rows[~calibration])
    assert 0.29 < len(set(rows[calibration])) / 2000 < 0.31
    again, same = task_examples(settings, "qa")
    assert [e.example_id for e in again] == [e.example_id for e in examples]
    assert np.array_equal(same, calibration)
    _, other = task_examples(EvalSettings(data_dir=data_dir, seed=7), "qa")
    assert not np.array_equal(other, calibration)
    small, small_calibration = task_examples(EvalSettings(data_dir=data_dir, limit=3), "qa")
    assert len(small) == 12 and small_calibration.sum() == 6
    dialogue, dialogue_calibration = task_examples(EvalSettings(data_dir=data_dir, limit=4),
                                                   "dialogue")
    assert [e.meta["row"] for e, c in zip(dialogue, dialogue_calibration, strict=True) if c] \
        == [7000, 7000, 7001, 7001, 7002, 7002, 7003, 7003]
    assert all(e.meta["row"] >= 8000 for e, c in zip(dialogue, dialogue_calibration,
                                                      strict=True) if not c)


def _permute_held_out(examples: list[Example], calibration: np.ndarray, seed: int
                      ) -> list[Example]:
    held = np.nonzero(~calibration)[0]
    labels = [examples[i].label for i in held]
    shuffled = np.random.default_rng(seed).permutation(len(held))
    permuted = list(examples)
    for i, j in zip(held, shuffled, strict=True):
        permuted[i] = replace(examples[i], label=labels[j])
    assert any(permuted[i].label != examples[i].label for i in held)
    assert all(permuted[i] is examples[i] for i in np.nonzero(calibration)[0])
    return permuted


def _selection(section: dict[str, Any]) -> dict[str, Any]:
    return {
        "thresholds": {(name, label): point["threshold"]
                       for name, points in section["configurations"].items()
                       for label, point in points.items()},
        "learned": section["learned_model"],
        "chosen": (section["chosen"]["configuration"], section["chosen"]["point"]),
    }


@pytest.mark.slow
@pytest.mark.parametrize(("task", "limit"), [("general", 80), ("qa", 15)])
def test_selection_ignores_held_out_labels(data_dir: Path, task: str, limit: int) -> None:
    settings = EvalSettings(data_dir=data_dir, limit=limit, resamples=20)
    examples, calibration = task_examples(settings, task)
    table = score(settings, examples, task)
    permuted = _permute_held_out(examples, calibration, seed=5)
    section, _, truth = detection(table, examples, calibration, settings)
    shuffled, _, shuffled_truth = detection(table, permuted, calibration, settings)
    assert section["learned_model"] is not None
    # The shipped default stands beside every single view, at its own τ.
    assert {"default", "view:nli", "view:align"} <= set(section["configurations"])
    assert "shipped τ" in section["configurations"]["default"]
    assert _selection(shuffled) == _selection(section)
    bootstrap = Bootstrap.draw([e.group for e, c in zip(examples, calibration, strict=True)
                                if not c], 20, 0)
    assert (baselines(permuted, calibration, bootstrap)["majority class"]["accepts"]
            == baselines(examples, calibration, bootstrap)["majority class"]["accepts"])
    # The permutation reaches what is measured, and a fit on the held-out rows would move.
    assert not np.array_equal(truth, shuffled_truth)
    held = np.nonzero(~calibration)[0]
    groups = [examples[i].group for i in held]
    fits = [fit_learned(table.select(held), labels, groups, table.views).model.to_json()
            for labels in (truth, shuffled_truth)]
    assert fits[0] != fits[1]
