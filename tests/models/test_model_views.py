from pathlib import Path

import pytest
from deadline_support import cancelled_while

from veritype.claims import Claim
from veritype.deadline import Deadline, DeadlineExceededError, running_under
from veritype.evidence import EvidencePack
from veritype.models.cross_encoder import CrossEncoder
from veritype.models.encoder_views import (
    CrossEncoderView,
    claim_overlap,
    closest_windows,
    evidence_windows,
)
from veritype.views import Verdict

TEXT = (
    "The tower is 330 metres tall. It opened in 1889. It was built of iron. "
    "Visitors climb it daily."
)


def test_windows_overlap_and_resolve() -> None:
    pack = EvidencePack.from_texts([TEXT, "One sentence only."])
    windows = evidence_windows(pack, (2,))
    assert [pack.quote(w.span) for w in windows] == [
        "The tower is 330 metres tall. It opened in 1889.",
        "The tower is 330 metres tall. It opened in 1889. It was built of iron.",
        "It opened in 1889. It was built of iron. Visitors climb it daily.",
        "One sentence only.",
    ]
    # The model reads each pronoun as the subject it stands for in the chunk, even when the
    # window starts after that subject's sentence; the span cites the text as is.
    assert [w.text for w in windows[:3]] == [
        "The tower is 330 metres tall. The tower opened in 1889.",
        "The tower is 330 metres tall. The tower opened in 1889. The tower was built of iron.",
        "The tower opened in 1889. The tower was built of iron. Visitors climb it daily.",
    ]
    # Read only within the window, a pronoun with no subject before it stays as written.
    assert windows[2].local == "It opened in 1889. It was built of iron. Visitors climb it daily."
    assert windows[3].text == "One sentence only."
    single = [pack.quote(w.span) for w in evidence_windows(pack, (1,))]
    assert single[1] == "The tower is 330 metres tall. It opened in 1889."
    assert single[3] == "Visitors climb it daily."
    assert len(single) == 5
    bridge = EvidencePack.from_texts(
        ["The Golden Gate Bridge spans a strait. The bridge opened in 1937. Ships pass it."]
    )
    assert [bridge.quote(w.span) for w in evidence_windows(bridge, (1,))] == [
        "The Golden Gate Bridge spans a strait.",
        "The Golden Gate Bridge spans a strait. The bridge opened in 1937.",
        "Ships pass it.",
    ]


def test_a_window_opening_with_a_pronoun_reads_its_antecedent() -> None:
    pack = EvidencePack.from_texts(
        [
            "The Eiffel Tower is a wrought-iron lattice tower in Paris. "
            "It was completed in 1889. The tower is 330 metres tall."
        ]
    )
    view = _shipped_align(window_sizes=(1,))
    result = view.verify(Claim("c1", "The Eiffel Tower was completed in 1889."), pack)
    assert result.verdict is not Verdict.CONTRADICTED
    assert "Eiffel Tower" in pack.quote(result.spans[0])


def test_a_pronoun_led_sentence_states_its_subject_s_fact() -> None:
    # Read with "It", the shipped nli model contradicted this claim (0.88).
    pack = EvidencePack.from_texts([
        "The Voltra City is our lightest model. It weighs 21 kg and has a 400 Wh battery. "
        "The Voltra Cargo carries two children."])
    result = _shipped_nli().verify(Claim("c1", "The Voltra City weighs 21 kg."), pack)
    assert result.verdict is Verdict.ENTAILED
    assert pack.quote(result.spans[0]).startswith("The Voltra City is our lightest model.")


def test_a_copy_of_the_evidence_as_written_or_as_read_is_stated_verbatim() -> None:
    pack = EvidencePack.from_texts([TEXT])
    view = _shipped_nli()
    for claim in ("It opened in 1889.", "The tower opened in 1889."):
        result = view.verify(Claim("c1", claim), pack)
        assert result.verdict is Verdict.ENTAILED, claim
        assert result.detail == "the evidence states the claim verbatim", claim


@pytest.mark.slow
def test_view_cites_the_deciding_window(tiny_run: Path) -> None:
    encoder = CrossEncoder(tiny_run / "onnx")
    view = CrossEncoderView("nli", encoder, entail_threshold=0.01, contradiction_threshold=1.0)
    pack = EvidencePack.from_texts([TEXT])
    claims = [Claim("c1", "The tower opened in 1889."), Claim("c2", "Visitors climb it.")]
    results = view.verify_batch(claims, [pack, pack])
    assert [r.verdict for r in results] == [Verdict.ENTAILED, Verdict.ENTAILED]
    for result in results:
        assert len(result.spans) == 1
        assert pack.resolves(result.spans[0])
        assert 0.0 <= result.score <= 1.0
    assert view.verify(claims[0], pack) == results[0]
    empty = view.verify(claims[0], EvidencePack())
    assert empty.verdict is Verdict.UNKNOWN


