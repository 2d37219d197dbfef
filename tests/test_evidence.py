import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from veritype.errors import InputError
from veritype.evidence import Chunk, Document, EvidencePack, Span, chunk_document, paragraph_opening

TEXT = "First sentence here. Second one is longer than the first. Third! Fourth?"


def test_document_ids_are_stable_and_depend_on_content_and_source() -> None:
    a = Document.from_text("same", source="a.txt")
    assert a.doc_id == Document.from_text("same", source="a.txt").doc_id
    assert a.doc_id != Document.from_text("same", source="b.txt").doc_id
    assert a.doc_id != Document.from_text("other", source="a.txt").doc_id


def test_chunks_hold_exact_offsets_into_the_document() -> None:
    doc = Document.from_text(TEXT)
    chunks = chunk_document(doc, max_chars=40)
    assert len(chunks) > 1
    for chunk in chunks:
        assert doc.text[chunk.start : chunk.end] == chunk.text
        assert len(chunk.text) <= 40


@given(st.text(min_size=1), st.integers(1, 200), st.integers(0, 2))
def test_chunking_never_loses_a_sentence(text: str, max_chars: int, overlap: int) -> None:
    doc = Document.from_text(text)
    chunks = chunk_document(doc, max_chars=max_chars, overlap_sentences=overlap)
    covered = set()
    for chunk in chunks:
        assert doc.text[chunk.start : chunk.end] == chunk.text
        assert len(chunk.text) <= max_chars
        covered.update(range(chunk.start, chunk.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_a_sentence_longer_than_a_chunk_is_cut_at_a_clause_then_a_space_then_exactly() -> None:
    clauses = "The river rises in spring, floods the valley, and drains by June"
    assert [c.text for c in chunk_document(Document.from_text(clauses), max_chars=50)] == [
        "The river rises in spring, floods the valley,", "and drains by June"]
    words = "one two three four five six seven eight nine ten"
    assert [c.text for c in chunk_document(Document.from_text(words), max_chars=20)] == [
        "one two three four", "five six seven eight", "nine ten"]
    assert [len(c.text) for c in chunk_document(Document.from_text("x" * 2500),
                                                max_chars=1000)] == [1000, 1000, 500]


def test_a_long_unpunctuated_line_becomes_many_bounded_chunks() -> None:
    text = "word " * 20_000
    chunks = chunk_document(Document.from_text(text), max_chars=1000)
    assert len(chunks) >= 100
    assert max(len(chunk.text) for chunk in chunks) <= 1000


def test_overlap_repeats_trailing_sentences() -> None:
    doc = Document.from_text(TEXT)
    chunks = chunk_document(doc, max_chars=45, overlap_sentences=1)
    assert any(b.start < a.end for a, b in itertools.pairwise(chunks))


def test_bad_chunking_settings_are_refused() -> None:
    doc = Document.from_text(TEXT)
    with pytest.raises(InputError, match="max_chars"):
        chunk_document(doc, max_chars=0)
    with pytest.raises(InputError, match="overlap_sentences"):
        chunk_document(doc, overlap_sentences=-1)


def test_chunk_checks_its_own_consistency() -> None:
    with pytest.raises(InputError, match="does not match"):
        Chunk("x", "d", 0, 5, "abc")
    with pytest.raises(InputError, match="invalid offsets"):
        Chunk("x", "d", 5, 2, "")


def test_pack_resolves_and_quotes_spans() -> None:
    pack = EvidencePack.from_texts([TEXT])
    chunk = pack.chunks[0]
    span = Span(chunk.doc_id, chunk.chunk_id, chunk.start, chunk.start + 5)
    assert pack.resolves(span)
    assert pack.quote(span) == "First"
    assert not pack.resolves(Span(chunk.doc_id, chunk.chunk_id, 0, len(TEXT) + 1))
    assert not pack.resolves(Span("other", chunk.chunk_id, 0, 5))
    assert not pack.resolves(Span(chunk.doc_id, "missing", 0, 5))
    with pytest.raises(InputError, match="no chunk"):
        pack.quote(Span(chunk.doc_id, "missing", 0, 5))
    with pytest.raises(InputError, match="outside chunk"):
        pack.quote(Span(chunk.doc_id, chunk.chunk_id, 0, len(TEXT) + 1))


def test_pack_sentences_cover_every_chunk() -> None:
    pack = EvidencePack.from_texts([TEXT, "Another doc. With two sentences."])
    quotes = [pack.quote(span) for span in pack.sentences()]
    assert quotes == [
        "First sentence here.",
        "Second one is longer than the first.",
        "Third!",
        "Fourth?",
        "Another doc.",
        "With two sentences.",
    ]


def test_pack_refuses_duplicates() -> None:
    doc = Document.from_text(TEXT)
    with pytest.raises(InputError, match="same document"):
        EvidencePack.from_documents([doc, doc])
    chunk = chunk_document(doc)[0]
    with pytest.raises(InputError, match="duplicate chunk"):
        EvidencePack(chunks=[chunk, chunk])


def test_a_sentence_is_said_of_the_sentence_that_opens_its_paragraph() -> None:
    text = ("# Getting there\n\nThe quickest way in is the Express train. It takes 22 minutes. "
            "A ticket costs 140 kroner.\n\nThe cheaper option is bus 30. A ticket costs 60 "
            "kroner.\n")
    opening = paragraph_opening(text, text.index("A ticket costs 140"))
    assert opening == "The quickest way in is the Express train."
    assert paragraph_opening(text, text.index("A ticket costs 60")) == (
        "The cheaper option is bus 30.")
    # The opening sentence itself, and a heading, open nothing before them.
    assert paragraph_opening(text, text.index("The quickest")) == ""
    assert paragraph_opening(text, text.index("Getting")) == ""
