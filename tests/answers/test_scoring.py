"""The answer scorer's calibration and how the renderer reads a scorer's P(answers)."""

import json
from collections.abc import Collection
from pathlib import Path

import pytest

from veritype.answer import Confidence
from veritype.answers.question import AnswerKind, analyse
from veritype.answers.rendering import render
from veritype.answers.scoring import (
    RIGHT_FLOOR,
    AnswerCalibration,
    answers_surely,
    claim_answers,
    create_answer_scorer,
    load_answer_scorer,
)
from veritype.claims import Claim, ClaimClass
from veritype.errors import ConfigurationError, UnknownComponentError
from veritype.evidence import EvidencePack
from veritype.graph import BeliefGraph, EvidenceType, Status

CALIBRATION = AnswerCalibration(threshold=0.6, slope=1.5, intercept=0.5, high=0.9, medium=0.7)
EVIDENCE = EvidencePack.from_texts([
    "Metallica is an American heavy metal band based in San Rafael, California. "
    "Jason Newsted played bass in Metallica from 1986.",
])
SENTENCES = EVIDENCE.sentences()
# A two-hop question the rules read as asking for a description: no rule answers it.
QUESTION = "Bassist of the band who released Voivod was originally in a band based where?"


def _graph(evidence: EvidencePack = EVIDENCE) -> BeliefGraph:
    sentences = evidence.sentences()
    texts = [evidence.quote(span) for span in sentences]
    start = 0
    claims = []
    for index, text in enumerate(texts):
        claims.append(Claim(f"c{index + 1}", text, ClaimClass.FACTUAL, start, start + len(text)))
        start += len(text) + 1
    graph = BeliefGraph.from_claims(claims, [])
    for node, span in zip(graph, sentences, strict=True):
        node.evidence_type, node.status = EvidenceType.VERIFIED, Status.ENTAILED
        node.evidence = [span]
        node.mass = 1.0
    return graph


def test_p_right_rises_with_p_answers_and_labels_follow_its_bands() -> None:
    low, high = CALIBRATION.right(0.2), CALIBRATION.right(0.95)
    assert low < CALIBRATION.right(0.6) < high
    assert CALIBRATION.label(0.95) is Confidence.HIGH
    assert CALIBRATION.label(0.8) is Confidence.MEDIUM
    assert CALIBRATION.label(0.5) is Confidence.LOW


@pytest.mark.parametrize("fields", [
    {"threshold": 0.0}, {"threshold": 1.0}, {"medium": 0.95, "high": 0.9}, {"high": 1.5},
])
def test_a_calibration_out_of_range_is_refused(fields: dict[str, float]) -> None:
    values = {**CALIBRATION.to_dict(), **fields}
    with pytest.raises(ConfigurationError, match="answer calibration"):
        AnswerCalibration(**values)


def test_a_calibration_file_round_trips_and_a_broken_one_names_itself(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(CALIBRATION.to_dict()))
    assert AnswerCalibration.read(path) == CALIBRATION
    path.write_text(json.dumps({"threshold": 0.5}))
    with pytest.raises(ConfigurationError, match=r"calibration.json: not an answer calibration"):
        AnswerCalibration.read(path)
    path.write_text("{")
    with pytest.raises(ConfigurationError, match="cannot read the answer calibration"):
        AnswerCalibration.read(path)


def test_an_unknown_scorer_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownComponentError, match="answers"):
        create_answer_scorer("no-such-scorer")


def test_an_answer_model_setting_loads_none_or_names_itself_when_it_cannot(
        tmp_path: Path) -> None:
    assert load_answer_scorer("none") is None
    with pytest.raises(ConfigurationError, match=r"answer_model 'no-such-scorer': .*answers"):
        load_answer_scorer("no-such-scorer")
    with pytest.raises(ConfigurationError, match=rf"answer_model '{tmp_path}'"):
        load_answer_scorer(str(tmp_path))


