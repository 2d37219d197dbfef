import pytest

from veritype.evidence import Chunk, Document, chunk_document
from veritype.generation import ExtractiveGenerator, GenerationParams, create_generator


def test_the_best_matching_evidence_sentences_make_the_answer(eiffel: list[Chunk]) -> None:
    draft = create_generator("extractive").generate("How tall is the Eiffel Tower?", eiffel)
    assert draft.text.startswith("The Eiffel Tower in Paris was opened on 31 March 1889.")
    assert draft.generator == "extractive"
    evidence_text = " ".join(chunk.text for chunk in eiffel)
    sentences = [s.strip() + "." for s in draft.text.split(".") if s.strip()]
    assert all(sentence in evidence_text for sentence in sentences)


def test_tokens_are_words_at_their_offsets_without_logprobs(eiffel: list[Chunk]) -> None:
    draft = ExtractiveGenerator().generate("Who built the tower?", eiffel)
    assert draft.tokens
    for token in draft.tokens:
        assert draft.text[token.start : token.end] == token.text
        assert token.logprob is None and token.entropy is None
    assert draft.mean_entropy(0, len(draft.text)) is None
    streamed = list(ExtractiveGenerator().stream("Who built the tower?", eiffel))
    assert streamed == list(draft.tokens)


def test_repeated_evidence_is_said_once() -> None:
    text = "Aspirin lowers the risk of stroke. Aspirin lowers the risk of stroke in adults."
    chunks = [
        *chunk_document(Document.from_text(text, source="a")),
        *chunk_document(Document.from_text("Aspirin lowers the risk of stroke.", source="b")),
    ]
    draft = ExtractiveGenerator().generate("Does aspirin lower stroke risk?", chunks)
    assert draft.text.count("lowers the risk of stroke") == 1


def test_max_tokens_bounds_the_answer(eiffel: list[Chunk]) -> None:
    generator = ExtractiveGenerator(max_sentences=3)
    draft = generator.generate("Eiffel tower Paris", eiffel, GenerationParams(max_tokens=5))
    assert len(draft.tokens) == 5


def test_no_evidence_gives_an_empty_draft_and_batches_pair_up(eiffel: list[Chunk]) -> None:
    generator = ExtractiveGenerator()
    assert generator.generate("Anything?", []).text == ""
    drafts = generator.generate_batch(["How tall?", "Who built it?"], [eiffel, eiffel])
    assert len(drafts) == 2
    with pytest.raises(ValueError, match="one evidence list per prompt"):
        generator.generate_batch(["How tall?"], [eiffel, eiffel])
    with pytest.raises(ValueError, match="max_sentences"):
        ExtractiveGenerator(max_sentences=0)


def test_section_labels_are_dropped_and_aims_are_not_answers() -> None:
    from veritype.evidence import Document, chunk_document
    from veritype.generation import create_generator

    text = (
        "OBJECTIVE To determine whether surgery improves mental health. "
        "CONCLUSIONS AND RELEVANCE Mental health conditions are common among surgery patients."
    )
    chunks = chunk_document(Document.from_text(text))
    draft = create_generator("extractive").generate("Is mental health after surgery better?",
                                                    chunks)
    assert draft.text == "Mental health conditions are common among surgery patients."


def test_a_pronoun_sentence_comes_with_its_referent_and_headings_are_never_answers() -> None:
    loire = "# Loire\n\nThe Loire is the longest river in France. It is 1,006 kilometres long."
    chunks = chunk_document(Document.from_text(loire, source="loire.md"))
    draft = ExtractiveGenerator().generate("How long is the Loire?", chunks)
    assert draft.text == ("The Loire is the longest river in France. "
                          "It is 1,006 kilometres long.")
    bare = "# Golden Gate Bridge\n\nIt opened to traffic in 1937."
    chunks = chunk_document(Document.from_text(bare, source="gg.md"))
    draft = ExtractiveGenerator().generate("When did the Golden Gate Bridge open?", chunks)
    assert draft.text == "# Golden Gate Bridge\nIt opened to traffic in 1937."


def test_a_pronoun_after_a_description_comes_with_the_sentence_that_names_it() -> None:
    akashi = ("The Akashi Kaikyo Bridge is a suspension bridge in Japan. The bridge opened in "
              "April 1998. Its central span is 1,991 metres long.")
    chunks = chunk_document(Document.from_text(akashi, source="akashi.md"))
    draft = ExtractiveGenerator(max_sentences=1).generate(
        "How long is the central span?", chunks)
    assert draft.text == ("The Akashi Kaikyo Bridge is a suspension bridge in Japan. "
                          "Its central span is 1,991 metres long.")


