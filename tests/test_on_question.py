"""Answers stay on the question's subject: a fact about another river, cited and true, is not
an answer about this one, and a question whose subject no document is about abstains.

The corpus is eight short documents about eight rivers that share their kind of facts
(length, source, mouth, cities), written the way people write: headings, pronouns, "the
river". Every answer may cite only the documents about the rivers it was asked about."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from veritype import Engine, EngineConfig

RIVERS = {
    "danube.md": "# Danube\n\nThe Danube is the second-longest river in Europe, after the "
                 "Volga. It rises in the Black Forest in Germany and flows into the Black Sea. "
                 "It is about 2,850 kilometres long and flows through Vienna, Budapest and "
                 "Belgrade.",
    "rhine.md": "# Rhine\n\nThe Rhine rises in the Swiss Alps and flows into the North Sea. "
                "It is about 1,230 kilometres long. The river passes Basel, Cologne and "
                "Rotterdam.",
    "thames.txt": "The River Thames flows through London. It is 346 kilometres long. It rises "
                  "near Kemble in Gloucestershire and flows into the North Sea.",
    "elbe.md": "# Elbe\n\nThe Elbe rises in the Krkonose mountains of the Czech Republic. It "
               "flows into the North Sea at Cuxhaven. The Elbe is about 1,094 kilometres long "
               "and passes Dresden and Hamburg.",
    "loire.md": "# Loire\n\nThe Loire is the longest river in France. It is 1,006 kilometres "
                "long. It rises in the Massif Central and flows into the Bay of Biscay at "
                "Saint-Nazaire.",
    "volga.md": "# Volga\n\nThe Volga is the longest river in Europe. It is about 3,530 "
                "kilometres long. It rises in the Valdai Hills and flows into the Caspian Sea.",
    "seine.md": "# Seine\n\nThe Seine flows through Paris. It is 777 kilometres long and flows "
                "into the English Channel at Le Havre.",
    "po.md": "# Po\n\nThe Po is the longest river in Italy. It is 652 kilometres long. It rises "
             "in the Cottian Alps and flows into the Adriatic Sea.",
}

# question -> (the documents an answer may cite, words the right answer contains)
ANSWERABLE = {
    "How long is the Thames?": ({"thames.txt"}, "346"),
    "Where does the Rhine rise?": ({"rhine.md"}, "Swiss Alps"),
    "Into which sea does the Volga flow?": ({"volga.md"}, "Caspian"),
    "How long is the Loire?": ({"loire.md"}, "1,006"),
    "How long is the Elbe?": ({"elbe.md"}, "1,094"),
    "Which city does the Seine flow through?": ({"seine.md"}, "Paris"),
    "Where does the Po flow into?": ({"po.md"}, "Adriatic"),
    "How long is the Danube?": ({"danube.md"}, "2,850"),
    "Which is longer, the Rhine or the Danube?": ({"rhine.md", "danube.md"}, "kilometres"),
    "Do the Elbe and the Rhine flow into the North Sea?": ({"elbe.md", "rhine.md"}, "North Sea"),
}
UNANSWERABLE = [
    "How long is the Nile?",
    "Where does the Amazon rise?",
    "Who designed the Thames Barrier?",
    "How long is the Mississippi River?",
]


@pytest.fixture(scope="module")
def rivers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    folder = tmp_path_factory.mktemp("rivers")
    for name, text in RIVERS.items():
        (folder / "docs" / name).parent.mkdir(exist_ok=True)
        (folder / "docs" / name).write_text(text)
    with Engine(EngineConfig(store=f"sqlite:///{folder / 'rivers.sqlite'}")) as engine:
        engine.ingest([folder / "docs"])
        yield engine


def _cited_files(engine: Engine, doc_ids: set[str]) -> set[str]:
    files = set()
    for doc_id in doc_ids:
        record = engine.corpus.store.document(doc_id)
        assert record is not None
        files.add(record.source.rsplit("/", 1)[-1])
    return files


@pytest.mark.slow
@pytest.mark.parametrize("question", list(ANSWERABLE))
def test_an_answer_cites_only_the_rivers_asked_about(rivers: Engine, question: str) -> None:
    allowed, _ = ANSWERABLE[question]
    answer = rivers.ask(question)
    cited = {citation.doc_id for claim in answer.claims if claim.rendered
             for citation in claim.citations}
    assert _cited_files(rivers, cited) <= allowed, answer.answer


@pytest.mark.slow
def test_most_answerable_questions_get_their_answer(rivers: Engine) -> None:
    answered = [question for question, (_, gold) in ANSWERABLE.items()
                if gold in rivers.ask(question).answer]
    assert len(answered) >= 7, answered


@pytest.mark.slow
def test_no_answer_about_the_thames_carries_another_rivers_length(rivers: Engine) -> None:
    answer = rivers.ask("How long is the Thames?")
    for other in ("1,230", "2,850", "1,094", "1,006", "3,530", "777", "652"):
        assert other not in answer.answer


@pytest.mark.slow
@pytest.mark.parametrize("question", UNANSWERABLE)
def test_a_river_no_document_is_about_abstains(rivers: Engine, question: str) -> None:
    answer = rivers.ask(question)
    assert answer.abstained and answer.answer == "", answer.answer


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
    # The empty store was filled with the demo corpus, which `veritype ask` then says; a
    # store that holds documents is left as it is.
    assert demo.demo_ingested
    with Engine(EngineConfig(store=demo.config.store, demo=True)) as again:
        assert not again.demo_ingested
    answer = demo.ask(question)
    assert answer.abstained and "on the question" in (answer.abstention_reason or "")
