import datetime
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from veritype.views._matching import TextValues, conflicts, matches
from veritype.views._values import Value, ValueKind, extract_values


def only(text: str, kind: ValueKind | None = None) -> Value:
    values = [v for v in extract_values(text) if kind is None or v.kind is kind]
    assert len(values) == 1, values
    return values[0]


# --- numbers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,000", 1000.0),
        ("1000000", 1000000.0),
        ("1,234,567", 1234567.0),
        ("3.5", 3.5),
        ("1,234.75", 1234.75),
        ("5 million", 5_000_000.0),
        ("2.3 billion", 2_300_000_000.0),
        ("4 thousand", 4000.0),
        ("1.5 trillion", 1.5e12),
        ("7bn", 7e9),
        ("three", 3.0),
        ("Twelve", 12.0),
        ("twenty-one", 21.0),
        ("three million", 3_000_000.0),
        ("-5", -5.0),
        ("\u221212", -12.0),
    ],
)
def test_number_normalisation(text: str, expected: float) -> None:
    value = only(f"There were {text} of them.")
    assert value.kind is ValueKind.NUMBER
    assert value.value == expected


def test_number_offsets_and_surface() -> None:
    text = "Roughly 5 million people came."
    value = only(text)
    assert (value.start, value.end) == (8, 17)
    assert text[value.start : value.end] == value.text == "5 million"
    assert value.hedged


def test_bare_one_is_not_a_number() -> None:
    assert extract_values("It is one of the oldest towers.") == []


@pytest.mark.parametrize("text", ["the 1980s", "the 3rd floor", "an A380 jet", "version 3.5.2"])
def test_digits_inside_words_are_not_values(text: str) -> None:
    assert [v for v in extract_values(text) if v.kind is not ValueKind.ENTITY] == []


def test_hyphenated_number_before_a_noun() -> None:
    value = only("an 81-storey building")
    assert value.kind is ValueKind.NUMBER
    assert value.value == 81.0


def test_range_of_years_gives_two_positive_years() -> None:
    values = extract_values("built 1887-1889")
    assert [(v.kind, v.value) for v in values] == [
        (ValueKind.DATE, "1887"),
        (ValueKind.DATE, "1889"),
    ]


@given(st.integers(min_value=-(10**15), max_value=10**15))
def test_thousands_separated_integers_normalise_to_themselves(number: int) -> None:
    value = only(f"There were {number:,} visitors.")
    assert value.kind is ValueKind.NUMBER
    assert value.value == float(number)
    assert value.text == f"{number:,}"


# --- percentages and money ---------------------------------------------------------------


@pytest.mark.parametrize("text", ["5%", "5 %", "5 percent", "5 per cent", "5 Percent"])
def test_percent_forms(text: str) -> None:
    value = only(f"Growth was {text} last year.", ValueKind.PERCENT)
    assert value.value == 5.0
    assert value.text == text


def test_percent_is_not_a_plain_number() -> None:
    assert not matches(only("5%"), only("5 apples"))
    assert matches(only("5%"), only("5 percent"))


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("$5", 5.0, "USD"),
        ("5 dollars", 5.0, "USD"),
        ("12 US dollars", 12.0, "USD"),
        ("$5 million", 5e6, "USD"),
        ("$5m", 5e6, "USD"),
        ("US$2.5bn", 2.5e9, "USD"),
        ("€3.2 million", 3.2e6, "EUR"),
        ("3.2 million euros", 3.2e6, "EUR"),
        ("£7", 7.0, "GBP"),
        ("7 pounds sterling", 7.0, "GBP"),
        ("GBP 7", 7.0, "GBP"),
        ("100 yen", 100.0, "JPY"),
    ],
)
def test_money_forms(text: str, amount: float, currency: str) -> None:
    value = only(f"It cost {text} in total.")
    assert value.kind is ValueKind.MONEY
    assert value.value == pytest.approx(amount, rel=1e-12)
    assert value.unit == currency


def test_money_in_different_currencies_neither_matches_nor_conflicts() -> None:
    dollars, euros = only("$5"), only("€5")
    assert not matches(dollars, euros)
    assert not conflicts(dollars, euros)
    assert conflicts(dollars, only("$6"))
    assert matches(only("$5"), only("5 dollars"))


