"""Relevance of claims to the question, lexically and with the dense retriever's MiniLM."""

from collections.abc import Sequence

import pytest

from veritype.answers.relevance import off_question_claims, question_subjects
from veritype.claims import decompose
from veritype.evidence import Document, EvidencePack
from veritype.graph import BeliefGraph, EvidenceType
from veritype.retrieval.embedding import create_embedder


def graph_of(text: str) -> BeliefGraph:
    decomposition = decompose(text)
    return BeliefGraph.from_claims(decomposition.claims, decomposition.edges)


def texts_off(graph: BeliefGraph, ids: set[str]) -> list[str]:
    return [node.claim.text for node in graph if node.claim.claim_id in ids]


def minilm_cosine(question: str, texts: Sequence[str]) -> list[float]:
    vectors = create_embedder().embed_batch([question, *texts])
    return [float(score) for score in vectors[1:] @ vectors[0]]


def test_a_copied_neighbouring_fact_is_off_the_question() -> None:
    graph = graph_of("Apple computers can get viruses. Sharks can get cancer.")
    off = off_question_claims(graph, "Can Apple computers get viruses?")
    # "get" is shared, but a light verb names no topic.
    assert texts_off(graph, off) == ["Sharks can get cancer."]


def test_embeddings_keep_an_answer_that_repeats_no_word_of_the_question() -> None:
    graph = graph_of("Leonardo da Vinci did. The Eiffel Tower is in Paris.")
    question = "Who painted the Mona Lisa?"
    assert len(off_question_claims(graph, question)) == 2
    off = off_question_claims(graph, question, similarity=minilm_cosine)
    assert texts_off(graph, off) == ["The Eiffel Tower is in Paris."]
    assert off_question_claims(graph, question, similarity=minilm_cosine, floor=0.9) == {
        node.claim.claim_id for node in graph
    }


def test_a_pronoun_led_claim_keeps_its_referents_topic() -> None:
    graph = graph_of("The Eiffel Tower is in Paris. It is 330 metres tall.")
    assert graph.edges()  # "It" depends on the first claim
    assert off_question_claims(graph, "Where is the Eiffel Tower?") == set()


def test_a_question_without_topic_words_judges_nothing_lexically() -> None:
    graph = graph_of("Sharks can get cancer.")
    assert off_question_claims(graph, "What is it?") == set()


def test_the_floor_must_be_a_similarity() -> None:
    with pytest.raises(ValueError, match="relevance floor"):
        off_question_claims(graph_of("Sharks can get cancer."), "Why?", floor=1.5)


@pytest.mark.parametrize(
    ("question", "subjects"),
    [
        ("When did the Golden Gate Bridge open?", [{"golden", "gate"}]),
        ("Which is longer, the Rhine or the Danube?", [{"rhine"}, {"danube"}]),
        ("How tall is Mount Everest?", [{"everest"}]),
        ("What was Marie Curie\u2019s first prize?", [{"marie", "curie"}]),
        ("Does bariatric surgery improve mental health?", []),
        # Without "City", the Voltra City would be every Voltra (the Cargo too).
        ("How much does the Voltra City weigh?", [{"voltra", "city"}]),
        ("How long is the Brooklyn Bridge?", [{"brooklyn", "bridge"}]),
        # "I" with a contraction is the asker, not a name; an apostrophe inside a name stays.
        ("What's the mileage rate once I've done 10,000 miles?", []),
        ("How long can I\u2019m away before O'Brien's team calls?", [{"o'brien"}]),
    ],
)
def test_the_names_a_question_asks_about(question: str, subjects: list[set[str]]) -> None:
    assert question_subjects(question) == subjects


RIVERS = EvidencePack.from_documents([
    Document.from_text("The Rhine rises in the Swiss Alps. It is about 1,230 kilometres long.",
                       title="Rhine"),
    Document.from_text("The River Thames flows through London. It is 346 kilometres long.",
                       title="thames.txt"),
])


def _cited(graph: BeliefGraph) -> None:
    """Cite each claim to the evidence sentence it copies, as verification would."""
    for node in graph:
        for span in RIVERS.sentences():
            if RIVERS.quote(span) == node.claim.shown:
                node.evidence.append(span)
        assert node.evidence, node.claim.shown


def test_a_claim_cited_to_another_subjects_passage_is_off_the_question() -> None:
    # The draft put the Rhine's length after a Thames sentence; "It" reads as the Thames in
    # the draft, but the passage it comes from is about the Rhine.
    graph = graph_of("The River Thames flows through London. It is about 1,230 kilometres long.")
    _cited(graph)
    off = off_question_claims(graph, "How long is the Thames?", evidence=RIVERS)
    assert texts_off(graph, off) == ["The River Thames is about 1,230 kilometres long."]
    on_nile = off_question_claims(graph, "How long is the Nile?", evidence=RIVERS)
    assert on_nile == {node.claim.claim_id for node in graph}


def test_a_claim_cited_to_its_subjects_passage_stays_on_the_question() -> None:
    graph = graph_of("It is 346 kilometres long.")
    _cited(graph)
    assert off_question_claims(graph, "How long is the Thames?", evidence=RIVERS) == set()


