"""Answers stay on the question's subject: a fact about another river, cited and true, is not
an answer about this one, and a question whose subject no document is about abstains."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from veritype import Engine, EngineConfig

RIVERS = {
    "danube.md": "# Danube\n\nThe Danube is the second-longest river in Europe, after the "
                 "Volga. It flows for about 2,850 kilometres from the Black Forest to the "
                 "Black Sea.",
    "rhine.md": "# Rhine\n\nThe Rhine rises in the Swiss Alps and flows into the North Sea. "
                "It is about 1,230 kilometres long.",
    "thames.txt": "The River Thames flows through London. It is 346 kilometres long.",
}


@pytest.fixture(scope="module")
def rivers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    folder = tmp_path_factory.mktemp("rivers")
    for name, text in RIVERS.items():
        (folder / "docs" / name).parent.mkdir(exist_ok=True)
        (folder / "docs" / name).write_text(text)
    with Engine(EngineConfig(store=f"sqlite:///{folder / 'rivers.sqlite'}")) as engine:
        engine.ingest([folder / "docs"])
        yield engine


@pytest.mark.slow
def test_no_answer_about_the_thames_carries_another_rivers_length(rivers: Engine) -> None:
    answer = rivers.ask("How long is the Thames?")
    assert "1,230" not in answer.answer and "2,850" not in answer.answer
    off = [text for text in answer.limitations if "does not address the question" in text]
    assert any("1,230" in text for text in off)


@pytest.mark.slow
@pytest.mark.parametrize("question", ["How long is the Nile?", "Where does the Amazon rise?"])
def test_a_river_no_document_is_about_abstains(rivers: Engine, question: str) -> None:
    answer = rivers.ask(question)
    assert answer.abstained and answer.answer == ""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    store = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    with Engine(EngineConfig(store=f"sqlite:///{store}", demo=True)) as engine:
        yield engine


@pytest.mark.slow
@pytest.mark.parametrize(
    "question", ["Who won the 2018 FIFA World Cup?", "How tall is Mount Everest?"]
)
def test_off_topic_questions_on_the_demo_corpus_abstain(demo: Engine, question: str) -> None:
    answer = demo.ask(question)
    assert answer.abstained and "on the question" in (answer.abstention_reason or "")