# --- quantities --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("330 m", "metre"),
        ("330m", "metre"),
        ("330 metres", "metre"),
        ("330 meters", "metre"),
        ("330 Metres", "metre"),
        ("330 km", "kilometre"),
        ("330 kilometres", "kilometre"),
        ("330 kilometers", "kilometre"),
        ("330 kg", "kilogram"),
        ("330 kilograms", "kilogram"),
        ("330 km/h", "kilometre per hour"),
        ("330 square kilometres", "square kilometre"),
        ("330 km²", "square kilometre"),
        ("330 °C", "degree celsius"),
        ("330 MW", "megawatt"),
        ("330 feet", "foot"),
        ("330 years", "year"),
    ],
)
def test_unit_aliases(text: str, unit: str) -> None:
    value = only(f"It measured {text} overall.")
    assert value.kind is ValueKind.QUANTITY
    assert value.value == 330.0
    assert value.unit == unit


def test_quantities_match_across_aliases_but_not_across_units() -> None:
    assert matches(only("330 m"), only("330 metres"))
    assert matches(only("330 meters"), only("330 metres"))
    assert not matches(only("330 m"), only("330 km"))
    # Units are named, never converted: 1 km is not 1000 m to this module.
    assert not matches(only("1 km"), only("1000 m"))
    assert not conflicts(only("1 km"), only("1000 m"))


def test_symbols_are_case_sensitive() -> None:
    # "M" is not metres; 330 stays a plain number.
    assert only("figure 330 M", ValueKind.NUMBER).value == 330.0
    assert not [v for v in extract_values("figure 330 M") if v.kind is ValueKind.QUANTITY]


def test_scaled_quantity() -> None:
    value = only("about 5 million km away")
    assert (value.kind, value.value, value.unit, value.hedged) == (
        ValueKind.QUANTITY, 5e6, "kilometre", True
    )


# --- hedging -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hedge", ["about", "approximately", "around", "nearly", "roughly", "some", "almost",
              "About"]
)
def test_hedge_words_allow_one_percent(hedge: str) -> None:
    claim = only(f"It is {hedge} 332 metres tall.")
    assert claim.hedged
    assert matches(claim, only("330 metres"))
    assert not matches(claim, only("340 metres"))


@pytest.mark.parametrize(("limit", "inside", "outside"), [
    ("more than", "80 %", "60 %"), ("over", "80 %", "60 %"), ("at least", "70 %", "69 %"),
    ("less than", "60 %", "80 %"), ("under", "60 %", "80 %"), ("at most", "70 %", "71 %"),
])
def test_a_stated_limit_is_met_by_any_value_within_it(limit: str, inside: str,
                                                       outside: str) -> None:
    claim = only(f"It holds {limit} 70% of the market.")
    assert claim.bound
    assert matches(claim, only(inside))
    assert not matches(claim, only(outside))
    assert conflicts(claim, only(outside))


def test_up_to_states_a_top_not_a_limit() -> None:
    assert conflicts(only("a range of up to 90 km"), only("a range of up to 70 km"))


def test_a_value_within_a_limit_the_evidence_states_does_not_conflict() -> None:
    assert not conflicts(only("It holds 80% of the market."), only("more than 70%"))
    assert conflicts(only("It holds 60% of the market."), only("more than 70%"))


def test_unhedged_numbers_must_be_exact() -> None:
    claim = only("It is 332 metres tall.")
    assert not claim.hedged
    assert not matches(claim, only("330 metres"))
    assert conflicts(claim, only("330 metres"))


def test_hedge_must_be_right_before_the_number() -> None:
    assert not only("about the tower, 332 metres").hedged
    assert not only("moreover 332 metres").hedged


# --- dates -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Jan. 5, 1889",
        "Jan 5, 1889",
        "January 5, 1889",
        "January 5 1889",
        "January 5th, 1889",
        "5 January 1889",
        "5th of January 1889",
        "5 Jan. 1889",
        "1889-01-05",
        "Saturday, January 5, 1889",
    ],
)
def test_day_dates_normalise_to_iso(text: str) -> None:
    value = only(f"It happened on {text} in the morning.")
    assert value.kind is ValueKind.DATE
    assert value.value == "1889-01-05"
    assert value.granularity == "day"
    assert value.text == text


def test_month_and_year_granularity() -> None:
    month = only("It opened in March 1889.")
    assert (month.value, month.granularity) == ("1889-03", "month")
    year = only("It opened in 1889.")
    assert (year.value, year.granularity) == ("1889", "year")


def test_date_without_year() -> None:
    value = only("It opens on 4 July.")
    assert (value.value, value.text) == ("--07-04", "4 July")
    assert matches(value, only("on July 4, 1889"))
    assert not matches(value, only("on July 5, 1889"))
    assert conflicts(value, only("on July 5, 1889"))


@pytest.mark.parametrize("year", [999, 2100, 3000])
def test_years_outside_range_are_numbers(year: int) -> None:
    assert only(f"in {year} cases").kind is ValueKind.NUMBER


