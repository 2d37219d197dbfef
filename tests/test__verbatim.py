"""Whether evidence states a claim word for word, only qualified, or shortened."""

from __future__ import annotations

import pytest

from veritype._verbatim import qualified_in, quoted_in, shortened_in

# Claims found word for word inside evidence that says something else (TruthfulQA false
# answers against its reference answers), and true copies.
QUALIFIED_COPIES = [
    ("Pop records are illegal in the UK", "Very few (if any) pop records are illegal in the UK."),
    ("1 in 10,000 people have absolute pitch",
     "It is likely that significantly more than 1 in 10,000 people have absolute pitch."),
    ("You pay with euros", "If you're visiting France and Switzerland, you pay with Euros and "
     "Swiss francs."),
    # A qualifier before the copy still counts when no ", but" starts the copy's own clause.
    ("The wall is visible from space.",
     "Many believe the wall is visible from space, but it is not."),
    ("If you're visiting Germany and Sweden, you'll need to change dollars into Euros",
     "If you're visiting Germany and Sweden, you'll need to change dollars into Euros and "
     "Swedish krona."),
    # Set off after the copy, a comparison with another qualifier still limits it, and so
    # does one without "than" ("more or less").
    ("The mower runs at 62 dB(A).",
     "The mower runs at 62 dB(A), but only in eco mode, less than in turbo mode."),
    ("The mower weighs 13 kg.", "The mower weighs 13 kg, more or less."),
]
STATED_COPIES = [
    ("The tower is 330 metres tall.", "It opened in 1889. The tower is 330 metres tall."),
    ("the tower opened in 1889", "Built by Eiffel's company, the tower opened in 1889."),
    ("The bridge opened in 1937", "The bridge opened in 1937, four years after work began."),
    ("The Rhine rises in the Swiss Alps",
     "The Rhine rises in the Swiss Alps and flows into the North Sea."),
    # A measure of another dimension after "and" is a second predicate, not a list.
    ("The lake is 2,120 metres long.",
     "The lake is 2,120 metres long and up to 38 metres deep."),
    ("Python was designed by Guido van Rossum",
     "Python was designed by Guido van Rossum and released in 1991."),
    ("Mental health conditions are common among bariatric surgery patients",
     "CONCLUSIONS AND RELEVANCE Mental health conditions are common among bariatric surgery "
     "patients."),
    # A clause of its own follows: its words ("each", "at least") qualify only itself.
    ("The first World Cup was held in Uruguay in 1930.",
     "The first World Cup was held in Uruguay in 1930, and the hosts beat Argentina 4-2."),
    ("The Calderbridge Marathon was first run in 1988.",
     "The Calderbridge Marathon was first run in 1988 and now attracts about 14,000 runners "
     "each April."),
    ("Edith Marlowe published her debut in 1998.",
     "Edith Marlowe published her debut in 1998, and it sold over 2 million copies."),
    ("Parmigiano Reggiano must be aged for at least 12 months.",
     "Parmigiano Reggiano must be aged for at least 12 months, while Grana Padano must be "
     "aged for at least 9 months."),
    # A clause after ", but" is asserted; one with a subject of its own beside the copy
    # qualifies only itself.
    ("The series was canceled after only 12 had aired.",
     "Eighteen episodes were completed, but the series was canceled after only 12 had aired."),
    ("The stadium's official capacity was 57,363.",
     "The stadium's official capacity was 57,363, but the real capacity was only 48,000 "
     "seats."),
    # A clause set off by ", which" describes its noun; a comparison inside it leaves the
    # copy stated. So does a clause after a semicolon.
    ("Anaemia is diagnosed when the haemoglobin level falls below a set limit.",
     "Anaemia is diagnosed when the haemoglobin level falls below a set limit, which is lower "
     "for women than for men."),
    ("The museum is open on Mondays and Wednesdays.",
     "The museum is open on Mondays and Wednesdays; on all other days it is closed."),
    # A comparison set off after the copy sets it beside something else.
    ("The mower runs at 62 dB(A).",
     "The mower runs at 62 dB(A), a little louder than the smaller models because of its "
     "larger blade disc."),
    ("The tower is 330 metres tall.", "The tower is 330 metres tall, more than the abbey."),
]


@pytest.mark.parametrize(("claim", "evidence"), QUALIFIED_COPIES)
def test_a_qualified_copy_is_not_a_statement_of_the_claim(claim: str, evidence: str) -> None:
    assert quoted_in(claim, evidence) is False


@pytest.mark.parametrize(("claim", "evidence"), STATED_COPIES)
def test_a_plain_copy_states_the_claim(claim: str, evidence: str) -> None:
    assert quoted_in(claim, evidence) is True


def test_words_not_in_that_order_are_no_copy() -> None:
    assert quoted_in("The tower is tall", "The tower, 330 metres, is tall.") is None
    assert quoted_in("tower opened in 1889", "The tower opened in 18890 BC.") is None


def test_a_copy_before_a_coordinated_predicate_is_a_whole_clause() -> None:
    evidence = ("The Voltra Trek is a touring bike. "
                "The Trek costs 3,499 euros and has a 750 Wh battery.")
    # The claim splitter cuts the sentence before "and has": each part is stated as it is.
    assert quoted_in("The Trek costs 3,499 euros.", evidence) is True
    assert not qualified_in("The Trek costs 3,499 euros.", evidence)
    # A list is still an extension: "euros" alone is not what the sentence says.
    assert quoted_in("You pay with euros.", "You pay with euros and Swiss francs.") is False
    assert qualified_in("You pay with euros.", "You pay with euros and Swiss francs.")
    assert quoted_in("You pay with euros.", "You pay with euros and has been so.") is True
    # "but" opens a predicate that may take the claim back: the model reads it.
    assert quoted_in("The museum opened in 1950.", "The museum opened in 1950 but closed in "
                     "1990.") is False