def test_view_settings_are_validated(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="entail_threshold"):
        CrossEncoderView("nli", None, entail_threshold=0.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="window_sizes"):
        CrossEncoderView("nli", None, window_sizes=(0,))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_windows"):
        CrossEncoderView("nli", None, max_windows=0)  # type: ignore[arg-type]


def _shipped_align(**settings: object) -> CrossEncoderView:
    return _shipped("align", **settings)


def _shipped_nli(**settings: object) -> CrossEncoderView:
    return _shipped("nli", **settings)


def _shipped(name: str, **settings: object) -> CrossEncoderView:
    from veritype.models.cross_encoder import model_directory

    return CrossEncoderView(name, CrossEncoder(model_directory(name)), **settings)  # type: ignore[arg-type]


def test_a_verbatim_claim_is_entailed_without_the_model() -> None:
    view = _shipped_align()
    pack = EvidencePack.from_texts([TEXT])
    result = view.verify(Claim("c1", "It was built of iron."), pack)
    assert result.verdict is Verdict.ENTAILED and result.score == 1.0
    assert result.detail == "the evidence states the claim verbatim"
    assert "It was built of iron." in pack.quote(result.spans[0])
    reworded = view.verify(Claim("c1", "It was made of steel."), pack)
    assert reworded.detail != "the evidence states the claim verbatim"


def test_only_the_windows_closest_to_the_claim_are_scored() -> None:
    filler = " ".join(f"Item {n} was stored in room {n}." for n in range(30))
    pack = EvidencePack.from_texts([filler + " The bridge opened to traffic in 1937."])
    narrow = _shipped_align(max_windows=2)
    claim = Claim("c1", "The bridge carried traffic from 1937.")
    windows = closest_windows(claim, evidence_windows(pack, (2,)), narrow.max_windows)
    assert len(windows) == 2
    assert windows[-1].text.endswith("The bridge opened to traffic in 1937.")
    assert "bridge" in pack.quote(narrow.verify(claim, pack).spans[0])


def test_a_contradiction_counts_only_from_the_windows_most_about_the_claim() -> None:
    # Every window but the last is about another fact of the same subject; an NLI model
    # reads such a window as contradicting a true claim.
    pack = EvidencePack.from_texts([
        "The Amazon is about 6,400 kilometres long. It carries more water than any other "
        "river. Its basin covers parts of nine countries. The river reaches the Atlantic "
        "Ocean on the northern coast of Brazil."])
    view = _shipped_nli(max_windows=None)
    claim = Claim("c1", "The Amazon flows into the Atlantic Ocean off northern Brazil.")
    windows = evidence_windows(pack, view.window_sizes)
    overlap = claim_overlap(claim, windows)
    closest = [w for w, o in zip(windows, overlap, strict=True) if o == max(overlap)]
    scores = view.encoder.predict([(w.text, claim.text) for w in windows])
    result = view.verify(claim, pack)
    assert result.contradiction == pytest.approx(max(
        float(s[2]) for w, s in zip(windows, scores, strict=True) if w in closest))
    assert result.contradiction < float(scores[:, 2].max())
    assert result.verdict is not Verdict.CONTRADICTED


def test_a_run_of_pronouns_reads_as_the_name_before_them() -> None:
    pack = EvidencePack.from_texts([
        "Rosalind Franklin was an English chemist. She was born in London. "
        "She worked at King's College London. She died in 1958 at the age of 37."
    ])
    last = evidence_windows(pack, (2,))[-1]
    # The window starts after the name; its pronouns still stand for it.
    assert last.written.startswith("She was born in London.")
    assert last.text == ("Rosalind Franklin was born in London. Rosalind Franklin worked at "
                         "King's College London. Rosalind Franklin died in 1958 at the age "
                         "of 37.")


def test_a_shortened_or_hedged_copy_is_stated_without_the_model() -> None:
    pack = EvidencePack.from_texts([
        "K2, the second-highest mountain on Earth, stands at 8,611 metres on the border "
        "between Pakistan and China. The Pixelon 8 Pro costs 799 euros and adds a camera."])
    view = _shipped_nli()
    shortened = view.verify(Claim("c1", "K2 stands at 8,611 metres on the border between "
                                        "Pakistan and China."), pack)
    assert shortened.verdict is Verdict.ENTAILED and shortened.score == 1.0
    assert shortened.detail == "the evidence states the claim with words left out"
    hedged = view.verify(Claim("c2", "The Pixelon 8 Pro reportedly costs 799 euros."), pack)
    assert hedged.detail == "the evidence states the claim verbatim without its hedge"
    changed = view.verify(Claim("c3", "K2 stands at 8,849 metres on the border between "
                                      "Pakistan and China."), pack)
    assert "left out" not in changed.detail