def test_a_claim_cited_to_a_section_its_heading_names_is_about_that_subject() -> None:
    trips = EvidencePack.from_documents([Document.from_text(
        "# Day trips\n\n## Holmø\n\nThe ferry takes 50 minutes. The lighthouse is open in "
        "summer. Its 212 steps lead to a gallery.", title="Day trips")])
    graph = graph_of("The lighthouse's 212 steps lead to a gallery.")
    for node in graph:
        node.evidence = [span for span in trips.sentences()
                         if trips.quote(span).startswith("Its 212 steps")]
    assert off_question_claims(graph, "How many steps does the Holmø lighthouse have?",
                               evidence=trips) == set()
    assert off_question_claims(graph, "How many steps does the Skarvik lighthouse have?",
                               evidence=trips) == {node.claim.claim_id for node in graph}


LEGION = EvidencePack.from_documents([
    Document.from_text("The Guelphic Legion was a paramilitary unit maintained at the expense of "
                       "George V, deposed King of Hanover.", title="Guelphic Legion"),
    Document.from_text("George V's reign was ended by the Unification of Germany.",
                       title="George V of Hanover"),
    Document.from_text("Rosalind Franklin was an English chemist. Ada Lovelace was an English "
                       "mathematician.", title="Scientists"),
])


def _verified_and_cited(graph: BeliefGraph, pack: EvidencePack) -> None:
    for node in graph:
        node.evidence = [span for span in pack.sentences() if pack.quote(span) == node.claim.shown]
        node.evidence_type = EvidenceType.VERIFIED


LEGION_QUESTION = ("The Guelphic Legion was maintained at the expense of a king whose reign was "
                   "ended by what?")


def _legion_graph() -> BeliefGraph:
    graph = graph_of("The Guelphic Legion was a paramilitary unit maintained at the expense of "
                     "George V, deposed King of Hanover. George V's reign was ended by the "
                     "Unification of Germany.")
    _verified_and_cited(graph, LEGION)
    return graph


def test_a_two_hop_answer_is_on_the_question_through_a_name_a_verified_claim_gives() -> None:
    graph = _legion_graph()
    assert off_question_claims(graph, LEGION_QUESTION, evidence=LEGION) == set()
    # Unverified, the first claim vouches for no other name.
    for node in graph:
        node.evidence_type = None
    assert texts_off(graph, off_question_claims(graph, LEGION_QUESTION, evidence=LEGION)) == [
        "George V's reign was ended by the Unification of Germany."]


def test_a_nationality_leads_on_to_no_one() -> None:
    graph = graph_of("Rosalind Franklin was an English chemist. Ada Lovelace was an English "
                     "mathematician.")
    _verified_and_cited(graph, LEGION)
    off = off_question_claims(graph, "Where did Rosalind Franklin work?", evidence=LEGION)
    assert texts_off(graph, off) == ["Ada Lovelace was an English mathematician."]


def test_a_two_hop_claim_that_answers_better_than_the_subjects_claims_joins_them() -> None:
    graph = _legion_graph()
    legion, reign = (node.claim.claim_id for node in graph)
    # The Legion's claim answers too (by the rules, a description of anything): the claim
    # reached through George V joins only when it answers better.
    better = off_question_claims(graph, LEGION_QUESTION, evidence=LEGION, answering={legion, reign},
                                 answer_scores={legion: 0.3, reign: 0.9})
    assert better == set()
    worse = off_question_claims(graph, LEGION_QUESTION, evidence=LEGION, answering={legion, reign},
                                answer_scores={legion: 0.9, reign: 0.3})
    assert worse == {reign}
    # Without scores, a claim about the subject that answers keeps the two-hop claim out.
    assert off_question_claims(graph, LEGION_QUESTION, evidence=LEGION,
                               answering={legion, reign}) == {reign}


NOVELS = EvidencePack.from_documents([
    Document.from_text("Breakfast of Champions is the seventh novel by the American author Kurt "
                       "Vonnegut.", title="Breakfast of Champions"),
    Document.from_text("Kurt Vonnegut Jr. (November 11, 1922 – April 11, 2007) was an American "
                       "writer.", title="Kurt Vonnegut"),
    Document.from_text("Christopher Paolini (born November 17, 1983) is an American writer.",
                       title="Christopher Paolini"),
])


def test_a_two_hop_claim_that_shares_no_word_with_the_question_is_reached_all_the_same() -> None:
    graph = graph_of("Breakfast of Champions is the seventh novel by the American author Kurt "
                     "Vonnegut. Kurt Vonnegut Jr. (November 11, 1922 – April 11, 2007) was an "
                     "American writer. Christopher Paolini (born November 17, 1983) is an "
                     "American writer.")
    _verified_and_cited(graph, NOVELS)
    question = "Breakfast of Champions is the seventh novel by an author that died in this year?"
    off = off_question_claims(graph, question, evidence=NOVELS)
    assert texts_off(graph, off) == [
        "Christopher Paolini (born November 17, 1983) is an American writer."]
