"""The two sides of a comparison ("Which has the longer range, the City or the Sport?"): where
a question names them, and the words that tell each from the other."""

from __future__ import annotations

import re

from veritype._text import STOPWORDS, normalise_word, tokens
from veritype._verbs import BASE_FORMS
from veritype.answers.relevance import KIND_WORDS, name_word

# A comparative word of a comparison, and the attribute it compares when the question does not
# name one ("Which is heavier ..." compares weights).
COMPARATIVES: dict[str, tuple[str, ...]] = {
    "heavier": ("weigh",), "lighter": ("weigh",), "longer": (), "shorter": (),
    "cheaper": ("cost",), "expensive": ("cost",), "more": (), "less": (), "fewer": (),
    "older": ("born", "age"), "younger": ("age",), "first": (), "earlier": (), "later": (),
    "taller": ("high",), "higher": ("high",), "bigger": (), "larger": (), "smaller": (),
    "faster": ("speed",), "slower": ("speed",), "wider": (), "deeper": (),
    # The rest name no attribute of their own: the question names it ("Which expires sooner,
    # ...", "Which is closer to the centre, ...").
    **dict.fromkeys([
        "sooner", "closer", "nearer", "farther", "further", "better", "worse", "greater",
        "lower", "stronger", "weaker", "warmer", "colder", "cooler", "hotter", "quicker",
        "newer", "safer", "riskier", "easier", "harder", "busier", "quieter", "louder",
        "thicker", "thinner", "steeper", "dearer", "richer", "poorer", "last", "most", "least",
        "fewest",
    ], ()),
}
_COMPARISON_OPENING = re.compile(r"^\s*(?:which|who|what)\b", re.IGNORECASE)
_SIDES = re.compile(r"(?:,|\bbetween\b|:)\s*([^,:?]+?)\s+(?:or|and)\s+([^,:?]+?)\s*\??\s*$",
                    re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def comparison_parts(text: str, lowered: list[str]) -> tuple[str, ...]:
    """The two things compared, as written, when the question compares ("..., the City or
    the Sport?", "Do drivers or warehouse staff work longer weeks?")."""
    if not any(w in COMPARATIVES for w in lowered):
        return ()
    found = _SIDES.search(text) if _COMPARISON_OPENING.match(text) else None
    parts = _without_shared_head(found.groups() if found is not None else _asked_sides(text))
    return parts if all(words_of_side(part) for part in parts) else ()


def _without_shared_head(parts: tuple[str, ...]) -> tuple[str, ...]:
    """The sides without the head noun they share: "warm-flat or cool-flat coral recruits"
    compares "warm-flat" with "cool-flat", the coral recruits being of both. Read so when
    the first side is a compound modifier alone and the second opens with one."""
    if len(parts) != 2:
        return parts
    first, second = (words_of_side(part) for part in parts)
    if len(first) == 1 and len(second) > 1 and "-" in first[0] and "-" in second[0]:
        return parts[0], second[0]
    return parts


def words_of_side(part: str) -> list[str]:
    """The words of a side as written, its article and stopwords left out."""
    return [match.group(0) for match in tokens(_ARTICLE.sub("", part))
            if match.group(0).lower() not in STOPWORDS]


def _side(part: str) -> frozenset[str]:
    """The words that name a compared side. A side with a name is told by its name: "the
    Holmø lighthouse" is "Holmø" in a passage headed so ("Its 212 steps ..."), "the rest of
    the UK" is "the UK"; "the Brooklyn Bridge" is told from "Tower Bridge" by "Brooklyn",
    not "Bridge"."""
    words = words_of_side(part)
    named = frozenset(name_word(word) for word in words if word[:1].isupper())
    named = named or frozenset(name_word(word) for word in words)
    return named - _SIDE_KIND_WORDS or named


# Words that say what kind of thing a side is, not which one: "the student sleep study" is
# told from "the paired reading trial" by "student sleep", as a bridge is by its name.
_SIDE_KIND_WORDS = KIND_WORDS | frozenset(
    {"study", "studies", "trial", "trials", "survey", "experiment"})


def _told_apart(sides: tuple[frozenset[str], ...]) -> tuple[frozenset[str], ...]:
    """Each side as the words that tell it from the others: "full-pay maternity leave or
    partner leave" compares "full-pay maternity" with "partner", and a sentence about
    partner leave names "leave" without naming the maternity side. A side left with no word
    of its own keeps all of its words."""
    stems = [{normalise_word(word) for word in side} for side in sides]
    told: list[frozenset[str]] = []
    for index, side in enumerate(sides):
        others = set().union(*(stems[other] for other in range(len(sides)) if other != index))
        own = frozenset(word for word in side if normalise_word(word) not in others)
        told.append(own or side)
    return tuple(told)


# "Do drivers or warehouse staff work longer weeks?": the sides stand between the auxiliary
# and the verb.
_AUXILIARY_SIDES = re.compile(
    r"^\s*(?:do|does|did|is|are|was|were|will|would|can|could|has|have|had)\s+(.+?)\s+or\s+"
    r"(.+?)\s*\?\s*$", re.IGNORECASE)


def _asked_sides(text: str) -> tuple[str, ...]:
    """The sides of a comparison asked with an auxiliary: what stands between it and "or",
    and what follows "or" up to the first verb or comparative word; when a comparative
    comes before "or", what follows the comparative and what follows "or" ("Was the gain
    bigger in the driest season or across all three seasons?")."""
    found = _AUXILIARY_SIDES.match(text)
    if found is None:
        return ()
    first, rest = found.groups()
    compared = [match for match in tokens(first) if match.group(0).lower() in COMPARATIVES]
    if compared:
        after = first[compared[-1].end():].strip()
        return (after, rest) if words_of_side(after) else ()
    second: list[str] = []
    for match in tokens(rest):
        word = match.group(0)
        if word.lower() in COMPARATIVES or (word.lower() in BASE_FORMS and second):
            break
        second.append(word)
    return (first, " ".join(second)) if second else ()


def sides_of(parts: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    """The words that tell each compared side from the others (``comparison_parts``)."""
    return _told_apart(tuple(_side(part) for part in parts))
