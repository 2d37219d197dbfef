
import pytest
from deadline_support import cancelled_while

from veritype.claims import Claim
from veritype.evidence import EvidencePack, Span
from veritype.verdicts import ViewResult
from veritype.views import NumericConsistencyView, Verdict, VerificationView, create_view

EIFFEL = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. "
    "It is named after the engineer Gustave Eiffel, whose company designed and built the "
    "tower from 1887 to 1889. The Eiffel Tower in Paris was opened on 31 March 1889 as the "
    "centrepiece of the 1889 World's Fair. The tower is 330 metres tall, about the same "
    "height as an 81-storey building."
)


@pytest.fixture
def pack() -> EvidencePack:
    return EvidencePack.from_texts([EIFFEL])


@pytest.fixture
def view() -> NumericConsistencyView:
    return NumericConsistencyView()


def check(view: NumericConsistencyView, text: str, evidence: EvidencePack) -> ViewResult:
    result = view.verify(Claim("c1", text), evidence)
    assert result.view == "numeric"
    assert 0.0 <= result.score <= 1.0
    assert 0.0 <= result.contradiction <= 1.0
    for span in result.spans:
        assert evidence.resolves(span)
    return result


def test_protocol_and_registry() -> None:
    view = NumericConsistencyView()
    assert isinstance(view, VerificationView)
    assert (view.name, view.cost, view.strong) == ("numeric", 0.5, True)
    built = create_view("numeric", cost=2.0, strong=False)
    assert isinstance(built, NumericConsistencyView)
    assert (built.cost, built.strong) == (2.0, False)


def test_negative_cost_is_rejected() -> None:
    with pytest.raises(ValueError, match="cost"):
        NumericConsistencyView(cost=-1.0)


def test_example_opened_is_entailed(view: NumericConsistencyView, pack: EvidencePack) -> None:
    result = check(view, "The Eiffel Tower opened on March 31, 1889, in Paris.", pack)
    assert result.verdict is Verdict.ENTAILED
    assert result.score == 1.0
    assert result.contradiction == 0.0
    # One sentence holds the date, the tower and the city.
    assert [pack.quote(span) for span in result.spans] == [
        "The Eiffel Tower in Paris was opened on 31 March 1889 as the centrepiece of the "
        "1889 World's Fair."
    ]
    assert "1889-03-31" in result.detail
    assert "Paris" in result.detail


def test_example_height_is_contradicted(
    view: NumericConsistencyView, pack: EvidencePack
) -> None:
    result = check(view, "The tower is 300 metres tall.", pack)
    assert result.verdict is Verdict.CONTRADICTED
    assert result.score == 0.0
    assert result.contradiction == 1.0
    assert [pack.quote(span) for span in result.spans] == [
        "The tower is 330 metres tall, about the same height as an 81-storey building."
    ]
    assert result.detail == "claim says 300 metres, evidence says 330 metres"


def test_example_unsupported_claim_is_unknown(
    view: NumericConsistencyView, pack: EvidencePack
) -> None:
    result = check(view, "It was painted gold for the 1900 Olympic Games.", pack)
    assert result.verdict is Verdict.UNKNOWN
    assert result.score == 0.0
    assert result.contradiction == 0.0
    assert result.spans == ()
    assert "1900" in result.detail
    assert "Olympic Games" in result.detail


def test_no_values_abstains(view: NumericConsistencyView, pack: EvidencePack) -> None:
    result = check(view, "the tower is tall and made of iron.", pack)
    assert result.verdict is Verdict.ABSTAINED
    assert result.score == 0.0
    assert result.spans == ()


def test_wrong_year_in_an_aligned_sentence_is_contradicted(
    view: NumericConsistencyView, pack: EvidencePack
) -> None:
    result = check(view, "The Eiffel Tower opened in 1890.", pack)
    assert result.verdict is Verdict.CONTRADICTED
    # The tower's name is found, the year is not.
    assert result.score == 0.5
    assert "claim says 1890" in result.detail
    assert all("opened" in pack.quote(span) for span in result.spans)


def test_an_evidence_value_the_claim_also_states_is_no_rival(
    view: NumericConsistencyView
) -> None:
    # The question's year is not the answer's: 1928 is the claim's own value, not 1978's.
    pack = EvidencePack.from_texts(["Jim Lampley was born on October 18, 1928 in Boston."])
    claim = "When was the sportscaster who did play by play in 1978 born? October 18, 1928"
    assert check(view, claim, pack).verdict is not Verdict.CONTRADICTED
    assert check(view, "Jim Lampley was born in 1978.", pack).verdict is Verdict.CONTRADICTED


def test_coarser_claim_date_is_entailed(
    view: NumericConsistencyView, pack: EvidencePack
) -> None:
    result = check(view, "The tower opened in March 1889.", pack)
    assert result.verdict is Verdict.ENTAILED