def test_invalid_calendar_day_is_not_a_day_date() -> None:
    values = extract_values("on 31 February 1889")
    assert all(v.value != "1889-02-31" for v in values)
    assert ("1889-02", "month") in [(v.value, v.granularity) for v in values]


def test_a_date_is_not_also_a_number_or_a_year() -> None:
    values = extract_values("The Eiffel Tower opened on 31 March 1889 in Paris.")
    dates = [v for v in values if v.kind is ValueKind.DATE]
    assert [d.value for d in dates] == ["1889-03-31"]
    assert not [v for v in values if v.kind is ValueKind.NUMBER]
    assert "march" not in [v.value for v in values if v.kind is ValueKind.ENTITY]


def test_sentence_final_full_month_keeps_its_period_out() -> None:
    assert only("It opened on 4 July.").end == len("It opened on 4 July")


def test_year_matches_finer_dates_in_that_year_only() -> None:
    year = only("in 1889")
    assert matches(year, only("on 31 March 1889"))
    assert matches(year, only("in March 1889"))
    assert not matches(year, only("on 31 March 1890"))
    month = only("in March 1889")
    assert matches(month, only("on 31 March 1889"))
    assert not matches(month, only("on 1 April 1889"))
    # A finer claim is not stated by a coarser date ...
    day = only("on 31 March 1889")
    assert not matches(day, only("in 1889"))
    # ... but neither is it contradicted by it.
    assert not conflicts(day, only("in 1889"))
    assert conflicts(day, only("in 1890"))
    assert conflicts(month, only("on 1 April 1889"))
    assert conflicts(only("in 1890"), only("on 31 March 1889"))


def test_a_date_without_its_year_states_that_day_and_contradicts_no_year() -> None:
    # "The siege began on August 2 ... 1777": the day is stated, the year elsewhere.
    assert matches(only("on 2 August 1777"), only("on August 2"))
    assert not matches(only("on 3 August 1777"), only("on August 2"))
    # "12 January" may be of any year, so it cannot refute "March 2006".
    assert not conflicts(only("in March 2006"), only("on 12 January"))
    assert conflicts(only("on 3 August"), only("on August 2"))


def test_bare_year_matches_the_same_plain_number() -> None:
    assert matches(only("1665 steps"), only("1,665 steps"))
    assert not matches(only("1665 steps"), only("1,666 steps"))


@given(st.dates(min_value=datetime.date(1000, 1, 1), max_value=datetime.date(2099, 12, 31)))
def test_date_formats_agree(day: datetime.date) -> None:
    month_name = day.strftime("%B")
    forms = [
        f"{month_name} {day.day}, {day.year}",
        f"{day.day} {month_name} {day.year}",
        # "May" has no abbreviation, and a full month name takes no period.
        f"{month_name[:3]}{'.' if len(month_name) > 3 else ''} {day.day}, {day.year}",
        day.isoformat(),
    ]
    for form in forms:
        assert only(f"It was on {form}.").value == day.isoformat(), form


# --- names -------------------------------------------------------------------------------


def names(text: str) -> list[str]:
    return [v.text for v in extract_values(text) if v.kind is ValueKind.ENTITY]


def test_names_with_connectors() -> None:
    text = "The Eiffel Tower stands on the Champ de Mars in Paris, France."
    assert names(text) == ["Eiffel Tower", "Champ de Mars", "Paris", "France"]
    value = only(text[:16], ValueKind.ENTITY)
    assert (value.start, value.end, value.value) == (4, 16, "eiffel tower")


def test_names_drop_sentence_initial_common_words() -> None:
    assert names("It is named after Gustave Eiffel. In Paris it is famous.") == [
        "Gustave Eiffel",
        "Paris",
    ]
    assert names("The tower is tall.") == []
    # Mid-sentence, a capitalised "The" is part of the name.
    assert names("He read The Times daily.") == ["The Times"]


def test_names_keep_titles_and_split_at_punctuation() -> None:
    assert names("Dr. Watson met Ludwig van Beethoven, Paris and London.") == [
        "Dr. Watson",
        "Ludwig van Beethoven",
        "Paris",
        "London",
    ]


def test_trailing_connector_is_not_part_of_a_name() -> None:
    assert names("We visited Paris of the future.") == ["Paris"]


def test_month_and_weekday_of_a_date_are_not_names() -> None:
    assert names("On Sunday, March 31, 1889, Eiffel climbed.") == ["Eiffel"]


