"""Relevance of claims to the question, lexically and with the dense retriever's MiniLM."""

from collections.abc import Sequence

import pytest

from veritype.claims import decompose
from veritype.graph import BeliefGraph
from veritype.relevance import off_question_claims
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
