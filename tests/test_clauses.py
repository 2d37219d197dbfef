"""How a sentence is read: the verb lexicon, and what its opening pronoun stands for."""

from __future__ import annotations

import pytest

from veritype._verbs import VerbForm, forms_of, verb_forms
from veritype.clauses import (
    names_its_subject,
    owner_left_to_context,
    resolve,
    split_clauses,
    subject_of,
)


@pytest.mark.parametrize(
    ("word", "forms"),
    [
        ("fell", {VerbForm.PAST}),
        ("fallen", {VerbForm.PARTICIPLE}),
        ("built", {VerbForm.PAST, VerbForm.PARTICIPLE}),
        ("release", {VerbForm.BASE}),
        ("releases", {VerbForm.THIRD_PERSON}),
        ("carries", {VerbForm.THIRD_PERSON}),
        ("crosses", {VerbForm.THIRD_PERSON}),
        ("lay", {VerbForm.PAST, VerbForm.BASE}),
        ("wall", set()),
    ],
)
def test_the_lexicon_knows_each_form_of_a_verb(word: str, forms: set[VerbForm]) -> None:
    assert verb_forms(word) == forms


RESOLVED = [
    # (the sentence before, the pronoun-led sentence, what it reads resolved)
    ("Tower Bridge opened in 1894.", "It crosses the Thames.", "Tower Bridge crosses the Thames."),
    # A one-word name that ends in "s" keeps its pronoun when its verb is singular.
    ("Texas has a long coast.", "Its capital is Austin.", "Texas\u2019 capital is Austin."),
    ("The Berlin Wall fell in 1989.", "It had stood for 28 years.",
     "The Berlin Wall had stood for 28 years."),
    ("The Great Wall of China is long.", "It was built over centuries.",
     "The Great Wall of China was built over centuries."),
    ("Marie Curie won the Nobel Prize in 1903.", "She was born in Warsaw.",
     "Marie Curie was born in Warsaw."),
    ("Albert Einstein developed relativity.", "He won the Nobel Prize in 1921.",
     "Albert Einstein won the Nobel Prize in 1921."),
    ("The new museum opened in 2001.", "It holds 300 paintings.",
     "The new museum holds 300 paintings."),
    ("The bridges were closed in 1990.", "They reopened in 1992.",
     "The bridges reopened in 1992."),
    # A description said to be a name: a pronoun after it stands for the name.
    ("The capital of France is Paris.", "It has two million inhabitants.",
     "Paris has two million inhabitants."),
    ("The walls of Troy were tall.", "They fell to the Greeks.",
     "The walls of Troy fell to the Greeks."),
    ("Tower Bridge spans the Thames.", "It opened in 1894.", "Tower Bridge opened in 1894."),
    ("Tower Bridge, a bascule bridge, opened in 1894.", "It is 244 metres long.",
     "Tower Bridge is 244 metres long."),
    ("The Eiffel Tower was completed in 1889.", "Its height is 330 metres.",
     "The Eiffel Tower's height is 330 metres."),
    ("The Amazon River flows into the Atlantic.", "Its basin covers 7 million km2.",
     "The Amazon River's basin covers 7 million km2."),
    ("Charles Dickens wrote Bleak House.", "His novels were serialised.",
     "Charles Dickens' novels were serialised.".replace("'", "\u2019")),
    ("The trials enrolled 300 patients.", "Their results were mixed.",
     "The trials\u2019 results were mixed."),
    ("Mount Everest rises 8,849 metres.", "It lies in the Himalayas.",
     "Mount Everest lies in the Himalayas."),
    ("The Nile flows through Egypt.", "It is the longest river in Africa.",
     "The Nile is the longest river in Africa."),
    ("The Roman Empire fell in 476.", "It had lasted five centuries.",
     "The Roman Empire had lasted five centuries."),
    ("Apollo 11 landed on the Moon in 1969.", "It carried three astronauts.",
     "Apollo 11 carried three astronauts."),
    ("The Bank of England was founded in 1694.", "It sets interest rates.",
     "The Bank of England sets interest rates."),
    ("Ada Lovelace wrote the first program.", "She worked with Charles Babbage.",
     "Ada Lovelace worked with Charles Babbage."),
    ("The old lighthouse stands on a cliff.", "It was built in 1850.",
     "The old lighthouse was built in 1850."),
    ("The vaccines were approved in 2020.", "They reduce severe illness.",
     "The vaccines reduce severe illness."),
    ("The Louvre is the most visited museum.", "It houses the Mona Lisa.",
     "The Louvre houses the Mona Lisa."),
    ("The Danube crosses ten countries.", "It ends in the Black Sea.",
     "The Danube ends in the Black Sea."),
    ("The most visited museum is the Louvre.", "It opened in 1793.",
     "The Louvre opened in 1793."),
    ("The Golden Gate Bridge opened in 1937.", "The bridge is painted orange.",
     "The Golden Gate Bridge is painted orange."),
    ("Italy joined the European Union in 1958.", "It is a republic.", "Italy is a republic."),
    ("Tower Bridge opened in 1894.", "It was the first bridge that opened in London.",
     "Tower Bridge was the first bridge that opened in London."),
    # Adverbs between the subject and its verb are no part of the subject.
    ("Mozart probably died at 35.", "He was born in Salzburg.", "Mozart was born in Salzburg."),
    ("Aoife Brennan no longer owns the cafe.", "She founded it in 2011.",
     "Aoife Brennan founded it in 2011."),
    ("Greyfell Crumbly is aged for 12 weeks.", "It sells for 28 pounds.",
     "Greyfell Crumbly sells for 28 pounds."),
    ("Leonardo da Vinci began the Mona Lisa in 1503.", "He worked on it for years.",
     "Leonardo da Vinci worked on it for years."),
    ("Howard Florey and Ernst Chain developed penicillin.", "They shared the Nobel Prize.",
     "Howard Florey and Ernst Chain shared the Nobel Prize."),
    ("The 2022 World Cup in Qatar was won by Argentina.", "It ended in December.",
     "The 2022 World Cup in Qatar ended in December."),
    # A description names the thing its head noun names, not what the subject says of it.
    ("Construction of the Berlin Wall began on 13 August 1961.",
     "The wall encircled West Berlin.", "The Berlin Wall encircled West Berlin."),
    ("The capital of France is in the north.", "The capital has 20 districts.",
     "The capital of France has 20 districts."),
    # A bare name is what a pronoun after it speaks of.
    ("Delhi.", "It is the capital of India.", "Delhi is the capital of India."),
]