def test_without_a_scorer_the_rules_find_no_answer_and_the_answer_abstains() -> None:
    answer = render(_graph(), EVIDENCE, question=analyse(QUESTION))
    assert not analyse(QUESTION).answers(EVIDENCE.quote(SENTENCES[0]))
    assert answer.abstained
    assert answer.answer_probability is None
    assert answer.related[0].startswith("Metallica is an American heavy metal band")


def test_a_claim_the_scorer_says_answers_leads_and_sets_the_confidence() -> None:
    scores = {"c1": 0.93, "c2": 0.2}
    answer = render(_graph(), EVIDENCE, question=analyse(QUESTION), answer_scores=scores,
                    answer_calibration=CALIBRATION)
    assert not answer.abstained
    assert answer.answer.startswith("Metallica is an American heavy metal band")
    assert answer.answer_probability == pytest.approx(CALIBRATION.right(0.93), abs=1e-4)
    assert answer.confidence is CALIBRATION.label(CALIBRATION.right(0.93))


def test_the_kind_of_question_moves_p_right_by_its_offset_alone() -> None:
    kind = analyse(QUESTION).kind
    offsets = AnswerCalibration(**{**CALIBRATION.to_dict(),
                                   "kind_offsets": {kind.value: -4.0, "date": 2.0}})
    assert offsets.right(0.93, kind) < CALIBRATION.right(0.93) == offsets.right(0.93)
    assert offsets.right(0.93, AnswerKind.PERSON) == CALIBRATION.right(0.93)
    answer = render(_graph(), EVIDENCE, question=analyse(QUESTION),
                    answer_scores={"c1": 0.93, "c2": 0.2}, answer_calibration=offsets)
    assert answer.answer_probability == pytest.approx(offsets.right(0.93, kind), abs=1e-4)
    assert answer.confidence is Confidence.LOW


def test_an_answer_more_likely_wrong_than_right_abstains_and_lists_its_claims() -> None:
    kind = analyse(QUESTION).kind
    doubtful = AnswerCalibration(**{**CALIBRATION.to_dict(), "kind_offsets": {kind.value: -5.0}})
    assert doubtful.right(0.93, kind) < RIGHT_FLOOR
    answer = render(_graph(), EVIDENCE, question=analyse(QUESTION),
                    answer_scores={"c1": 0.93, "c2": 0.2}, answer_calibration=doubtful)
    assert answer.abstained
    assert answer.answer == "" and answer.answer_probability is None
    assert answer.confidence is Confidence.INSUFFICIENT_EVIDENCE
    assert "more likely wrong than right" in (answer.abstention_reason or "")
    assert answer.related[0].startswith("Metallica is an American heavy metal band")


def test_an_abstention_names_what_the_closest_claim_states_and_the_words_it_leaves_out(
        ) -> None:
    fines = EvidencePack.from_texts([
        "Books are lent for three weeks. A fine of \u20ac0.20 per day is charged for overdue "
        "books, up to a maximum of \u20ac6 per item."])
    asked = analyse("How much is the fine for an overdue film?")
    kind = asked.kind
    doubtful = AnswerCalibration(**{**CALIBRATION.to_dict(), "kind_offsets": {kind.value: -5.0}})
    answer = render(_graph(fines), fines, question=asked, answer_scores={"c1": 0.3, "c2": 0.9},
                    answer_calibration=doubtful)
    assert answer.abstained
    # The fine the evidence gives is the books' fine: the reason says so and what it lacks.
    assert (answer.abstention_reason or "").endswith(
        "The closest the evidence states is \u201cA fine of \u20ac0.20 per day is charged for "
        "overdue books, up to a maximum of \u20ac6 per item.\u201d, which does not speak of: "
        "film.")
    # A closest claim that speaks of every asked word adds nothing to the reason.
    assert asked.unstated("The fine for an overdue film is \u20ac0.50 a day.") == []
    assert analyse("Who is the CEO of Voltra?").unstated("Voltra was founded in 2015.") == ["CEO"]


