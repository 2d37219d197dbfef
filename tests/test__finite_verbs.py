"""Where a sentence's finite verb stands, and whether a text has one at all."""

from __future__ import annotations

import pytest

from veritype._finite_verbs import first_verb, has_verb

STATEMENTS = [
    # Irregular pasts: the verbs the -ed rule never saw.
    "The Berlin Wall fell on 9 November 1989.",
    "The Berlin Wall came down in 1989.",
    "The war began in 1939.",
    "Napoleon went into exile on Elba.",
    "Shakespeare wrote Hamlet around 1600.",
    "The Romans built Hadrian's Wall.",
    "Argentina won the 1986 World Cup.",
    "Prices rose sharply in 1973.",
    "Armstrong first set foot on the Moon in 1969.",
    "The Titanic sank in 1912.",
    "Alexander Fleming found penicillin in 1928.",
    "The empire finally fell in 1453.",
    "Edison held over a thousand patents.",
    "Columbus reached the Americas in 1492.",
    "They left Paris in May.",
    "The company lost money in 2008.",
    "Caesar crossed the Rubicon in 49 BC.",
    "The treaty was signed in 1919.",
    # Present tenses after a subject they agree with.
    "They release an album every year.",
    "Prices rise in summer.",
    "The Nile flows through Egypt.",
    "Paris lies on the Seine.",
    "The wall still stands.",
    "The museum holds 300 paintings.",
    "Mount Everest rises 8,849 metres above sea level.",
    "Penguins live in Antarctica.",
    "The river runs north.",
    "Bees produce honey.",
    "The company employs 500 people.",
    "Water boils at 100 degrees Celsius.",
    "The Amazon contains a tenth of all species.",
    "It includes the old town.",
    "Children learn quickly.",
    # Auxiliaries, contractions and -ing after an auxiliary.
    "It is running late.",
    "The bridge has been closed since 2020.",
    "The tower was built in 1889.",
    "It's in Paris.",
    "They're based in Berlin.",
    "The drug doesn't cure the disease.",
    "Was built in 1889.",
    "The vaccine may cause a fever.",
    "The project will finish in 2030.",
    # Regular pasts.
    "The bridge opened in 1894.",
    "Marie Curie died in 1934.",
    "The newly elected president took office in January.",
    "He used a telescope.",
    "The parties agreed on a ceasefire.",
    # Subjects with digits, and verbs after an appositive.
    "K2 stands at 8,611 metres.",
    "Cairo, the capital of Egypt, lies on the Nile.",
    "The Olive Lantern, a restaurant in Kellis, opened in 2016.",
    "An adult heart probably pumps 7,000 litres of blood a day.",
    "Apollo 11 landed on the Moon.",
]

PHRASES = [
    "Delhi",
    "Delhi.",
    "President Richard Nixon",
    "9 November 1989",
    "May 24, 1883.",
    "Will Smith.",
    "The 2019 release.",
    "The release date.",
    "Their first release.",
    "A limited edition.",
    "The newly released album.",
    "The United States.",
    "Running water.",
    "Album release party.",
    "The city walls.",
    "The Great Wall of China.",
    "Two hundred years.",
    "In 1989.",
    "About 300 metres.",
    "Fell in 1989.",
    "The Qin dynasty.",
    "A sacred text.",
    "The rising prices.",
    "Over the East River.",
    "Sir Isaac Newton.",
    "Between 1914 and 1918.",
    "The fall of the Berlin Wall.",
    "To release the album.",
    "The speed of light.",
    "Its rise to power.",
    "South Korean won.",
    "On the Origin of Species.",
    "One Hundred Years of Solitude.",
    "Born on 24 May 1819.",
    "The 1990s.",
    "The women's record.",
]


@pytest.mark.parametrize("text", STATEMENTS)
def test_a_statement_has_a_verb(text: str) -> None:
    assert has_verb(text)


@pytest.mark.parametrize("text", PHRASES)
def test_a_bare_phrase_has_no_verb(text: str) -> None:
    assert not has_verb(text)


@pytest.mark.parametrize(
    ("text", "verb"),
    [
        ("The Berlin Wall fell on 9 November 1989.", "fell"),
        ("Most of what stands today was built later.", "was"),
        ("The release of the album came in May.", "came"),
        ("The wall that stands today was built by the Ming.", "stands"),
        # A number that ends a name: the name is the subject.
        ("The Kestrel 3 weighs 17.5 kg.", "weighs"),
        ("Windows 10 runs on it.", "runs"),
        # Verbs of where water goes.
        ("The lake drains into the River Tay.", "drains"),
        ("The Orne empties into the Channel.", "empties"),
    ],
)
def test_the_first_verb_is_found_where_it_stands(text: str, verb: str) -> None:
    offset = first_verb(text)
    assert offset is not None and text[offset:].startswith(verb)
