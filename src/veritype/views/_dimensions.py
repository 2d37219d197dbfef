"""Which dimension a measured quantity gives, read from the word beside it: "2,120 metres
long" is a length, "a depth of 39 metres" a depth, "12 km" alone none. Two quantities of
different dimensions neither state nor contradict each other, so a depth is compared with a
depth, not with the first length the sentence gives. A plain count's dimension says what it
counts: a unit ("at least five working days": days) or things ("up to three items"), so "five
items" is neither stated nor contradicted by the five days, and is contradicted by the three
items."""

from __future__ import annotations

import re
from collections.abc import Iterable

from veritype._text import STOPWORDS, content_words
from veritype.views._units import unit_spelled

# Adjectives that follow the quantity they qualify: "330 m tall".
_ADJECTIVES = {
    "long": "length", "wide": "width", "broad": "width", "deep": "depth", "high": "height",
    "tall": "height", "thick": "thickness",
}
# Nouns that name a dimension: "a depth of 39 metres", "330 m in height".
_NOUNS = {
    "length": "length", "width": "width", "breadth": "width", "depth": "depth",
    "height": "height", "elevation": "height", "altitude": "height",
    "thickness": "thickness", "diameter": "diameter", "radius": "radius", "span": "span",
    "wingspan": "span", "circumference": "circumference", "perimeter": "circumference",
}
_NOUN = "|".join(_NOUNS)

_AFTER = re.compile(rf"\s*(?:(?P<adjective>{'|'.join(_ADJECTIVES)})|in\s+(?P<noun>{_NOUN}))\b",
                    re.IGNORECASE)
# The noun, a linking word and any hedge or bound, right before the quantity: "a depth of
# about 39 metres", "its height is 300 m", "diameter: 12 km".
_BEFORE = re.compile(
    rf"\b(?P<noun>{_NOUN})\s*(?:of|is|was|are|were|reaches|reached|measures|measured|:)?\s+"
    r"(?:(?:about|around|approximately|roughly|some|nearly|almost|over|under|up|to|more|"
    r"less|than|just|only|at|least|most|an?|estimated)\s+)*$",
    re.IGNORECASE)
# Words that loosen a number ("around 500 beds"), read apart from what a claim says of it.
DEGREE_WORDS = frozenset({"around", "approximately", "approx", "roughly", "nearly", "almost"})
# How far before a quantity its noun may stand.
_REACH = 60


def dimension_of(text: str, start: int, end: int) -> str:
    """The dimension the quantity at ``text[start:end]`` measures, or "" when no word says."""
    if (after := _AFTER.match(text, end)) is not None:
        if after.group("adjective"):
            return _ADJECTIVES[after.group("adjective").lower()]
        return _NOUNS[after.group("noun").lower()]
    if (before := _BEFORE.search(text[max(0, start - _REACH):start])) is not None:
        return _NOUNS[before.group("noun").lower()]
    return ""


# Up to three lower-case words right after a count: "five working days in advance" gives
# "working days in".
_COUNTED = re.compile(r"\s+((?:[a-z]+(?:-[a-z]+)*)(?:\s+[a-z]+(?:-[a-z]+)*){0,2})")
# Words that end the counted phrase besides the stopwords: prepositions and number words
# ("2,300 people across three factories").
_PHRASE_END_WORDS = (
    "across along around beyond behind beside near inside outside within throughout via "
    "against toward towards except plus like one two three four five six seven eight nine ten "
    "eleven twelve twenty thirty forty fifty hundred thousand million"
)
_PHRASE_ENDS = frozenset(_PHRASE_END_WORDS.split())
# The dimension of a count of things.
COUNT = "count"
_IRREGULAR_PLURALS = frozenset({"people", "children", "men", "women", "feet", "teeth", "mice"})


def counted_noun(text: str, end: int) -> str:
    """What the count ending at ``end`` counts, from the first plural noun among the content
    words right after it: the unit, when that noun names one ("five working days in
    advance" → "day"), ``COUNT`` for things ("up to three items", "12 members voted"), or ""
    when no plural noun is there ("four ahead of", "five of them", "3, and"). Things are not
    told apart by their nouns, which are often synonyms ("410 employees", "410 people")."""
    if (after := _COUNTED.match(text, end)) is None:
        return ""
    for word in after.group(1).split():
        if word in STOPWORDS or word in _PHRASE_ENDS:
            break
        if _plural(word):
            return unit_spelled(word) or COUNT
    return ""


def _plural(word: str) -> bool:
    return word in _IRREGULAR_PLURALS or (
        word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3)


# Each dimension word as ``content_words`` writes it, and the dimension it names.
_STEMS = {stem: dimension for word, dimension in (*_ADJECTIVES.items(), *_NOUNS.items())
          for stem in content_words(word)}


def as_dimensions(words: Iterable[str]) -> frozenset[str]:
    """Content words with each word of a dimension read as the dimension it names, so that
    "deep" and "depth" align."""
    return frozenset(_STEMS.get(word, word) for word in words)