def test_a_comparison_answered_for_both_sides_is_shown_however_low_p_right() -> None:
    births = EvidencePack.from_texts(["Ada Lovelace was born on 10 December 1815 in London. "
                                      "Marie Curie was born on 7 November 1867 in Warsaw."])
    asked = analyse("Who was born first, Ada Lovelace or Marie Curie?")
    doubtful = AnswerCalibration(**{**CALIBRATION.to_dict(), "kind_offsets": {"comparison": -5.0}})
    assert doubtful.right(0.1, asked.kind) < RIGHT_FLOOR
    answer = render(_graph(births), births, question=asked, answer_scores={"c1": 0.1, "c2": 0.1},
                    answer_calibration=doubtful)
    assert not answer.abstained
    assert "1815" in answer.answer and "1867" in answer.answer
    assert answer.confidence is Confidence.LOW


def test_a_comparison_answered_for_one_side_abstains_and_names_the_other() -> None:
    births = EvidencePack.from_texts(["Ada Lovelace was born on 10 December 1815 in London. "
                                      "Marie Curie was a physicist."])
    answer = render(_graph(births), births,
                    question=analyse("Who was born first, Ada Lovelace or Marie Curie?"))
    assert answer.abstained and answer.answer == ""
    assert "curie marie" in (answer.abstention_reason or "")
    assert any("1815" in text for text in answer.related)


def test_a_side_named_only_by_its_section_heading_is_answered() -> None:
    museums = EvidencePack.from_texts([
        "# Museums\n\n## Kunsthall Varn\n\nAdmission costs 170 kroner.\n\n"
        "## Maritime Museum\n\nAdmission costs 150 kroner for adults.\n"])
    sentences = [span for span in museums.sentences()
                 if museums.quote(span).startswith("Admission")]
    assert [museums.heading(span) for span in sentences] == ["Kunsthall Varn", "Maritime Museum"]
    graph = _graph(museums)
    for node in graph:
        node.evidence = [span for span in sentences if museums.quote(span) == node.claim.text]
        if not node.evidence:
            node.evidence_type = EvidenceType.UNSUPPORTED
    asked = analyse("Which costs more for an adult, Kunsthall Varn or the Maritime Museum?")
    answer = render(graph, museums, question=asked)
    assert not answer.abstained
    assert "170 kroner" in answer.answer and "150 kroner" in answer.answer


def test_a_plain_question_is_answered_by_a_value_whose_heading_names_its_focus() -> None:
    pages = EvidencePack.from_texts([
        "# Pagination\n\n## Page size\n\nThe default is 25 items.\n"])
    asked = analyse("What's the default page size for list endpoints?")
    answer = render(_graph(pages), pages, question=asked)
    assert not answer.abstained
    assert "25 items" in answer.answer
    # Without the heading, the sentence names too little of what is asked.
    bare = EvidencePack.from_texts(["The default is 25 items."])
    assert render(_graph(bare), bare, question=asked).abstained


def test_a_yes_no_answer_shows_every_verified_claim_on_the_question() -> None:
    sport = EvidencePack.from_texts([
        "The Voltra Sport is waterproof to IPX4. The Voltra Sport has sealed bearings."])
    asked = analyse("Is the Voltra Sport waterproof?")
    graph = _graph(sport)
    # The rules find the first: it states the asked property; the second names none of it,
    # and bears on it all the same.
    assert [asked.answers(node.claim.text) for node in graph] == [True, False]
    answer = render(graph, sport, question=asked)
    assert not answer.abstained and answer.related == []
    assert "sealed bearings" in answer.answer
    # With no claim stating the asked property, it abstains.
    assert render(_graph(sport), sport, question=analyse("Is the Voltra Sport foldable?")
                  ).abstained


def test_kind_offsets_round_trip_and_an_unknown_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    calibration = AnswerCalibration(**{**CALIBRATION.to_dict(),
                                       "kind_offsets": {"yes_no": -1.5}})
    path.write_text(json.dumps(calibration.to_dict()))
    assert AnswerCalibration.read(path) == calibration
    path.write_text(json.dumps({**CALIBRATION.to_dict(), "kind_offsets": {"why": 1.0}}))
    with pytest.raises(ConfigurationError, match="unknown answer kinds"):
        AnswerCalibration.read(path)