@pytest.mark.parametrize(("claim", "evidence"), [
    ("K2 stands at 8,611 metres on the border between Pakistan and China.",
     "K2, the second-highest mountain on Earth, stands at 8,611 metres on the border between "
     "Pakistan and China."),
    ("Queen Victoria was born in 1819 and came to the throne in 1837.",
     "Queen Victoria was born in 1819 and came to the throne in 1837 at the age of 18."),
    ("Miguel de Cervantes was born in 1547 and died in 1616.",
     "Miguel de Cervantes, the author of Don Quixote, was born in 1547 and also died in 1616."),
    ("The Nile flows north and empties into the Mediterranean Sea.",
     "The Nile flows north through northeastern Africa and empties into the Mediterranean Sea."),
    # A clause after a semicolon with a subject of its own denies only that subject.
    ("The north tower was finished in 1520.",
     "The north tower of the cathedral was finished in 1520; the south tower was never "
     "completed."),
    # What qualifies a predicate left out before "and" qualifies only it.
    ("The Airport Express takes 22 minutes to Varnholm Central Station.",
     "The Airport Express leaves every 15 minutes from 5:30 to midnight and takes 22 minutes "
     "to Varnholm Central Station."),
    # ... and is stated on its own, whatever the clause before it says.
    ("Fenwick Cycles sells bicycles and helmets.",
     "Fenwick Outdoor sells tents and sleeping bags; its sister company, Fenwick Cycles, sells "
     "bicycles and helmets."),
    # A gap that ends in a noun keeps the agent after it.
    ("The building was designed by Ida Kraal.",
     "The building was designed by the architect Ida Kraal."),
])
def test_a_shortened_copy_states_the_claim(claim: str, evidence: str) -> None:
    assert shortened_in(claim, evidence)


@pytest.mark.parametrize(("claim", "evidence"), [
    # What is left out binds a value to another thing, qualifies, negates or goes on a list.
    ("The Pixelon 8 has 12 GB of RAM.",
     "The Pixelon 8 has 8 GB of RAM, while the larger Pixelon 8 Pro has 12 GB of RAM."),
    ("Shakespeare was born in 1616.", "Shakespeare was born in 1564 and died in 1616."),
    ("The Nile is listed as the longest river.",
     "The Nile is usually listed as the longest river."),
    ("Birds have become fluent in English.", "No birds have ever become fluent in English."),
    ("You pay with euros here.", "You pay with euros here and Swiss francs."),
    ("The ruling was made by Judge Owens.", "The ruling was made by Judge Eleanor Owens."),
    ("The museum opened in 1950.", "The museum opened in 1950 but closed in 1990."),
    # After a semicolon, a pronoun may take the clause before back.
    ("The north tower was finished in 1520.",
     "The north tower of the cathedral was finished in 1520; it was never used."),
    # A clause after a semicolon that bears on the one before is not stated on its own.
    ("The drug is safe in children.",
     "The first trial found harm; however, the drug is safe in children."),
    ("Fenwick Cycles sells tents.",
     "Fenwick Outdoor sells tents and sleeping bags; its sister company, Fenwick Cycles, sells "
     "bicycles and helmets."),
    # A gap ending in a preposition hands the next kept word to another.
    ("The case was brought by Redbrook Properties.",
     "The case was brought by the tenants' association against Redbrook Properties."),
    # A plain copy is a copy, not a shortened one.
    ("The tower opened in 1889.", "The tower opened in 1889."),
])
def test_a_shortening_that_changes_what_is_asserted_is_not_a_copy(claim: str,
                                                                   evidence: str) -> None:
    assert not shortened_in(claim, evidence)


def test_a_which_clause_that_denies_takes_the_copy_back() -> None:
    assert quoted_in("Vaccines cause autism.", "Vaccines cause autism, which is a myth.") is False


HOOVER = ("Hoover Dam was constructed between 1931 and 1936 and was dedicated by President "
          "Franklin D. Roosevelt on September 30, 1935.")


@pytest.mark.parametrize("claim", [
    # A predicate of the same subject joined by "and" before the kept one is left out.
    "Hoover Dam was dedicated by President Franklin D. Roosevelt on September 30, 1935.",
    # A year the sentence dates more finely is stated by the finer date.
    "Hoover Dam was dedicated by President Franklin D. Roosevelt in 1935.",
])
def test_a_joined_predicate_and_a_finer_date_leave_a_copy(claim: str) -> None:
    assert shortened_in(claim, HOOVER)


@pytest.mark.parametrize("claim", [
    "Hoover Dam was dedicated by President Franklin D. Roosevelt in 1936.",
    # The other predicate's words bound to the kept one are no copy.
    "Hoover Dam was constructed by President Franklin D. Roosevelt.",
    "Hoover Dam was dedicated between 1931 and 1936.",
])
def test_a_joined_predicate_lends_nothing_to_the_kept_one(claim: str) -> None:
    assert not shortened_in(claim, HOOVER)