LEFT_ALONE = [
    # A quantifier or a fragment is no subject: the pronoun stays as written.
    ("Most of what stands today was built in the Ming dynasty.",
     "It was built entirely in the Qin dynasty."),
    ("Most of the Great Wall that stands today was built under the Ming.",
     "It was built entirely in the Qin dynasty."),
    ("Some of the paintings were stolen.", "They were never found."),
    ("All of the bridges were closed.", "They reopened in 1992."),
    ("Only the tower survived the fire.", "It was restored in 1990."),
    ("Much of the city was destroyed.", "It was rebuilt after the war."),
    ("Many of the soldiers died.", "They were buried in France."),
    ("Half of the budget went to defence.", "It was cut in 2010."),
    ("Several of the claims were false.", "They were retracted."),
    ("None of the letters survived.", "They were burned."),
    ("However, the bridge opened late.", "It was busy."),
    ("In 1894 the bridge opened.", "It was busy."),
    ("During the war the city was bombed.", "It was rebuilt."),
    ("There are three bridges in the town.", "It has a river."),
    ("Today the wall is a museum.", "It attracts tourists."),
    ("Tower Bridge's towers are 65 metres tall.", "It opened in 1894."),
    ("Apple's headquarters opened in 2017.", "It has a ring-shaped building."),
    ("Eventually the empire collapsed.", "It had lasted centuries."),
    # A pronoun that does not agree with the subject.
    ("The trial enrolled 300 adult patients.", "They received aspirin daily."),
    ("The bridges were closed in 1990.", "It reopened in 1992."),
    ("The new museum opened in 2001.", "She founded it."),
    ("The new museum opened in 2001.", "He was its first director."),
    ("Howard Florey and Ernst Chain developed penicillin.", "He shared the Nobel Prize."),
    # A plural noun capitalised only because it opens the sentence, as its verb agrees.
    ("Bookings open seven days in advance.", "Its largest room seats ten people."),
    ("Rooms can be booked for three hours.", "It has a projector."),
    ("Batteries are covered for two years.", "It charges in four hours."),
    # A possessive owning a thing of the subject's own kind: the room is not the room's.
    ("The smallest room seats two people.", "Its largest room seats ten people."),
    ("The X2 model has a two-year warranty.", "Its sister model has five years."),
    # An "it" that stands for nothing.
    ("Tower Bridge opened in 1894.", "It is likely that it was busy."),
    ("Tower Bridge opened in 1894.", "It took eight years to build."),
    ("Tower Bridge opened in 1894.", "It was not until 1910 that it was painted."),
    ("Tower Bridge opened in 1894.", "It was Horace Jones who designed it."),
    ("The Great Wall is very long.", "It is estimated that it is 21,000 km long."),
    ("The bridge opened in 1894.", "It is worth visiting."),
    # No sentence before with a subject at all.
    ("1989.", "It was the year the wall fell."),
    ("About 300 metres.", "It is tall."),
]


@pytest.mark.parametrize(("before", "text", "resolved"), RESOLVED)
def test_a_pronoun_is_replaced_by_the_subject_before_it(
        before: str, text: str, resolved: str) -> None:
    assert resolve(text, subject_of(before)) == resolved


@pytest.mark.parametrize(("before", "text"), LEFT_ALONE)
def test_a_pronoun_without_a_clear_subject_is_left_as_written(before: str, text: str) -> None:
    assert resolve(text, subject_of(before)) == text


@pytest.mark.parametrize("subject", ["Most", "Some of it", "only the tower", "the wall fell"])
def test_resolve_substitutes_only_a_noun_phrase(subject: str) -> None:
    assert resolve("It was built in 1850.", subject) == "It was built in 1850."