def test_scores_below_the_threshold_answer_nothing() -> None:
    answer = render(_graph(), EVIDENCE, question=analyse(QUESTION),
                    answer_scores={"c1": 0.59, "c2": 0.2}, answer_calibration=CALIBRATION)
    assert answer.abstained
    assert answer.confidence is Confidence.INSUFFICIENT_EVIDENCE
    assert answer.answer_probability is None


def test_a_model_answer_must_hold_a_value_of_the_asked_kind() -> None:
    asked = analyse("Who was Alan Turing's doctoral advisor?")
    # A nationality is no person: the claim names no one but the subject.
    assert not claim_answers(asked, "Alan Turing was an English mathematician.", 0.99,
                             CALIBRATION)
    assert claim_answers(asked, "Alan Turing studied under Alonzo Church at Princeton.", 0.99,
                         CALIBRATION)
    assert not claim_answers(asked, "Alan Turing studied under Alonzo Church at Princeton.",
                             0.5, CALIBRATION)


def test_a_yes_no_question_is_left_to_the_rules() -> None:
    asked = analyse("Is the Voltra Sport waterproof?")
    assert not claim_answers(asked, "The Voltra Sport is a light e-bike for fast road riding.",
                             0.99, CALIBRATION)
    assert claim_answers(asked, "The Voltra Sport is waterproof.", None, None)


def test_a_question_for_an_attribute_is_answered_only_by_a_claim_that_names_it() -> None:
    asked = analyse("What is the range of the Voltra Trek?")
    assert not claim_answers(asked, "The Trek costs 3,499 euros.", 0.97, CALIBRATION)
    assert claim_answers(asked, "The Trek's range is up to 140 km on one charge.", 0.97,
                         CALIBRATION)


def test_a_did_question_is_answered_only_by_a_claim_that_states_its_event() -> None:
    asked = analyse("When did Marie Curie move to Paris?")
    assert not claim_answers(asked, "Marie Curie died in 1934 in Passy, France.", 0.95,
                             CALIBRATION)
    assert claim_answers(asked, "Marie Curie moved to Paris in 1891.", 0.95, CALIBRATION)
    fell = analyse("When did the Berlin Wall fall?")
    assert claim_answers(fell, "The Berlin Wall fell on 9 November 1989.", 0.95, CALIBRATION)


def test_the_subjects_claims_answer_by_the_model_where_it_reads_the_question() -> None:
    asked = analyse('Who distributed the show from which the song "Friends" was sampled?')
    sampled = 'The song was sampled on the sitcom "Taina", sung by Christina Vidal.'
    # The rules take any person for an answer to "who"; the model does not.
    assert claim_answers(asked, sampled, 0.01, CALIBRATION)
    assert not answers_surely(asked, sampled, 0.01, CALIBRATION)
    assert answers_surely(asked, "Taina was distributed by Nelvana Limited.", 0.97, CALIBRATION)
    # Without a scorer, or for a yes/no question, the rules decide.
    assert answers_surely(asked, sampled, None, None)


def test_with_a_reader_p_right_reads_the_reader_and_a_doubtful_answer_abstains() -> None:
    from veritype.answers.reader import RightCalibration

    right = RightCalibration(intercept=0.0, reader_slope=1.0, answer_model_slope=0.5,
                             high=0.95, medium=0.7)
    scores = {"c1": 0.93, "c2": 0.2}
    sure = render(_graph(), EVIDENCE, question=analyse(QUESTION), answer_scores=scores,
                  answer_calibration=CALIBRATION, reader_scores={"c1": 0.9, "c2": 0.1},
                  reader_calibration=right)
    assert not sure.abstained
    assert sure.answer_probability == pytest.approx(right.right(0.9, 0.93, 1.0), abs=1e-4)
    assert sure.confidence is right.label(right.right(0.9, 0.93, 1.0))
    # The answer model alone would show it; the reader says it is more likely wrong.
    doubtful = render(_graph(), EVIDENCE, question=analyse(QUESTION), answer_scores=scores,
                      answer_calibration=CALIBRATION, reader_scores={"c1": 0.05, "c2": 0.1},
                      reader_calibration=right)
    assert right.right(0.05, 0.93, 1.0) < RIGHT_FLOOR
    assert doubtful.abstained and doubtful.related[0].startswith("Metallica")


