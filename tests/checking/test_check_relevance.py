"""Answer relevance: an answer about what was asked scores above one about something else,
right or wrong, with the real MiniLM encoder."""

from __future__ import annotations

from check_support import BROOKLYN, GOLDEN_GATE

from veritype import check
from veritype.checking import AnswerRelevance, CheckSettings

QUESTION = "When did the Golden Gate Bridge open?"


def test_an_answer_to_the_question_outscores_one_about_something_else() -> None:
    right, wrong, elsewhere = AnswerRelevance().score_batch([
        (QUESTION, "The Golden Gate Bridge opened in 1937."),
        (QUESTION, "The Golden Gate Bridge opened in 1883."),
        (QUESTION, "Penicillin was discovered by Alexander Fleming."),
    ])
    assert min(right, wrong) > 0.5 > 0.2 > elsewhere >= 0.0
    assert abs(right - wrong) < 0.1  # relevance is not truth


def test_check_reports_relevance_per_row_and_its_mean() -> None:
    rows = [
        {"question": QUESTION, "answer": "The Golden Gate Bridge opened in 1937.",
         "contexts": [GOLDEN_GATE]},
        {"question": QUESTION, "answer": "The Brooklyn Bridge crosses the East River.",
         "contexts": [BROOKLYN]},
        {"answer": "The Brooklyn Bridge crosses the East River.", "contexts": [BROOKLYN]},
    ]
    result = check(rows)
    on, off, unasked = (row.relevance for row in result.rows)
    assert on is not None and off is not None and on > off
    assert unasked is None  # no question, nothing to be relevant to
    assert result.summary()["mean_relevance"] == round((on + off) / 2, 4)
    assert [record["relevance"] for record in result.records()] == [on, off, None]
    assert all(row.verdict.value == "faithful" for row in result.rows)  # both are true


def test_relevance_can_be_left_out() -> None:
    settings = CheckSettings(relevance=False)
    result = check([{"question": QUESTION, "answer": "It opened in 1937.",
                     "contexts": [GOLDEN_GATE]}], settings=settings)
    assert result.rows[0].relevance is None and result.summary()["mean_relevance"] is None
    assert settings.to_dict()["relevance"] is False
    assert "relevance" not in CheckSettings().to_dict()  # earlier run directories continue


def test_each_text_is_embedded_once_with_the_same_scores() -> None:
    """A question asked of several answers is embedded once; the scores are those of
    embedding every text afresh, to the bit."""
    fresh = AnswerRelevance(cache_size=0)
    cached = AnswerRelevance()
    pairs = [(QUESTION, "The Golden Gate Bridge opened in 1937."),
             (QUESTION, "The Golden Gate Bridge opened in 1883."),
             (QUESTION, "The Golden Gate Bridge opened in 1937.")]
    embedded: list[str] = []
    inner = cached.encoder.embed_batch

    def counting(texts: list[str]) -> object:
        embedded.extend(texts)
        return inner(texts)

    cached.encoder.embed_batch = counting  # type: ignore[method-assign]
    try:
        scores = [cached.score(*pair) for pair in pairs]
    finally:
        del cached.encoder.embed_batch
    assert scores == [fresh.score(*pair) for pair in pairs]
    assert sorted(embedded) == sorted({text for pair in pairs for text in pair})