@pytest.mark.parametrize(("claim", "stated"), [
    ("Odile Marchetti wrote the novel Salt Between Us.", True),
    ("Peter Lyall made the English translation in 1995.", True),
    ("Greta Holm designed the cover.", True),
    # The right names in the wrong roles are no copy in either voice.
    ("Peter Lyall designed the cover.", False),
    ("Greta Holm wrote the novel Salt Between Us.", False),
])
def test_a_copy_in_the_other_voice_is_still_a_copy(claim: str, stated: bool) -> None:
    pack = EvidencePack.from_texts([
        "The novel Salt Between Us was written by Odile Marchetti and first published in 1988. "
        "The English translation was made by Peter Lyall in 1995. The cover, a drawing of a "
        "lighthouse, was designed by Greta Holm."])
    result = _shipped_nli().verify(Claim("c1", claim), pack)
    assert (result.detail == "the evidence states the claim verbatim in the other voice"
            or result.detail == "the evidence states the claim with words left out in the "
                                "other voice") is stated
    if stated:
        assert result.verdict is Verdict.ENTAILED and result.score == 1.0


@pytest.mark.parametrize(("evidence", "stated"), [
    ("The novel Salt Between Us was written by Odile Marchetti. The cover, a drawing of a "
     "lighthouse, was designed by Greta Holm.", True),
    ("The novel Salt Between Us was written by Odile Marchetti. Its English translation was "
     "made by Peter Lyall in 1995. The cover was designed by Greta Holm.", True),
    # The passage gives the cover to another book, or does not name the owner at all.
    ("Salt Between Us was written by Odile Marchetti. The cover of Iron Tide was designed by "
     "Greta Holm.", False),
    ("The novel was written by Odile Marchetti. The cover was designed by Greta Holm.", False),
])
def test_a_copy_naming_the_owner_its_passage_names_is_still_a_copy(evidence: str,
                                                                     stated: bool) -> None:
    claim = Claim("c1", "The cover of Salt Between Us was designed by Greta Holm.")
    result = _shipped_nli().verify(claim, EvidencePack.from_texts([evidence]))
    assert (result.detail.startswith("the evidence states the claim")) is stated


@pytest.mark.parametrize("restated", [
    "The Hoover Dam is on the Colorado River.",
    "Hoover Dam is on the Colorado River.",
    "hoover dam is on the Colorado River",
    "Hoover  Dam is on the  Colorado River.",
    "It was built with 6600000 tonnes of concrete.",
    "It was built with 6,600,000 tonnes of concrete",
    "Its crest is 379 meters long.",
])
def test_a_copy_restated_in_surface_form_alone_is_still_a_copy(restated: str) -> None:
    pack = EvidencePack.from_texts([
        "Hoover Dam is a concrete arch-gravity dam on the Colorado River, on the border "
        "between Nevada and Arizona. It was built with 6,600,000 tonnes of concrete. Its "
        "crest is 379 metres long."])
    result = _shipped_nli().verify(Claim("c1", restated), pack)
    assert result.verdict is Verdict.ENTAILED and result.score == 1.0
    assert result.detail.startswith("the evidence states the claim")


def test_a_cancelled_deadline_stops_the_windows_before_the_next_chunk() -> None:
    deadline = Deadline()
    deadline.cancel()
    with running_under(deadline), pytest.raises(DeadlineExceededError,
                                                match="before the next evidence chunk"):
        evidence_windows(EvidencePack.from_texts([TEXT]), (2,))


def test_a_cancel_stops_the_view_before_its_next_claim() -> None:
    # Every claim copies a sentence of the evidence, so the view reads them all without
    # the model: seconds spent looking for the window that states each one.
    sentences = [f"Item {n} was stored in room {n + 7} of the depot in {1800 + n}."
                 for n in range(60)]
    pack = EvidencePack.from_texts([" ".join(sentences)])
    claims = [Claim(f"c{n}", sentences[n % 60]) for n in range(5000)]
    view = _shipped_nli()
    errors, stopped_in = cancelled_while(
        lambda: view.verify_batch(claims, [pack] * len(claims)), after=0.2, wait=60)
    assert stopped_in < 0.5
    assert errors == ["cancelled before the next claim"]