def test_an_answer_that_speaks_of_little_the_question_asks_about_is_less_likely_right() -> None:
    from veritype.answers.reader import RightCalibration

    right = RightCalibration(intercept=-4.0, reader_slope=1.0, answer_model_slope=0.5,
                             high=0.95, medium=0.7, coverage_slope=4.0)
    asked: list[set[str]] = []

    def coverage(claim_ids: Collection[str]) -> float:
        asked.append(set(claim_ids))
        return covered

    kwargs = {"question": analyse(QUESTION), "answer_scores": {"c1": 0.93, "c2": 0.2},
              "answer_calibration": CALIBRATION, "reader_scores": {"c1": 0.9, "c2": 0.1},
              "reader_calibration": right, "coverage": coverage}
    covered = 1.0
    full = render(_graph(), EVIDENCE, **kwargs)  # type: ignore[arg-type]
    assert not full.abstained
    assert full.answer_probability == pytest.approx(right.right(0.9, 0.93, 1.0), abs=1e-4)
    # Coverage is read over the claims that answer.
    assert asked[-1] == {"c1"}
    covered = 0.1
    little = render(_graph(), EVIDENCE, **kwargs)  # type: ignore[arg-type]
    assert right.right(0.9, 0.93, 0.1) < RIGHT_FLOOR
    assert little.abstained


def test_a_claim_the_reader_is_sure_of_answers_though_it_holds_no_value_of_the_asked_kind(
) -> None:
    from veritype.answers.reader import RightCalibration

    evidence = EvidencePack.from_texts([
        "An item can be renewed twice, online or at the desk, unless another member has "
        "reserved it. Members may borrow up to twelve items at a time."])
    question = analyse("When must a renewal be refused?")
    # The rules read "when" as asking for a date, and the condition holds none.
    assert not question.holds_kind(evidence.quote(evidence.sentences()[0]))
    scores = {"c1": 0.2, "c2": 0.7}
    reads = {"c1": 0.8, "c2": 0.3}
    vetoed = render(_graph(evidence), evidence, question=question, answer_scores=scores,
                    answer_calibration=CALIBRATION, reader_scores=reads,
                    reader_calibration=RightCalibration(0.0, 1.0, 0.0, high=0.95, medium=0.7))
    assert vetoed.abstained
    sure = RightCalibration(0.0, 1.0, 0.0, high=0.95, medium=0.7, answers_from=0.75)
    answered = render(_graph(evidence), evidence, question=question, answer_scores=scores,
                      answer_calibration=CALIBRATION, reader_scores=reads,
                      reader_calibration=sure)
    assert not answered.abstained
    assert answered.answer.startswith("An item can be renewed twice")
    assert "Members" not in answered.answer
    # The questions the rules decide stay theirs.
    assert not sure.reads_as_answer(analyse("Is a renewal ever refused?"), 0.99)


def test_a_claim_that_gives_a_sibling_s_value_is_no_answer_and_the_abstention_says_whose(
        ) -> None:
    fines = EvidencePack.from_texts([
        "Books are lent for three weeks; films and games for one week. A fine of \u20ac0.20 "
        "per day is charged for overdue books, up to a maximum of \u20ac6 per item."])
    answer = render(_graph(fines), fines, question=analyse(
        "How much is the fine for an overdue film?"), answer_scores={"c1": 0.3, "c2": 0.95},
        answer_calibration=CALIBRATION)
    assert answer.abstained and answer.answer == ""
    assert (answer.abstention_reason or "").endswith(
        "The closest the evidence states is \u201cA fine of \u20ac0.20 per day is charged for "
        "overdue books, up to a maximum of \u20ac6 per item.\u201d, which speaks of books, not "
        "of film.")
    # Asked of books, the same claim answers.
    answer = render(_graph(fines), fines, question=analyse(
        "How much is the fine for an overdue book?"), answer_scores={"c1": 0.3, "c2": 0.95},
        answer_calibration=CALIBRATION)
    assert not answer.abstained and "\u20ac0.20" in answer.answer
