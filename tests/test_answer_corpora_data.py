"""The answer benchmark's data (benchmarks/data/answer_corpora, asked by
benchmarks/answer_corpora.py) keeps its promises: enough corpora, documents and questions of
each kind, a split that covers every corpus once, and gold strings that the judging rule can
find in their own corpus. Reads files only: no model, no store."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from benchmark_support import benchmark_module

from veritype.evaluation.answer_metrics import contains_answer

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "answer_corpora"
ANSWER_TYPES = {"condition", "duration", "count", "date", "number", "name", "other"}


@pytest.fixture(scope="module")
def runner() -> Iterator[ModuleType]:
    with benchmark_module("answer_corpora.py") as module:
        yield module


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads((DATA / "questions.json").read_text("utf-8"))
    return loaded


def _documents(corpus: str) -> list[Path]:
    return sorted(p for p in (DATA / corpus).iterdir() if p.suffix in {".md", ".txt"})


def _corpora() -> list[str]:
    return sorted(p.name for p in DATA.iterdir() if p.is_dir())


def test_there_are_eight_corpora_of_three_to_eight_real_sized_documents() -> None:
    assert len(_corpora()) >= 8
    for corpus in _corpora():
        documents = _documents(corpus)
        assert 3 <= len(documents) <= 8, corpus
        for document in documents:
            words = len(re.findall(r"\S+", document.read_text("utf-8")))
            assert 150 <= words <= 600, (document.name, words)


def test_every_question_is_well_formed(rows: list[dict[str, Any]]) -> None:
    assert len({row["id"] for row in rows}) == len(rows)
    assert len({row["question"] for row in rows}) == len(rows)
    for row in rows:
        assert {"id", "corpus", "question", "kind", "gold", "note"} <= row.keys(), row["id"]
        assert row["corpus"] in _corpora() and row["note"], row["id"]
        if row["kind"] == "unanswerable":
            assert row["gold"] == [] and "gold_any" not in row, row["id"]
            continue
        assert row["kind"] in {"answerable", "comparative"}, row["id"]
        assert row["answer_type"] in ANSWER_TYPES and row["gold"], row["id"]
        if row["kind"] == "comparative":
            assert len(row["gold"]) >= 2, row["id"]
        if "gold_any" in row:
            assert row["gold_any"][0] == row["gold"], row["id"]


def test_the_questions_meet_the_share_targets(rows: list[dict[str, Any]]) -> None:
    kinds = Counter(row["kind"] for row in rows)
    assert len(rows) >= 200
    assert kinds["unanswerable"] / len(rows) >= 0.2
    assert kinds["comparative"] / len(rows) >= 0.1
    by_value = sum(row.get("answer_type") in {"condition", "duration", "count"}
                   for row in rows if row["kind"] == "answerable")
    assert by_value / len(rows) >= 0.1
    per_corpus = Counter(row["corpus"] for row in rows)
    assert set(per_corpus) == set(_corpora())
    assert min(per_corpus.values()) >= 20


def test_every_gold_string_occurs_in_its_corpus_under_the_judging_rule(
        rows: list[dict[str, Any]]) -> None:
    texts = {corpus: "\n".join(p.read_text("utf-8") for p in _documents(corpus))
             for corpus in _corpora()}
    missing = [(row["id"], value) for row in rows
               for alternative in row.get("gold_any", [row["gold"]]) for value in alternative
               if not contains_answer(texts[row["corpus"]], value)]
    assert missing == []


def test_the_split_covers_every_corpus_once(runner: ModuleType) -> None:
    halves = runner.split()
    assert set(halves) == {"calibration", "evaluation"}
    named = halves["calibration"] + halves["evaluation"]
    assert sorted(named) == _corpora()
    assert len(halves["calibration"]) == len(halves["evaluation"]) == 4


def test_the_runner_reads_both_question_files(runner: ModuleType,
                                              rows: list[dict[str, Any]]) -> None:
    assert len(runner.questions()) == len(rows)
    own = runner.own_questions()
    assert len(own) == 48 and len({row.id for row in own}) == 48


def test_a_right_answer_holds_all_gold_strings_of_one_alternative(runner: ModuleType) -> None:
    gold = [["Common", "Uncommon"], ["1 in 10 people", "1 in 100 people"]]
    assert runner.is_right("comparative", gold, "Dry mouth is common; dizziness is uncommon.",
                           False)
    assert runner.is_right("comparative", gold, "1 in 10 people [1], 1 in 100 people [2]", False)
    assert not runner.is_right("comparative", gold, "Dry mouth is common.", False)
    assert not runner.is_right("comparative", gold, "common, uncommon", True)
    assert runner.is_right("unanswerable", [[]], "", True)
    assert not runner.is_right("unanswerable", [[]], "It is 12.", False)


def test_the_bm25_baseline_ranks_the_sentence_that_shares_the_question_words(
        runner: ModuleType) -> None:
    sentences = runner.corpus_sentences(DATA / "mowers")
    top = runner.bm25_ranker(sentences)("How much are the all-terrain wheels?", 2)
    assert any("All-terrain wheels (€59)" in sentence for sentence in top)


def test_the_extra_comparisons_ask_only_calibration_corpora_with_findable_gold() -> None:
    extra: list[dict[str, Any]] = json.loads(
        (DATA / "comparisons_calibration.json").read_text("utf-8"))
    split = json.loads((DATA / "split.json").read_text("utf-8"))
    main = {row["question"] for row in json.loads((DATA / "questions.json").read_text("utf-8"))}
    assert len(extra) >= 24 and len({row["id"] for row in extra}) == len(extra)
    for row in extra:
        assert row["corpus"] in split["calibration"], row["id"]
        assert row["question"] not in main and row["note"], row["id"]
        assert row["kind"] in {"comparative", "unanswerable"}, row["id"]
        assert (len(row["gold"]) == 2) == (row["kind"] == "comparative"), row["id"]
        text = " ".join(p.read_text("utf-8") for p in _documents(row["corpus"]))
        for value in row["gold"]:
            assert contains_answer(text, value), (row["id"], value)
