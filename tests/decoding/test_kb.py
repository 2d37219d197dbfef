import json
from datetime import date
from pathlib import Path

import pytest

from veritype.decoding import (
    END_OF_TEXT,
    KnowledgeBase,
    KnowledgeBaseGuard,
    Triple,
    create_guard,
    extract_triples,
)
from veritype.decoding.kb import parse_date
from veritype.errors import DecodingError
from veritype.ingest import Corpus
from veritype.store import Chunking, IndexSpec

FACTS = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "tad_facts.csv"
CSV = """subject,relation,object,valid_from,valid_to,subject_aliases,relation_aliases
France,capital,Paris,,,the French Republic,the capital of {subject} is
United States,president,Barack Obama,2009-01-20,2017-01-20,the USA|the US,{PRESIDENT}
United States,president,Donald Trump,2017-01-20,2021-01-20,the USA|the US,{PRESIDENT}
Water,boiling point,100 degrees Celsius,,,,boils at
""".replace("{PRESIDENT}", "the president of {subject} was")


@pytest.fixture
def knowledge(tmp_path: Path) -> KnowledgeBase:
    path = tmp_path / "facts.csv"
    path.write_text(CSV, encoding="utf-8")
    return KnowledgeBase.from_file(path)


def test_blocks_objects_the_kb_contradicts(knowledge: KnowledgeBase) -> None:
    guard = KnowledgeBaseGuard(knowledge)
    prefix = "Q: Where is the seat of government?\nA: The capital of France is"
    assert guard.safe(prefix, [" Paris", " Lyon", " P", " the", END_OF_TEXT]) == [
        True, False, True, False, False,
    ]
    assert guard.safe(prefix + " Par", ["is", "ma", "is."]) == [True, False, True]
    assert guard.safe(prefix + " Paris", [".", "ian", END_OF_TEXT]) == [True, False, True]
    assert guard.constraint_for(prefix + " Paris. It") is None


def test_aliases_are_case_insensitive(knowledge: KnowledgeBase) -> None:
    guard = KnowledgeBaseGuard(knowledge)
    assert guard.safe("THE CAPITAL OF THE FRENCH REPUBLIC IS", [" paris", " Rome"]) == [
        True, False,
    ]
    assert guard.safe("Water boils at", [" 100", " 90"]) == [True, False]
    assert guard.safe("Nothing about capitals here", [" Rome"]) == [True]


def test_validity_dates_follow_the_year_named_or_as_of(knowledge: KnowledgeBase) -> None:
    in_2018 = KnowledgeBaseGuard(knowledge, as_of=date(2018, 6, 1))
    assert in_2018.safe("The president of the USA was", [" Donald", " Barack"]) == [True, False]
    assert in_2018.safe("In 2012, the president of the US was", [" Donald", " Barack"]) == [
        False, True,
    ]
    # A date no triple covers: the guard has nothing to say.
    assert in_2018.safe("In 1990, the president of the US was", [" George"]) == [True]


def test_file_errors_name_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("subject,relation,object,valid_from\nFrance,capital,,\n", encoding="utf-8")
    with pytest.raises(DecodingError, match=r"record 1 lacks object"):
        KnowledgeBase.from_file(bad)
    dates = tmp_path / "dates.csv"
    dates.write_text("subject,relation,object,valid_from\nA,b,c,yesterday\n", encoding="utf-8")
    with pytest.raises(DecodingError, match="not a date"):
        KnowledgeBase.from_file(dates)
    with pytest.raises(DecodingError, match="no such file"):
        KnowledgeBase.from_file(tmp_path / "missing.csv")
    with pytest.raises(DecodingError, match="at least one triple"):
        KnowledgeBaseGuard(KnowledgeBase())


def test_json_file_with_aliases(tmp_path: Path) -> None:
    path = tmp_path / "kb.json"
    path.write_text(json.dumps({
        "triples": [{"subject": "Japan", "relation": "currency", "object": "yen"}],
        "subject_aliases": {"Japan": ["Nippon"]},
        "relation_aliases": {"currency": ["the currency of {subject} is"]},
    }), encoding="utf-8")
    guard = create_guard("kb", files=[path])
    assert guard.safe("The currency of Nippon is", [" yen", " euro"]) == [True, False]


def test_parse_date_bounds() -> None:
    assert parse_date("2017") == date(2017, 1, 1)
    assert parse_date("2017", end=True) == date(2017, 12, 31)
    assert parse_date("2016-02", end=True) == date(2016, 2, 29)
    assert parse_date("") is None


def test_extract_triples_from_sentences() -> None:
    text = (
        "Glioblastomas are deadly cancers that display a cellular hierarchy. "
        "We measured the response. Mortality decreased by 25% in the treated group. "
        "Aspirin causes stomach bleeding in some patients, and it is cheap."
    )
    triples = {(t.subject, t.relation, t.object) for t in extract_triples(text)}
    assert ("Glioblastomas", "are", "deadly cancers") in triples
    assert ("Mortality", "decreased by", "25%") in triples
    assert ("Aspirin", "causes", "stomach bleeding in some patients") in triples
    assert not any(subject == "We" for subject, _, _ in triples)


def test_kb_from_an_ingested_corpus(tmp_path: Path) -> None:
    indexes = [IndexSpec("bm25", "bm25", Chunking(max_chars=400))]
    with Corpus.open(f"sqlite:///{tmp_path / 'kb.sqlite'}", indexes=indexes) as corpus:
        corpus.ingest_texts(["Metformin reduces hepatic glucose production in diabetes."])
        knowledge = KnowledgeBase.from_corpus(corpus)
        guard = create_guard("kb", corpus=corpus)
    assert [t.object for t in knowledge.triples] == ["hepatic glucose production in diabetes"]
    assert guard.safe("Metformin reduces", [" hepatic", " insulin"]) == [True, False]


def test_bundled_benchmark_facts_load() -> None:
    knowledge = KnowledgeBase.from_file(FACTS)
    assert len(knowledge) >= 30
    guard = KnowledgeBaseGuard(knowledge, as_of=date(2022, 1, 1))
    assert guard.safe("The capital of Australia is", [" Canberra", " Sydney"]) == [True, False]
    assert guard.safe("The president of the United States is", [" Joe", " Barack"]) == [
        True, False,
    ]
    assert isinstance(Triple("a", "b", "c").to_dict(), dict)
