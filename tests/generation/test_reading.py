"""The extractive drafter read by a chat model (``reader_model_path``): it quotes the evidence
as before when one of its best sentences states the answer, and writes nothing, saying why,
when none does. The model is the judge's Qwen2.5 GGUF, run by llama.cpp."""

from __future__ import annotations

from pathlib import Path

import pytest

from veritype import Engine, EngineConfig
from veritype.errors import ConfigurationError
from veritype.evidence import Chunk, Document, chunk_document
from veritype.generation import ExtractiveGenerator
from veritype.generation._reading import SentenceReader

EXPENSES = ("# Travel\n\nIf you use your own car for business, you can claim 45p per mile for the "
            "first 10,000 miles in a tax year. Taxis are allowed late at night, after 22:00.\n\n"
            "# Meals\n\nOn a day trip of more than ten hours, you may claim up to £12 for one "
            "meal.")


@pytest.fixture(scope="module")
def expenses() -> list[Chunk]:
    return chunk_document(Document.from_text(EXPENSES, source="expenses.md"))


@pytest.mark.slow
def test_the_reader_names_the_sentence_that_answers_or_none(judge_model: Path) -> None:
    reader = SentenceReader(judge_model)
    sentences = ["Taxis are allowed late at night, after 22:00.",
                 "If you use your own car for business, you can claim 45p per mile."]
    assert reader.choose("How much can I claim per mile for my car?", sentences) == 1
    assert reader.choose("Who founded the company?", sentences) is None


@pytest.mark.slow
def test_a_draft_the_reader_finds_no_answer_in_is_empty_and_says_why(
        judge_model: Path, expenses: list[Chunk]) -> None:
    drafter = ExtractiveGenerator(reader_model_path=judge_model)
    answered = drafter.generate("What can I claim for a meal on a long day trip?", expenses)
    assert "£12" in answered.text and not answered.declined
    declined = drafter.generate("Who founded the company?", expenses)
    assert declined.text == ""
    assert "found no sentence that states the answer" in declined.declined


@pytest.mark.slow
def test_ask_abstains_with_the_readers_reason(judge_model: Path, tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "expenses.md").write_text(EXPENSES)
    config = EngineConfig(store=f"sqlite:///{tmp_path / 'store.sqlite'}",
                          generator_options={"reader_model_path": str(judge_model)})
    with Engine(config) as engine:
        engine.ingest([tmp_path / "docs"])
        answer = engine.ask("Who founded the company?")
    assert answer.abstained
    assert "The reader (" in (answer.abstention_reason or "")


def test_the_reader_reads_one_to_nine_sentences() -> None:
    with pytest.raises(ConfigurationError, match="reader_sentences"):
        ExtractiveGenerator(reader_sentences=10)