def test_finer_claim_date_is_not_contradicted_by_a_year() -> None:
    evidence = EvidencePack.from_texts(["The bridge opened in 1932."])
    result = check(NumericConsistencyView(), "The bridge opened on 19 March 1932.", evidence)
    assert result.verdict is Verdict.UNKNOWN
    assert result.contradiction == 0.0


def test_hedged_claim_tolerates_one_percent(
    view: NumericConsistencyView, pack: EvidencePack
) -> None:
    assert check(view, "The tower is about 332 metres tall.", pack).verdict is Verdict.ENTAILED
    assert check(view, "The tower is 332 metres tall.", pack).verdict is Verdict.CONTRADICTED
    # 1% of 330 is 3.3: 334 is still too far even when hedged.
    assert (
        check(view, "The tower is about 334 metres tall.", pack).verdict
        is Verdict.CONTRADICTED
    )


def test_unit_alias_in_claim_is_entailed(
    view: NumericConsistencyView, pack: EvidencePack
) -> None:
    result = check(view, "The tower is 330 m tall.", pack)
    assert result.verdict is Verdict.ENTAILED
    assert result.score == 1.0


def test_other_unit_does_not_contradict(view: NumericConsistencyView, pack: EvidencePack) -> None:
    result = check(view, "The tower is 1,083 feet tall.", pack)
    assert result.verdict is Verdict.UNKNOWN
    assert result.contradiction == 0.0


def test_unaligned_sentence_does_not_contradict(view: NumericConsistencyView) -> None:
    evidence = EvidencePack.from_texts(["The museum received 300 visitors on Monday."])
    result = check(view, "The tower is 330 metres tall.", evidence)
    assert result.verdict is Verdict.UNKNOWN
    result = check(view, "The bridge has 42 lamps.", evidence)
    assert result.verdict is Verdict.UNKNOWN


def test_half_alignment_is_enough_to_contradict(view: NumericConsistencyView) -> None:
    evidence = EvidencePack.from_texts(["The bridge has 40 lamps."])
    result = check(view, "The bridge has 42 red lamps.", evidence)
    # Claim words bridge, red, lamp: two of three are in the sentence.
    assert result.verdict is Verdict.CONTRADICTED
    assert result.contradiction == pytest.approx(2 / 3)
    assert result.detail == "claim says 42, evidence says 40"


def test_sentence_holding_the_claimed_value_is_no_contradiction(
    view: NumericConsistencyView,
) -> None:
    evidence = EvidencePack.from_texts(["The bridge has 40 lamps, not 42 lamps."])
    result = check(view, "The bridge has 42 lamps.", evidence)
    assert result.verdict is Verdict.ENTAILED


def test_percent_money_and_scale_words(view: NumericConsistencyView) -> None:
    evidence = EvidencePack.from_texts(
        ["Revenue rose 5 per cent to $2.3 billion in 2023. The firm employs 5,000 people."]
    )
    claim = "Revenue rose 5% to 2.3 billion dollars in 2023 and it employs 5000 people."
    result = check(view, claim, evidence)
    assert result.verdict is Verdict.ENTAILED
    assert len(result.spans) == 2
    wrong = check(view, "Revenue rose 6% in 2023.", evidence)
    assert wrong.verdict is Verdict.CONTRADICTED
    assert wrong.detail == "claim says 6%, evidence says 5 per cent"


def test_partial_support_is_unknown_with_found_spans(
    view: NumericConsistencyView, pack: EvidencePack
) -> None:
    result = check(view, "Gustave Eiffel visited Berlin.", pack)
    assert result.verdict is Verdict.UNKNOWN
    assert result.score == 0.5
    assert [pack.quote(span).startswith("It is named after") for span in result.spans] == [True]
    assert "not found Berlin" in result.detail


def test_a_missing_name_contradicts_only_in_the_place_of_another(
    view: NumericConsistencyView
) -> None:
    evidence = EvidencePack.from_texts(["The tower was designed by Maurice Koechlin."])
    # Where the evidence gives the subject another name, the claim's is not its.
    result = check(view, "The tower was designed by Gustave Eiffel.", evidence)
    assert result.verdict is Verdict.CONTRADICTED
    assert result.detail == "claim says Gustave Eiffel, evidence says Maurice Koechlin"
    # Anywhere else a name the evidence never gives is only not found.
    result = check(view, "The tower was visited by Gustave Eiffel.", evidence)
    assert result.verdict is Verdict.UNKNOWN
    assert result.contradiction == 0.0


def test_spans_resolve_across_chunks_and_documents(view: NumericConsistencyView) -> None:
    evidence = EvidencePack.from_texts(
        ["Filler sentence one. The bridge opened in 1932.", "The bridge is 1,149 metres long."],
        max_chars=32,
    )
    assert len(evidence) > 2
    result = check(view, "The bridge opened in 1932 and is 1149 metres long.", evidence)
    assert result.verdict is Verdict.ENTAILED
    assert sorted(evidence.quote(span) for span in result.spans) == [
        "The bridge is 1,149 metres long.",
        "The bridge opened in 1932.",
    ]