def test_a_pronoun_after_a_description_of_another_thing_comes_with_that_description() -> None:
    # "The lighthouse" is no description of Holmø, the heading's subject: "Its 212 steps"
    # are the lighthouse's.
    guide = ("## Holmø\n\nThe island of Holmø lies at the mouth of the fjord. The lighthouse is "
             "open from June to August. Its 212 steps lead to a gallery.")
    chunks = chunk_document(Document.from_text(guide, source="trips.md"))
    draft = ExtractiveGenerator(max_sentences=1).generate(
        "How many steps does the Holmø lighthouse have?", chunks)
    assert draft.text == ("The lighthouse is open from June to August. "
                          "Its 212 steps lead to a gallery.")


def test_a_pronoun_its_passage_never_names_is_not_read_as_another_passage_s_subject() -> None:
    chunks = [
        *chunk_document(Document.from_text(
            "Taedonggang is a brand of North Korean beer brewed in Pyongyang.", source="a")),
        *chunk_document(Document.from_text(
            "It makes Herradura tequila and is based in Louisville, Kentucky.", source="b")),
    ]
    draft = ExtractiveGenerator().generate(
        "Which company based in Pyongyang brews beer and makes Herradura?", chunks)
    assert draft.text == ("It makes Herradura tequila and is based in Louisville, Kentucky. "
                          "Taedonggang is a brand of North Korean beer brewed in Pyongyang.")


def test_a_pronoun_follows_its_referent_when_the_referent_is_quoted_first() -> None:
    chunks = [
        *chunk_document(Document.from_text(
            "The Loire is the longest river in France. It is 1,006 kilometres long.",
            source="loire.md")),
        *chunk_document(Document.from_text("The Seine flows through Paris.", source="seine.md")),
    ]
    draft = ExtractiveGenerator(max_sentences=3).generate(
        "Which is the longest river in France in kilometres, and does the Seine flow through "
        "Paris?", chunks)
    assert draft.text == ("The Loire is the longest river in France. It is 1,006 kilometres "
                          "long. The Seine flows through Paris.")


def test_a_sides_value_is_kept_though_it_shares_the_other_sides_words() -> None:
    cruise = "# Fjord cruise\n\nBoats leave the quay at 10:00. Tickets cost 520 kroner for adults."
    ferry = ("# Holmø\n\nThe ferry takes 50 minutes. A return ticket costs 180 kroner for adults"
             " and 90 kroner for children.")
    chunks = [*chunk_document(Document.from_text(cruise, source="cruise.md")),
              *chunk_document(Document.from_text(ferry, source="holmo.md"))]
    draft = ExtractiveGenerator().generate(
        "Which costs more for an adult, the fjord cruise or a return ticket to Holmø?", chunks)
    assert "520 kroner" in draft.text and "180 kroner" in draft.text


def test_a_comparisons_side_may_be_named_by_its_documents_title() -> None:
    # "We followed 812 first-year students ..." under "Methods" is the sleep study's only by
    # its document's title; without titles a sentence sharing more words takes its place.
    sleep = Document.from_text(
        "## Methods\n\nStudents in the comparison group kept a diary. We followed 812 "
        "first-year students for six weeks during the autumn term.",
        title="A study of sleep and exam results in first-year students", source="sleep.md")
    reading = Document.from_text(
        "## Methods\n\nPupils in programme schools read with trained older pupils over 20 "
        "weeks. The paired reading programme ran in more primary schools than the study had "
        "planned.", title="A paired reading programme in primary schools", source="reading.md")
    chunks = [*chunk_document(sleep), *chunk_document(reading)]
    titles = {document.doc_id: document.title for document in (sleep, reading)}
    question = "Which ran for more weeks, the paired reading programme or the student sleep study?"
    untitled = ExtractiveGenerator(max_sentences=2).generate(question, chunks).text
    titled = ExtractiveGenerator(max_sentences=2,
                                 document_title=titles.__getitem__).generate(question, chunks).text
    assert "six weeks" not in untitled
    assert "20 weeks" in titled and "six weeks" in titled


def test_a_table_row_is_quoted_with_its_header_and_the_header_alone_never() -> None:
    text = ("## Limits per environment\n\n| Environment | Requests per minute | Burst |\n"
            "|---|---|---|\n| Production | 600 | 50 per second |\n| Sandbox | 60 | 5 per second |")
    chunks = chunk_document(Document.from_text(text, source="limits.md"))
    draft = ExtractiveGenerator().generate("What is the burst limit in the sandbox?", chunks)
    assert draft.text.startswith("Environment: Sandbox; Requests per minute: 60; Burst: 5 per "
                                 "second.")
    assert "|" not in draft.text