@pytest.mark.parametrize(("evidence", "claim", "deciding"), [
    ("Lake Orsa is a glacial lake in the northern hills. It is 2,120 metres long and 640 "
     "metres wide, and it reaches a depth of 39 metres near its eastern shore.",
     "Lake Orsa is 45 metres deep.", "It is 2,120 metres long"),
    ("The Halden museum was founded in 1921 by the town council. Its first director was the "
     "painter Anna Lund, who ran it for thirty years. The museum moved to the old customs "
     "house in 1958.",
     "The first director of the Halden museum was the sculptor Erik Berg.",
     "Its first director was"),
])
def test_a_contradiction_cites_the_sentence_that_decided(evidence: str, claim: str,
                                                         deciding: str) -> None:
    pack = EvidencePack.from_texts([evidence])
    result = _shipped_nli(max_windows=None).verify(Claim("c1", claim), pack)
    assert result.verdict is Verdict.CONTRADICTED
    assert len(result.spans) == 1
    assert pack.quote(result.spans[0]).startswith(deciding)


def test_the_windows_closest_to_a_claim_do_not_depend_on_the_hash_seed() -> None:
    # Two windows that hold the same claim words tie exactly, whatever order a set of words
    # takes in a process: the order changes with the hash seed.
    import os
    import subprocess
    import sys

    contexts = [
        "Dunmore Rovers won the 2023 league title with 84 points, four ahead of Ashby Town. "
        "Their striker Kofi Mensah scored 27 goals, the most in the league.",
        "Ashby Town reached the cup final but lost 2-1 to Carlow United. Ashby's manager, Rob "
        "Halloran, left the club at the end of the season.",
        "Carlow United's goalkeeper Sam Okeke kept 19 clean sheets, a club record. He has "
        "played for Carlow since 2016.",
    ]
    claim = "Dunmore Rovers won the cup, beating Ashby Town 2-1 in the final."
    code = ("from veritype.claims import Claim\n"
            "from veritype.evidence import EvidencePack\n"
            "from veritype.models.encoder_views import claim_overlap, evidence_windows\n"
            f"pack = EvidencePack.from_texts({contexts!r})\n"
            f"overlap = claim_overlap(Claim('c1', {claim!r}), evidence_windows(pack, (1, 2, 3)))\n"
            "print([float(x).hex() for x in overlap])\n")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}
                              ).stdout for seed in range(8)}
    assert len(outputs) == 1


@pytest.mark.parametrize("claim", [
    "The Kestrel 3 has obstacle sensors.",
    "The Kestrel 3 can be folded.",
    "The Kestrel 3 comes with a charger.",
])
def test_a_claim_whose_denial_the_evidence_states_is_contradicted(claim: str) -> None:
    pack = EvidencePack.from_texts([
        "The Kestrel 3 has no obstacle sensors, but it weighs only 17.5 kg. It cannot be "
        "folded. The Kestrel 3 doesn't come with a charger."])
    result = _shipped_nli().verify(Claim("c1", claim), pack)
    assert result.verdict is Verdict.CONTRADICTED and result.contradiction == 1.0
    assert result.detail == "the evidence states the claim's denial"


def test_a_denial_is_cited_to_the_sentence_that_states_it() -> None:
    evidence = ("The Orne flows north through the valley and empties into the Channel. With a "
                "length of 170 kilometres, it is the longest river of the region.")
    pack = EvidencePack.from_texts([evidence])
    result = _shipped_nli().verify(Claim("c1", "The Orne does not empty into the Channel."),
                                   pack)
    assert result.detail == "the evidence states the claim's denial"
    assert pack.quote(result.spans[0]) == evidence.split(" With")[0]


def test_a_denial_inside_a_qualifier_contradicts_nothing() -> None:
    pack = EvidencePack.from_texts([
        "It is a myth that the Kestrel 3 has no obstacle sensors."])
    result = _shipped_nli().verify(Claim("c1", "The Kestrel 3 has obstacle sensors."), pack)
    assert result.detail != "the evidence states the claim's denial"


def test_a_table_row_quoted_with_its_header_is_a_copy_of_its_row() -> None:
    pack = EvidencePack.from_texts([
        "| Environment | Requests per minute | Burst |\n|---|---|---|\n"
        "| Production | 600 | 50 per second |\n| Sandbox | 60 | 5 per second |"])
    stated = _shipped_nli().verify(
        Claim("c1", "Environment: Sandbox; Requests per minute: 60; Burst: 5 per second."), pack)
    assert stated.verdict is Verdict.ENTAILED and stated.score == 1.0
    swapped = _shipped_nli().verify(
        Claim("c2", "Environment: Sandbox; Requests per minute: 600; Burst: 5 per second."), pack)
    assert swapped.score < 1.0