def test_entity_words_must_appear_in_order_and_contiguously() -> None:
    evidence = TextValues.of("It is named after the engineer Gustave Eiffel.")
    assert evidence.contains(only("Eiffel said so.", ValueKind.ENTITY))
    assert evidence.contains(only("Gustave Eiffel", ValueKind.ENTITY))
    assert not evidence.contains(only("Eiffel Gustave", ValueKind.ENTITY))
    assert not evidence.contains(only("Gustave Jean Eiffel", ValueKind.ENTITY))
    assert matches(only("Eiffel", ValueKind.ENTITY), only("Gustave Eiffel", ValueKind.ENTITY))


def test_entities_never_conflict() -> None:
    assert not conflicts(only("Paris"), only("London"))


def test_text_values_conflict_only_without_a_matching_value() -> None:
    claim = only("in 1889")
    assert TextValues.of("built from 1887 to 1889").conflict(claim) is None
    other = TextValues.of("built from 1887 to 1888").conflict(claim)
    assert other is not None
    assert other.value == "1887"


def test_values_are_in_text_order_and_disjoint() -> None:
    text = ("On Jan. 5, 1889, Gustave Eiffel paid $5 million for 330 metres of iron, "
            "about 5% of 2.3 billion francs.")
    values = extract_values(text)
    assert [v.kind for v in values] == [
        ValueKind.DATE, ValueKind.ENTITY, ValueKind.MONEY, ValueKind.QUANTITY,
        ValueKind.PERCENT, ValueKind.NUMBER,
    ]
    for first, second in itertools.pairwise(values):
        assert first.end <= second.start
    for value in values:
        assert text[value.start : value.end] == value.text


@pytest.mark.parametrize(("text", "name"), [
    ("The Arvena Book 16 starts at 1,099 dollars.", "Arvena Book 16"),
    ("The crew of Apollo 11 landed on the Moon.", "Apollo 11"),
    ("The larger Pixelon 8 Pro has 12 GB of RAM.", "Pixelon 8 Pro"),
])
def test_a_whole_number_after_a_name_is_part_of_the_name(text: str, name: str) -> None:
    assert next(v.text for v in extract_values(text) if v.kind is ValueKind.ENTITY) == name


@pytest.mark.parametrize("text", ["About 40 people came.", "The Tern is 22 metres tall.",
                                  "The Games were held in Paris 1924.",
                                  "Series 1 aired in Australia."])
def test_a_number_after_a_common_word_or_with_a_unit_or_a_year_stays_a_value(text: str) -> None:
    assert any(v.kind is not ValueKind.ENTITY for v in extract_values(text))


@pytest.mark.parametrize(("text", "dimensions"), [
    ("It is 2,120 metres long and 640 metres wide, and it reaches a depth of 39 metres.",
     ["length", "width", "depth"]),
    ("The tower stands 330 m tall.", ["height"]),
    ("It has a height of about 300 metres.", ["height"]),
    ("The wall is 2 m in thickness.", ["thickness"]),
    ("The crater's diameter is 12 km.", ["diameter"]),
    ("The road runs for 12 km.", [""]),
    ("The bridge has a main span of 1,280 m.", ["span"]),
    ("It is 30 m long, 20 m wide and 5 m deep.", ["length", "width", "depth"]),
])
def test_the_dimension_a_quantity_measures(text: str, dimensions: list[str]) -> None:
    quantities = [v for v in extract_values(text) if v.kind is ValueKind.QUANTITY]
    assert [v.dimension for v in quantities] == dimensions


@pytest.mark.parametrize(("text", "counted"), [
    # A unit named among the words after a count is what it counts.
    ("Bookings must be made at least five working days in advance.", ["day"]),
    # Things are counted alike, whatever the noun: "410 employees" are "410 people".
    ("Halden employs 2,300 people across three factories.", ["count", "count"]),
    ("Adults can take it up to three times a day.", ["count"]),
    ("After the vote, 12 members left.", ["count"]),
    # No plural noun after the count: it may count anything.
    ("They finished four ahead of Ashby Town.", [""]),
    ("Five of them came.", [""]),
])
def test_the_thing_a_plain_number_counts(text: str, counted: list[str]) -> None:
    numbers = [v for v in extract_values(text) if v.kind is ValueKind.NUMBER]
    assert [v.dimension for v in numbers] == counted


@pytest.mark.parametrize(("text", "names"), [
    # The full stop of an initial does not end a name.
    ("It was designed by John A. Roebling and crosses the East River.",
     ["John A. Roebling", "East River"]),
    ("He met J. R. R. Tolkien in Oxford.", ["J. R. R. Tolkien", "Oxford"]),
    # A common word after a capital letter and a full stop starts no name part.
    ("They called it Plan B. Then they left.", ["Plan B"]),
])
def test_a_name_holds_its_initials(text: str, names: list[str]) -> None:
    assert [v.text for v in extract_values(text) if v.kind is ValueKind.ENTITY] == names
