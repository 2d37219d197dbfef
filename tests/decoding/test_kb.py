import json
from datetime import date
from pathlib import Path

import pytest

from veritype.decoding import (
    END_OF_TEXT,
    KnowledgeBase,
    KnowledgeBaseGuard,
    RelationMatcher,
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


@pytest.fixture(scope="module")
def by_meaning() -> KnowledgeBaseGuard:
    return KnowledgeBaseGuard(KnowledgeBase.from_file(FACTS), relations=RelationMatcher())


@pytest.mark.parametrize(("lead", "right", "wrong"), [
    ("A: The capital city of Canada is", " Ottawa", " Toronto"),
    ("A: The official currency of Japan is", " yen", " dollar"),
    ("A: The birth year of Isaac Newton is", " 1643", " 1642"),
    ("A: The Berlin Wall came down in", " 1989", " 1991"),
])
def test_a_paraphrased_relation_reaches_the_same_triple(
    by_meaning: KnowledgeBaseGuard, lead: str, right: str, wrong: str
) -> None:
    assert by_meaning.safe(lead, [right, wrong]) == [True, False]
    assert KnowledgeBaseGuard(by_meaning.knowledge).safe(lead, [wrong]) == [True]


@pytest.mark.parametrize("lead", [
    "Q: Who wrote Hamlet?\nA: Hamlet was written by", "A: The author of Hamlet is",
    "A: Hamlet was penned by",
])
def test_who_wrote_the_author_of_and_written_by_are_one_relation(
    by_meaning: KnowledgeBaseGuard, lead: str
) -> None:
    assert by_meaning.safe(lead, [" William", " Christopher"]) == [True, False]
    text = f"{lead} William Shakespeare"
    coverage = by_meaning.coverage(text, text.rindex(":") + 2, len(text))
    assert coverage.checked and "William Shakespeare" in coverage.reason


@pytest.mark.parametrize("lead", [
    "A: The population of Canada is", "A: Canada is", "A: The language of Canada is",
    "A: Canada is located in", "A: The main character of Hamlet is",
])
def test_a_relation_the_subject_does_not_have_constrains_nothing(
    by_meaning: KnowledgeBaseGuard, lead: str
) -> None:
    assert by_meaning.safe(lead, [" Toronto", " 1603", " English"]) == [True, True, True]
    coverage = by_meaning.coverage(f"{lead} Toronto", 3, len(lead) + 8)
    assert not coverage.checked and coverage.reason.startswith("no point")


def test_triples_from_the_passages_retrieved_for_the_question(tmp_path: Path) -> None:
    indexes = [IndexSpec("bm25", "bm25", Chunking(max_chars=400))]
    with Corpus.open(f"sqlite:///{tmp_path / 'open.sqlite'}", indexes=indexes) as corpus:
        corpus.ingest_texts([
            "Metformin reduces hepatic glucose production in diabetes.",
            "The Danube flows through ten countries. Vienna is the capital of Austria.",
            "Aspirin inhibits platelet aggregation.",
        ])
        retriever = corpus.retriever("bm25")
        guard = create_guard("kb", retriever=retriever, question="What does aspirin inhibit?",
                             k=1, by_meaning=False)
        with pytest.raises(DecodingError, match="needs a question"):
            KnowledgeBase.from_retrieval(retriever, " ")
    assert [t.subject for t in guard.knowledge.triples] == ["Aspirin"]
    assert guard.safe("Aspirin inhibits", [" platelet", " COX"]) == [True, False]
    assert guard.safe("Metformin reduces", [" insulin"]) == [True]