def test_there_is_no_subject_in_a_sentence_of_quantifiers() -> None:
    assert subject_of("Most of what stands today was built in the Ming dynasty.") is None


@pytest.mark.parametrize(("sentence", "subject"), [
    ("Varnholm Østerby Airport lies 18 km north of the city centre.", "Varnholm Østerby Airport"),
    ("Émile Zola wrote novels.", "Émile Zola"),
])
def test_a_name_may_open_with_a_capital_of_any_latin_script(sentence: str, subject: str) -> None:
    assert subject_of(sentence) == subject


@pytest.mark.parametrize(("base", "written"), [
    ("die", {"die", "dies", "died", "dying"}),
    ("fall", {"fall", "falls", "fell", "fallen", "falling"}),
    ("marry", {"marry", "marries", "married", "marrying"}),
    ("stop", {"stopped", "stopping"}),
    ("open", {"open", "opens", "opened", "opening"}),
    ("move", {"move", "moves", "moved", "moving"}),
    ("agree", {"agrees", "agreed", "agreeing"}),
])
def test_a_verb_has_its_written_forms(base: str, written: set[str]) -> None:
    assert written <= forms_of(base)


def test_a_word_the_lexicon_has_no_verb_for_is_its_only_form() -> None:
    assert forms_of("bridge") == frozenset({"bridge"})


@pytest.mark.parametrize(("sentence", "clauses"), [
    # A finite verb after "and" opens a second predicate of the same subject.
    ("Queen Victoria was born in 1819 and came to the throne in 1837.",
     ["Queen Victoria was born in 1819.", "Queen Victoria came to the throne in 1837."]),
    ("The Trek costs 3,499 euros and has a 750 Wh battery.",
     ["The Trek costs 3,499 euros.", "The Trek has a 750 Wh battery."]),
    # After a comma, a clause with a subject of its own, whatever its verb.
    ("The X2 costs 199 euros, and the X4 costs 349 euros.",
     ["The X2 costs 199 euros.", "The X4 costs 349 euros."]),
    # Kept whole: a verb with nothing after it shares its object ...
    ("The company designs and builds bikes.", ["The company designs and builds bikes."]),
    # ... a participle after an auxiliary may share it ("was dedicated") or not ("died") ...
    ("The dam was built between 1931 and 1936 and dedicated in 1935.",
     ["The dam was built between 1931 and 1936 and dedicated in 1935."]),
    ("Shakespeare was born in 1564 and died in 1616.",
     ["Shakespeare was born in 1564 and died in 1616."]),
    # ... and a second noun is a list's next item.
    ("He sells cars and trucks to farmers.", ["He sells cars and trucks to farmers."]),
])
def test_coordinated_predicates_with_plain_verbs_are_cut(sentence: str,
                                                         clauses: list[str]) -> None:
    assert [clause.text for clause in split_clauses(sentence)] == clauses


@pytest.mark.parametrize(("sentence", "names"), [
    ("The Akashi Kaikyo Bridge opened in 1998.", True),
    # A description of a name names it: a later "It" leads back to the village.
    ("The old mill village of Kvernes, forty minutes away by bus, has a watermill.", True),
    ("The island of Holmø lies at the mouth of the fjord.", True),
    # A description alone, or a pronoun, names nothing a later "It" can lead back to.
    ("The bridge opened in 1998.", False),
    ("The first bridge over the river opened in 1998.", False),
    ("It opened in 1998.", False),
])
def test_a_sentence_names_its_subject_by_a_name_or_a_description_of_one(sentence: str,
                                                                       names: bool) -> None:
    assert names_its_subject(sentence) is names


@pytest.mark.parametrize(("claim", "left"), [
    ("The cover of Salt Between Us was designed by Greta Holm.",
     ("The cover was designed by Greta Holm.", "Salt Between Us's cover was designed by Greta "
      "Holm.", "Salt Between Us", "cover")),
    ("The iron arches of the Karst Viaduct were cast by the Tyne Foundry.",
     ("The iron arches were cast by the Tyne Foundry.", "The Karst Viaduct's iron arches were "
      "cast by the Tyne Foundry.", "Karst Viaduct", "iron arches")),
    # Opening the sentence, the description is capitalised as its first word.
    ("First confirmed ascent of Mount Everest was made in 1953.",
     ("The first confirmed ascent was made in 1953.", "Mount Everest's first confirmed ascent "
      "was made in 1953.", "Mount Everest", "first confirmed ascent")),
])
def test_a_named_owner_is_left_to_the_passage(claim: str, left: tuple[str, ...]) -> None:
    assert owner_left_to_context(claim) == left


@pytest.mark.parametrize("claim", [
    "The Tower of London is old.",  # a name, not a description
    "The cover of the novel was designed by Greta Holm.",  # the owner is no name
    "Greta Holm designed the cover of Salt Between Us.",  # the owner is not the subject's
])
def test_no_owner_is_left_where_the_subject_names_none(claim: str) -> None:
    assert owner_left_to_context(claim) is None
