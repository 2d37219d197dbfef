"""The SQuAD 2.0 trap benchmark (benchmarks/answer_model_squad2.py) on a few questions of the
held-out article: answer sentences and tempting sentences found and scored by the real
shipped answer model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmark_support import BENCHMARKS, benchmark_module

from veritype.train.answer_data import SQUAD2_FILE, SQUAD2_HELD_OUT

pytestmark = pytest.mark.needs_httpx

CONTEXT = ("The Normans were the people who gave their name to Normandy, a region in France. "
           "Rollo was their first ruler. The Bretons lived in Brittany.")
ROWS = [
    {"title": SQUAD2_HELD_OUT, "context": CONTEXT, "question": "Who was the first ruler of the "
     "Normans?", "answers": ["Rollo"], "plausible_answers": []},
    {"title": SQUAD2_HELD_OUT, "context": CONTEXT, "question": "In what region did the Normans "
     "live?", "answers": ["Normandy"], "plausible_answers": []},
    {"title": SQUAD2_HELD_OUT, "context": CONTEXT, "question": "Who was the first ruler of the "
     "Bretons?", "answers": [], "plausible_answers": ["Rollo"]},
    {"title": "Rhine", "context": "The Rhine is long.", "question": "Is it long?",
     "answers": ["long"], "plausible_answers": []},
]


def test_answer_and_tempting_sentences_of_the_held_out_article_are_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / SQUAD2_FILE).parent.mkdir(parents=True)
    (tmp_path / SQUAD2_FILE).write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    out = tmp_path / "squad2.json"
    with benchmark_module("answer_model_squad2.py") as module:
        module.main(["--data-dir", str(tmp_path), "--models", "answers", "--labels", "shipped",
                     "--output", str(out)])
    report = json.loads(out.read_text())
    assert report["article"] == SQUAD2_HELD_OUT and report["questions"] == 3
    (model,) = report["models"]
    assert model["label"] == "shipped"
    assert (model["answer_sentences"], model["tempting_sentences"]) == (2, 1)
    assert model["answerable_questions"] == 2
    assert 0.0 <= model["roc_auc_answer_vs_tempting"] <= 1.0
    # The first ruler's sentence is the only one naming a ruler: the model must rank it first.
    assert model["best_sentence_holds_answer"] >= 0.5