def test_empty_pack(view: NumericConsistencyView) -> None:
    result = check(view, "The tower is 330 metres tall.", EvidencePack())
    assert result.verdict is Verdict.UNKNOWN
    assert result.spans == ()


def test_verify_batch_matches_verify(view: NumericConsistencyView, pack: EvidencePack) -> None:
    other = EvidencePack.from_texts(["The tower is 300 metres tall."])
    claims = [
        Claim("c1", "The Eiffel Tower opened on March 31, 1889, in Paris."),
        Claim("c2", "The tower is 300 metres tall."),
        Claim("c3", "The tower is 300 metres tall."),
    ]
    packs = [pack, pack, other]
    results = view.verify_batch(claims, packs)
    assert results == [view.verify(c, p) for c, p in zip(claims, packs, strict=True)]
    assert [r.verdict for r in results] == [
        Verdict.ENTAILED, Verdict.CONTRADICTED, Verdict.ENTAILED
    ]


def test_verify_batch_analyses_a_shared_pack_once(
    view: NumericConsistencyView, pack: EvidencePack, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    original = EvidencePack.sentences

    def counting(self: EvidencePack) -> list[Span]:
        calls.append(id(self))
        return original(self)

    monkeypatch.setattr(EvidencePack, "sentences", counting)
    claims = [Claim(f"c{i}", "The tower is 330 metres tall.") for i in range(5)]
    view.verify_batch(claims, [pack] * 5)
    assert calls == [id(pack)]


def test_verify_batch_length_mismatch(view: NumericConsistencyView, pack: EvidencePack) -> None:
    with pytest.raises(ValueError, match="one evidence pack per claim"):
        view.verify_batch([Claim("c1", "The tower is 330 metres tall.")], [pack, pack])
    assert view.verify_batch([], []) == []


def test_a_value_stated_for_another_subject_is_contradicted(
    view: NumericConsistencyView,
) -> None:
    evidence = EvidencePack.from_texts([
        "Marrowick has a population of 18,500, while its neighbour Caldry is home to 7,200 "
        "people. The Nile is about 6,650 kilometres long. The Amazon is about 6,400 "
        "kilometres long."])
    result = check(view, "Caldry has a population of 18,500.", evidence)
    assert result.verdict is Verdict.CONTRADICTED
    assert result.detail.startswith("claim says 18,500, evidence says 7,200 of Caldry")
    assert check(view, "The Nile is about 6,400 kilometres long.",
                 evidence).verdict is Verdict.CONTRADICTED
    assert check(view, "The Amazon is about 6,400 kilometres long.",
                 evidence).verdict is Verdict.ENTAILED
    assert check(view, "Marrowick has a population of 18,500.",
                 evidence).verdict is Verdict.ENTAILED


def test_a_value_after_a_pronoun_belongs_to_the_name_before(
    view: NumericConsistencyView,
) -> None:
    evidence = EvidencePack.from_texts([
        "Halden Foods was founded in 1990. In 2001, it moved to Bristol. Crestwell Snacks "
        "was founded in 1985."])
    assert check(view, "In 2001, Halden Foods moved to Bristol.",
                 evidence).verdict is Verdict.ENTAILED
    # A shorter form of the name ("Halden") names the same subject.
    assert check(view, "Halden moved to Bristol in 2001.", evidence).verdict is Verdict.ENTAILED


PRINTING = ("Johannes Gutenberg developed a printing press with movable metal type in Mainz "
            "around 1450. William Caxton set up the first printing press in England at "
            "Westminster in 1476. Caxton's early books included The Canterbury Tales.")


def test_a_claim_the_evidence_states_of_another_subject_is_contradicted(
    view: NumericConsistencyView
) -> None:
    pack = EvidencePack.from_texts([PRINTING])
    result = check(view, "Johannes Gutenberg set up the first printing press in England at "
                         "Westminster.", pack)
    assert result.verdict is Verdict.CONTRADICTED
    assert "William Caxton, not of Johannes Gutenberg" in result.detail
    assert "William Caxton set up" in pack.quote(result.spans[0])
    # Said of its own subject, the same claim stands.
    assert check(view, "William Caxton set up the first printing press in England at "
                       "Westminster.", pack).verdict is Verdict.ENTAILED


LAKES = ("Lake Arden is 9 km long, and its outflow is the River Colm. Lake Byre is smaller, "
         "4 km long, and drains into the River Tay.")
FAULTS = ("Model A sold 400 units; its most common fault was a loose hinge. Model B sold 250 "
          "units; its most common fault was a cracked screen.")


@pytest.mark.parametrize(("evidence", "claim", "other"), [
    # A clause cut from its sentence goes on with the subject before it.
    (LAKES, "Lake Arden drains into the River Tay.", "Lake Byre"),
    # An attribute of a name speaks of that name; a clause of another subject that says all
    # of the claim outweighs the subject's own that says most of it.
    (FAULTS, "The most common fault of Model A was a cracked screen.", "Model B"),
])
def test_what_a_clause_says_of_another_subject_is_not_said_of_the_claims(
    view: NumericConsistencyView, evidence: str, claim: str, other: str
) -> None:
    pack = EvidencePack.from_texts([evidence])
    result = check(view, claim, pack)
    assert result.verdict is Verdict.CONTRADICTED
    assert f"the evidence says this of {other}" in result.detail


@pytest.mark.parametrize(("evidence", "claim"), [
    (LAKES, "Lake Byre drains into the River Tay."),
    (FAULTS, "The most common fault of Model B was a cracked screen."),
    (FAULTS, "Model A sold 400 units."),
])
def test_what_a_clause_says_of_its_own_subject_stands(
    view: NumericConsistencyView, evidence: str, claim: str
) -> None:
    assert check(view, claim, EvidencePack.from_texts([evidence])).verdict is Verdict.ENTAILED


@pytest.mark.parametrize("claim", [
    # A negation is the model's to read.
    "Johannes Gutenberg did not set up the first printing press in England at Westminster.",
    # A subject that reports may report what another did.
    "Johannes Gutenberg said the first printing press in England was set up at Westminster.",
])
def test_negated_and_reported_claims_are_not_read_as_said_of_another(
    view: NumericConsistencyView, claim: str
) -> None:
    result = check(view, claim, EvidencePack.from_texts([PRINTING]))
    assert "says this of" not in result.detail


def test_a_name_inside_the_clause_is_no_other_subject(view: NumericConsistencyView) -> None:
    # George Clooney is the film's star, not the subject of "starring ...".
    pack = EvidencePack.from_texts([
        "The Good German is a 2006 drama film. The cast was led by George Clooney, "
        "starring Cate Blanchett and Tobey Maguire in Berlin."])
    result = check(view, "The Good German starred Cate Blanchett in Berlin.", pack)
    assert result.verdict is not Verdict.CONTRADICTED


def test_a_run_of_pronouns_belongs_to_the_name_before_them(view: NumericConsistencyView) -> None:
    evidence = EvidencePack.from_texts([
        "Rosalind Franklin was an English chemist. She was born on 25 July 1920 in London. "
        "Her X-ray photograph known as Photo 51 was key to finding the structure of DNA. "
        "She worked at King's College London from 1951 to 1953. "
        "She died in 1958 at the age of 37."
    ])
    for text in ("Rosalind Franklin died in 1958 at the age of 37.",
                 "Rosalind Franklin worked at King's College London from 1951 to 1953."):
        assert view.verify(Claim("c", text), evidence).verdict is Verdict.ENTAILED
    wrong = view.verify(Claim("c", "Rosalind Franklin died in 1962."), evidence)
    assert wrong.verdict is Verdict.CONTRADICTED


def test_a_clause_break_inside_brackets_splits_nothing(view: NumericConsistencyView) -> None:
    evidence = EvidencePack.from_texts([
        "Paolo Rodolfi (born 23 June 1959) is an Italian football manager who works under "
        "head coach Christian Panucci. Christian Panucci (] ; born 12 April 1973) is an "
        "Italian former player."
    ])
    claim = Claim("c", "Christian Panucci (] ; born 12 April 1973) is an Italian former player.")
    assert view.verify(claim, evidence).verdict is not Verdict.CONTRADICTED


COMPOSERS = ("Wolfgang Amadeus Mozart was born in Salzburg in 1756 and died in Vienna in 1791. "
             "Ludwig van Beethoven was born in Bonn in 1770 and moved to Vienna in 1792.")


def test_a_name_the_evidence_gives_only_another_subject_is_contradicted(
    view: NumericConsistencyView,
) -> None:
    evidence = EvidencePack.from_texts([COMPOSERS])
    swapped = view.verify(Claim("c", "Ludwig van Beethoven was born in Salzburg."), evidence)
    assert swapped.verdict is Verdict.CONTRADICTED
    assert "evidence says Bonn" in swapped.detail
    for text in ("Ludwig van Beethoven was born in Bonn.",
                 "Ludwig van Beethoven moved to Vienna."):
        assert view.verify(Claim("c", text), evidence).verdict is Verdict.ENTAILED
    runners = EvidencePack.from_texts([
        "The men's record was set by the Kenyan runner Daniel Kiptoo in 2019. The women's "
        "record belongs to the Ethiopian runner Hana Bekele."])
    assert view.verify(Claim("c", "Daniel Kiptoo is an Ethiopian runner."),
                       runners).verdict is Verdict.CONTRADICTED


def test_another_name_in_another_slot_is_no_swap(view: NumericConsistencyView) -> None:
    # "by Otto I" and "of Western Europe" fill different slots; "Otto" names Otto I.
    evidence = EvidencePack.from_texts([
        "Otto I, Holy Roman Emperor. After a civil war, Otto defeated the Magyars at the "
        "Battle of Lechfeld in 955, thus ending the Hungarian invasions of Western Europe."])
    claim = Claim("c", "The Magyars were defeated by Otto I, Holy Roman Emperor.")
    assert view.verify(claim, evidence).verdict is not Verdict.CONTRADICTED


PHONES = ("The Pixelon 8 smartphone went on sale in March 2024 at a price of 499 euros. The "
          "Pixelon 8 has a 6.1-inch screen and 8 GB of RAM, while the larger Pixelon 8 Pro has "
          "a 6.7-inch screen and 12 GB of RAM. The Pixelon 8 Pro costs 799 euros.")


@pytest.mark.parametrize(("claim", "verdict"), [
    ("The Pixelon 8 has 12 GB of RAM.", Verdict.CONTRADICTED),
    ("The Pixelon 8 costs 799 euros.", Verdict.CONTRADICTED),
    ("The Pixelon 8 Pro has 8 GB of RAM.", Verdict.CONTRADICTED),
    ("The Pixelon 8 has 8 GB of RAM.", Verdict.ENTAILED),
    ("The Pixelon 8 Pro has 12 GB of RAM.", Verdict.ENTAILED),
    ("The Pixelon 8 Pro costs 799 euros.", Verdict.ENTAILED),
])
def test_a_model_and_its_variant_are_told_apart(view: NumericConsistencyView, claim: str,
                                                verdict: Verdict) -> None:
    assert view.verify(Claim("c", claim), EvidencePack.from_texts([PHONES])).verdict is verdict


def test_a_hedge_does_not_loosen_a_contradiction(view: NumericConsistencyView) -> None:
    evidence = EvidencePack.from_texts([
        "The smaller St Aldith's Hospital, opened in 1931, has 240 beds."])
    for text in ("St Aldith's Hospital probably has around 500 beds.",
                 "St Aldith's Hospital reportedly has 500 beds."):
        result = view.verify(Claim("c", text), evidence)
        assert result.verdict is Verdict.CONTRADICTED and result.contradiction == 1.0


def test_a_cancel_stops_the_reading_of_a_long_pack_between_sentences() -> None:
    # Three thousand sentences of values: seconds of reading before any claim is checked.
    pack = EvidencePack.from_texts([" ".join(
        f"The hall of building {n} in Lyon was restored in {1800 + n % 200} by {n} workers."
        for n in range(3000))])
    errors, stopped_in = cancelled_while(
        lambda: NumericConsistencyView().verify(Claim("c1", "The hall was built in 1850."), pack),
        after=0.1, wait=60)
    assert stopped_in < 0.5
    assert errors == ["cancelled before the next evidence sentence"]


def test_a_claim_in_lower_case_is_read_as_the_sentence_it_would_open(
        view: NumericConsistencyView) -> None:
    metals = EvidencePack.from_texts([
        "Aluminium is the most common metal in the Earth's crust. It melts at 660 degrees "
        "Celsius, far below iron, which melts at 1,538 degrees."])
    written = check(view, "Aluminium melts at 1,538 degrees Celsius.", metals)
    lowered = check(view, "aluminium melts at 1,538 degrees Celsius.", metals)
    assert written.verdict is Verdict.CONTRADICTED
    assert (lowered.verdict, lowered.detail) == (written.verdict, written.detail)


def test_a_name_in_other_capitals_is_the_evidences_name(view: NumericConsistencyView) -> None:
    festival = EvidencePack.from_texts([
        "The Harlow Summer Festival drew 14,500 visitors this year. Organisers say the event "
        "raised 62,000 pounds for local charities."])
    written = check(view, "The Harlow Summer Festival raised 26,000 pounds for local charities.",
                    festival)
    lowered = check(view, "the harlow summer festival raised 26,000 pounds for local charities.",
                    festival)
    assert written.verdict is Verdict.CONTRADICTED and written.contradiction >= 0.7
    assert (lowered.verdict, lowered.contradiction, lowered.detail) == (
        written.verdict, written.contradiction, written.detail)


def test_a_name_given_another_role_contradicts(view: NumericConsistencyView) -> None:
    museum = EvidencePack.from_texts([
        "Its collection of maps was donated by the shipping family Verhoeven in 1962, and the "
        "building itself was designed by the architect Ida Kraal."])
    swapped = check(view, "The museum building was designed by the Verhoeven family.", museum)
    assert swapped.verdict is Verdict.CONTRADICTED
    assert swapped.detail == ("claim says designed by the Verhoeven family, evidence says "
                              "designed by the architect Ida Kraal")
    kept = check(view, "The maps were donated by the shipping family Verhoeven.", museum)
    assert kept.verdict is Verdict.ENTAILED


LAKE = (
    "Lake Orsa is a glacial lake in the northern hills. It is 2,120 metres long and 640 metres "
    "wide, and it reaches a depth of 39 metres near its eastern shore."
)


@pytest.mark.parametrize(("claim", "said"), [
    ("Lake Orsa reaches a depth of 45 metres.", "evidence says 39 metres"),
    ("Lake Orsa is 800 metres wide.", "evidence says 640 metres"),
    # "deep" aligns with "a depth of", and "It" with the lake the sentence before names.
    ("Lake Orsa is 45 m deep.", "evidence says 39 metres"),
    ("Lake Orsa is 3 km long.", ""),  # another unit: not compared
])
def test_a_value_is_compared_with_the_same_quantity(view: NumericConsistencyView, claim: str,
                                                    said: str) -> None:
    result = check(view, claim, EvidencePack.from_texts([LAKE]))
    if said:
        assert result.verdict is Verdict.CONTRADICTED
        assert said in result.detail
    else:
        assert result.verdict is Verdict.UNKNOWN


def test_a_dimension_named_after_the_quantity(view: NumericConsistencyView) -> None:
    pack = EvidencePack.from_texts(["The Orsa canal is 12 metres wide and 2,120 metres long."])
    result = check(view, "The Orsa canal is 2,500 metres in length.", pack)
    assert result.verdict is Verdict.CONTRADICTED
    assert "evidence says 2,120 metres" in result.detail


@pytest.mark.parametrize("claim", [
    "Lake Orsa is 640 metres deep.",  # the width, said to be its depth
    "Lake Orsa is 39 metres long.",  # the depth, said to be its length
])
def test_a_value_of_another_quantity_is_not_stated(view: NumericConsistencyView,
                                                   claim: str) -> None:
    result = check(view, claim, EvidencePack.from_texts([LAKE]))
    assert result.verdict is not Verdict.ENTAILED


@pytest.mark.parametrize("claim", [
    "Lake Orsa has a length of 2,120 metres.",
    "Lake Orsa is 39 metres deep.",
    "The width of Lake Orsa is 640 metres.",
    "Lake Orsa is 2,120 metres in length.",
])
def test_the_same_quantity_said_another_way_is_stated(view: NumericConsistencyView,
                                                      claim: str) -> None:
    assert check(view, claim, EvidencePack.from_texts([LAKE])).verdict is Verdict.ENTAILED


def test_a_quantity_without_a_dimension_word_matches_as_before(
        view: NumericConsistencyView) -> None:
    pack = EvidencePack.from_texts(["The Orsa bridge is 1,280 metres long."])
    assert check(view, "The Orsa bridge measures 1,280 metres.", pack).verdict is Verdict.ENTAILED


MARLOW = ("The Marlow Bridge crosses the River Tay at Dunmore. It was designed by the engineer "
          "Agnes Byrne and opened to traffic in 1932. In 1998 the bridge was closed for eight "
          "months while its steel deck was replaced.")


@pytest.mark.parametrize(("claim", "verdict"), [
    # "In 1998 the bridge ..." speaks of the Marlow Bridge: 1998 is not another's date.
    ("The Marlow Bridge was closed for eight months in 1998.", Verdict.ENTAILED),
    # 1998 is the closure's date, and the sentence that says it opened gives 1932.
    ("The Marlow Bridge opened in 1998.", Verdict.CONTRADICTED),
    ("The steel deck was replaced in 1932.", Verdict.CONTRADICTED),
    # Lengths of time in other units: eight months are two thirds of a year, not two years,
    # and about 35 weeks, which neither states nor contradicts them.
    ("The Marlow Bridge was closed for two years in 1998.", Verdict.CONTRADICTED),
    ("The bridge was closed for two thirds of a year in 1998.", Verdict.UNKNOWN),
    ("The bridge was closed for 35 weeks in 1998.", Verdict.UNKNOWN),
])
def test_a_date_or_length_of_time_is_read_with_its_event(claim: str, verdict: Verdict) -> None:
    result = NumericConsistencyView().verify(Claim("c1", claim), EvidencePack.from_texts([MARLOW]))
    assert result.verdict is verdict, result.detail


@pytest.mark.parametrize(("claim", "verdict"), [
    ("The warranty lasts two years.", Verdict.ENTAILED),
    ("The return window is two weeks.", Verdict.ENTAILED),
    # A month is no whole number of weeks: close is not stated.
    ("The warranty lasts 104 weeks.", Verdict.UNKNOWN),
    ("The warranty lasts six months.", Verdict.CONTRADICTED),
])
def test_lengths_of_time_in_units_of_fixed_ratio_state_each_other(claim: str,
                                                                  verdict: Verdict) -> None:
    pack = EvidencePack.from_texts(["The warranty lasts 24 months. The return window is 14 days."])
    result = NumericConsistencyView().verify(Claim("c1", claim), pack)
    assert result.verdict is verdict, result.detail


VOSS = ("Helena Voss is a Dutch chemist who won the Keller Prize in 2019 for her work on "
        "battery electrolytes. She was born in Utrecht in 1971 and studied at Leiden "
        "University. Before that, she worked for eight years at Shell in Amsterdam.")


@pytest.mark.parametrize(("claim", "verdict"), [
    # "Leiden" of "Leiden University" is not where she was born.
    ("Helena Voss was born in Leiden.", Verdict.CONTRADICTED),
    # A name the evidence never gives, in the place of the one it gives her.
    ("Helena Voss studied at Utrecht University.", Verdict.CONTRADICTED),
    ("Helena Voss studied at Leiden University.", Verdict.ENTAILED),
    # A first sentence that names its subject is not read as leaning on "her" further on,
    # so the later "she" sentences speak of Helena Voss.
    ("Helena Voss worked at Shell in Amsterdam.", Verdict.ENTAILED),
])
def test_a_name_in_the_place_of_the_one_the_evidence_gives_the_subject(
        claim: str, verdict: Verdict) -> None:
    result = NumericConsistencyView().verify(Claim("c1", claim), EvidencePack.from_texts([VOSS]))
    assert result.verdict is verdict, result.detail


BULKY = ("Bulky items such as sofas and fridges can be collected for a fee of 30 pounds for up "
         "to three items. Bookings must be made at least five working days in advance.")


@pytest.mark.parametrize(("claim", "verdict"), [
    # "five" counts items; the evidence's five counts days and its items are three.
    ("Bulky items are collected for 30 pounds for up to five items.", Verdict.CONTRADICTED),
    ("Bulky items are collected for 30 pounds for up to three items.", Verdict.ENTAILED),
    ("Bookings must be made at least five working days ahead.", Verdict.ENTAILED),
    # Counts of things are compared whatever their nouns: a synonym states the count.
    ("Up to three pieces of furniture are collected for 30 pounds.", Verdict.ENTAILED),
])
def test_a_count_is_compared_with_a_count_of_the_same_thing(claim: str,
                                                            verdict: Verdict) -> None:
    result = NumericConsistencyView().verify(Claim("c1", claim), EvidencePack.from_texts([BULKY]))
    assert result.verdict is verdict, result.detail


def test_a_count_without_a_plural_noun_after_it_counts_anything() -> None:
    # "four ahead of" names no counted thing, so "four points ahead" is stated.
    pack = EvidencePack.from_texts(["Dunmore Rovers won the title with 84 points, four ahead "
                                    "of Ashby Town."])
    result = check(NumericConsistencyView(), "Dunmore Rovers finished four points ahead.", pack)
    assert result.verdict is Verdict.ENTAILED, result.detail


RESTAURANTS = ("The Old Mill restaurant and the Harbour Grill are both run by the Ashdown "
               "family. The Old Mill seats 60 diners and is known for its lamb. The Harbour "
               "Grill seats 45 diners and is known for its crab.")


@pytest.mark.parametrize(("claim", "verdict"), [
    # "The Old Mill ... its lamb" names its own subject: the 60 diners are the Old Mill's,
    # not the Harbour Grill's, which the sentence before named.
    ("The Harbour Grill seats 60 diners.", Verdict.CONTRADICTED),
    ("The Old Mill seats 60 diners.", Verdict.ENTAILED),
])
def test_a_clause_opening_with_the_and_a_name_speaks_of_that_name(claim: str,
                                                                  verdict: Verdict) -> None:
    pack = EvidencePack.from_texts([RESTAURANTS])
    result = NumericConsistencyView().verify(Claim("c1", claim), pack)
    assert result.verdict is verdict, result.detail


FORTS = ("The forts of Carrow and Dunlish guarded the estuary. Carrow Fort was built in 1742 by "
         "the engineer William Tate. Carrow was abandoned in 1870, Dunlish in 1902. The X5 costs "
         "999 euros and the X7 1,449 euros.")


@pytest.mark.parametrize(("claim", "verdict", "rival"), [
    # A clause whose verb is left out gives its value to its own name.
    ("Carrow was abandoned in 1902.", Verdict.CONTRADICTED, "1870"),
    ("Dunlish was abandoned in 1902.", Verdict.ENTAILED, ""),
    ("The X5 costs 1,449 euros.", Verdict.CONTRADICTED, "999 euros"),
    ("The X7 costs 1,449 euros.", Verdict.ENTAILED, ""),
])
def test_a_gapped_clause_gives_its_value_to_its_own_name(claim: str, verdict: Verdict,
                                                         rival: str) -> None:
    result = NumericConsistencyView().verify(Claim("c1", claim), EvidencePack.from_texts([FORTS]))
    assert result.verdict is verdict, result.detail
    assert f"evidence says {rival} " in result.detail if rival else True


def test_a_place_after_a_comma_is_no_gapped_clause() -> None:
    # Nothing before "Germany in 1770" is a date: "Bonn, Germany" is one place.
    pack = EvidencePack.from_texts(["Beethoven was born in Bonn, Germany in 1770."])
    result = NumericConsistencyView().verify(Claim("c1", "Beethoven was born in 1770."), pack)
    assert result.verdict is Verdict.ENTAILED, result.detail


def test_a_name_of_two_words_opening_a_sentence_is_written_as_a_name() -> None:
    # "Norvik" opens every sentence it is in, but "Norvik Foods" is a name of two words.
    pack = EvidencePack.from_texts(["Norvik Foods and Tallis Bakeries supply supermarkets. "
                                    "Norvik was founded in 1974; Tallis is older, founded in "
                                    "1931."])
    result = NumericConsistencyView().verify(Claim("c1", "Norvik was founded in 1931."), pack)
    assert result.verdict is Verdict.CONTRADICTED, result.detail


def test_a_clause_that_names_nothing_goes_on_with_the_subject_before_it() -> None:
    # "the next 23 weeks at statutory pay" names no one: they are Quillfield's too, not
    # another subject's beside the "twelve weeks" Quillfield gives elsewhere.
    pack = EvidencePack.from_texts([
        "Quillfield pays the first 16 weeks at full pay, and the next 23 weeks at statutory "
        "pay.",
        "The notice Quillfield gives you is one week for each year of service, up to twelve "
        "weeks."])
    claim = "Quillfield pays the next 23 weeks at statutory pay."
    result = NumericConsistencyView().verify(Claim("c1", claim), pack)
    assert result.verdict is Verdict.ENTAILED, result.detail


PIXELON = ["The Pixelon 8 has a 6.1-inch screen and a 4,000 mAh battery.",
           "The Pixelon 8 Pro has a 6.7-inch screen, a 5,000 mAh battery and a telephoto camera "
           "with 5x zoom."]


@pytest.mark.parametrize(("claim", "verdict"), [
    # The evidence writes both names: what the Pro has is not said of the Pixelon 8.
    ("The Pixelon 8 has a telephoto camera with 5x zoom.", Verdict.CONTRADICTED),
    ("The Pixelon 8 Pro has a telephoto camera with 5x zoom.", Verdict.ENTAILED),
])
def test_what_a_variant_of_the_name_has_is_said_of_another(claim: str,
                                                            verdict: Verdict) -> None:
    result = NumericConsistencyView().verify(Claim("c1", claim), EvidencePack.from_texts(PIXELON))
    assert result.verdict is verdict, result.detail


@pytest.mark.parametrize(("claim", "rival"), [
    # The qualifier as a prepositional phrase in the sentence that gives the other value.
    ("Light moves through glass at about 300,000 kilometres per second.", "200,000"),
    # As the subject of that sentence.
    ("Table salt melts at 1,085 degrees Celsius.", "801"),
])
def test_a_number_stated_of_another_qualifier_is_contradicted(
    view: NumericConsistencyView, claim: str, rival: str
) -> None:
    evidence = EvidencePack.from_texts([
        "Light moves through a vacuum at about 300,000 kilometres per second. In glass, light "
        "moves at about 200,000 kilometres per second. Copper melts at 1,085 degrees Celsius. "
        "Table salt, by contrast, melts at 801 degrees Celsius."])
    result = check(view, claim, evidence)
    assert result.verdict is Verdict.CONTRADICTED
    assert rival in result.detail and "where it speaks of" in result.detail


def test_a_number_with_its_own_qualifier_or_of_a_name_is_not_set_aside(
    view: NumericConsistencyView,
) -> None:
    evidence = EvidencePack.from_texts([
        "Light moves through a vacuum at about 300,000 kilometres per second. In glass, light "
        "moves at about 200,000 kilometres per second. Bus 12 leaves from the station. Bus 40 "
        "leaves from the harbour. The X2's battery has a two-year warranty; the X4 has a "
        "five-year warranty."])
    for claim in ("In glass, light moves at about 200,000 kilometres per second.",
                  "Light travels through a vacuum at about 300,000 kilometres per second.",
                  # A word glued to the number ("two-year") is no qualifier it lacks.
                  "The X2's battery is covered by a two-year warranty."):
        assert check(view, claim, evidence).verdict is Verdict.ENTAILED, claim
    # "Bus 40" is a name: whose route it is, is the subject readers' to tell.
    assert "where it speaks of" not in check(
        view, "Bus 40 leaves from the station.", evidence).detail


def test_a_table_rows_number_is_not_set_aside_for_its_header_words(
    view: NumericConsistencyView,
) -> None:
    # The row's own line lacks "requests" and "minute" (its header holds them), and a prose
    # sentence gives another number of requests per minute: the row still states 600.
    evidence = EvidencePack.from_texts([
        "| Region | Requests per minute |\n|---|---|\n| Europe | 600 |\n| Asia | 60 |\n\n"
        "The export endpoint has its own limit in every region: 10 requests per minute."])
    result = check(view, "Region: Europe; Requests per minute: 600.", evidence)
    assert "where it speaks of" not in result.detail
