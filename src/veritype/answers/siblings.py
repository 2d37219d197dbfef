"""Whether a claim gives the asked value of a sibling: the thing the question names set beside
another of its kind in the evidence, and the claim speaking of that other one in its place.

"How much is the fine for an overdue film?" against "A fine of €0.20 per day is charged for
overdue books": the claim holds the question's "overdue" with "books" where the question has
"film", and the evidence lists the two side by side ("Books are lent for three weeks; films
and games for one week"). The claim answers for books, and the evidence states no fine for
films: an answer would give the sibling's value.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from veritype._text import ARTICLES, STOPWORDS, content_words, normalise_word, tokens

# What may stand between two items of one list: "films and games", "books, films or games".
_LIST_JOINERS = frozenset({",", "and", "or", "nor", "the", "a", "an"})
_ITEM_MARKS = frozenset({",", "and", "or", "nor"})
_PARALLEL_PREPOSITIONS = frozenset({"for", "per"})
# Where a clause of a parallel sentence starts: "Books are lent ...; films and games ...".
_CLAUSE_BREAK = re.compile(r";|,\s*(?:while|whereas|but)\b|\bwhile\b|\bwhereas\b")
_WORD_OR_MARK = re.compile(r"[^\W_]+(?:[-'\u2019][^\W_]+)*|[,;]")


@dataclass(frozen=True, slots=True)
class Sibling:
    """A word the question asks about (``asked``) and the sibling the claim names in its place
    (``named``), each as written."""

    asked: str
    named: str


def sibling_in_place(question: str, focus: Collection[str], claim: str, about: str,
                     evidence: Sequence[str]) -> Sibling | None:
    """The sibling ``claim`` names in place of a word the question asks about, if any.

    A word of the question's ``focus`` that the claim (read with ``about``, its passage's
    title or heading) does not hold has a place in the claim when the word nearest it in the
    question that the claim holds stands next to another word in the claim, on the same side
    ("overdue film", "overdue books"). That other word is a sibling when some ``evidence``
    sentence sets the two side by side, as items of one list or as the heads of parallel
    clauses, or when both are compounds of one head ("48-hour", "24-hour")."""
    asked = [_singular(word) for word in content_words(question)]
    said = [_singular(word) for word in content_words(claim)]
    held = set(said) | {_singular(word) for word in content_words(about)}
    for index, word in enumerate(asked):
        if word in held or word not in focus or not any(char.isalpha() for char in word):
            continue
        for neighbour, step in _neighbours(asked, index, held):
            for other in _in_place(said, neighbour, step):
                if other in asked or not any(char.isalpha() for char in other):
                    continue
                if _same_head(word, other) or any(_side_by_side(word, other, sentence)
                                                  for sentence in evidence):
                    return Sibling(_written(question, word), _written(claim, other))
    return None


def sibling_instead(question: str, focus: Collection[str], claim: str, about: str,
                    evidence: Sequence[str]) -> Sibling | None:
    """A word of the ``focus`` that ``claim`` (read with ``about``) does not hold, and the
    sibling of it that the claim holds instead after the same preposition, as ``evidence``
    sets the two side by side: "Tickets cost 520 kroner for adults." gives no fare "for a
    child" where the evidence has "180 kroner for adults and 90 kroner for children". For a
    comparison's side, whose value a claim gives wherever it stands in the claim."""
    held = {_singular(word) for word in content_words(f"{claim} {about}")}
    asked = _after_prepositions(question)
    said = _after_prepositions(claim)
    for word, preposition in asked.items():
        if word in held or word not in focus:
            continue
        for other, before in said.items():
            if before == preposition and other != word and (
                    _same_head(word, other)
                    or any(_side_by_side(word, other, sentence) for sentence in evidence)):
                return Sibling(_written(question, word), _written(claim, other))
    return None


def _after_prepositions(text: str) -> dict[str, str]:
    """Each word that follows a preposition (an article between them left out), normalised,
    with that preposition: "for a child" gives child → for."""
    words = [match.group(0).lower() for match in _WORD_OR_MARK.finditer(text)]
    found: dict[str, str] = {}
    for at, word in enumerate(words):
        if word not in _PARALLEL_PREPOSITIONS:
            continue
        following = at + 2 if words[at + 1:at + 2] and words[at + 1] in ARTICLES else at + 1
        if following < len(words) and words[following] not in STOPWORDS:
            found.setdefault(_singular(normalise_word(words[following])), word)
    return found


def _neighbours(words: list[str], index: int, held: set[str]) -> Iterable[tuple[str, int]]:
    """The nearest words on each side of ``words[index]`` that are ``held`` (two words away
    at most), and the step from each towards it."""
    for step in (1, -1):
        for distance in (1, 2):
            at = index - step * distance
            if 0 <= at < len(words) and words[at] in held:
                yield words[at], step
                break


def _in_place(words: list[str], neighbour: str, step: int) -> Iterable[str]:
    """The words that stand ``step`` away from ``neighbour`` in ``words``."""
    for at, word in enumerate(words):
        if word == neighbour and 0 <= at + step < len(words):
            yield words[at + step]


# Plurals that a light stemmer does not bring back to their singular.
_IRREGULAR_PLURALS = {"children": "child", "people": "person", "men": "man", "women": "woman",
                      "feet": "foot", "teeth": "tooth", "mice": "mouse", "geese": "goose"}


def _singular(word: str) -> str:
    return _IRREGULAR_PLURALS.get(word, word)


def _same_head(first: str, second: str) -> bool:
    """Whether two different words are compounds of one head ("48-hour", "24-hour")."""
    head = first.partition("-")[2]
    return bool(head) and first != second and second.partition("-")[2] == head


def _side_by_side(first: str, second: str, sentence: str) -> bool:
    """Whether ``sentence`` lists the two words as items of one list ("films and games") or
    opens two parallel clauses with them ("Books are lent ...; films ...")."""
    words = [match.group(0) if match.group(0) in ",;"
             else _singular(normalise_word(match.group(0).lower()))
             for match in _WORD_OR_MARK.finditer(sentence)]
    at_first = [i for i, word in enumerate(words) if word == first]
    at_second = [i for i, word in enumerate(words) if word == second]
    for i in at_first:
        for j in at_second:
            between = words[min(i, j) + 1:max(i, j)]
            if between and len(between) <= 3 and set(between) <= _LIST_JOINERS and (
                    set(between) & _ITEM_MARKS):
                return True
    # Parallel phrases of one preposition: "180 kroner for adults and 90 kroner for children".
    if any(words[i - 1] == words[j - 1] and words[i - 1] in _PARALLEL_PREPOSITIONS
           for i in at_first for j in at_second if i > 0 and j > 0):
        return True
    items = [_leading_items(clause) for clause in _CLAUSE_BREAK.split(sentence)]
    return any(first in one and second in other
               for a, one in enumerate(items) for b, other in enumerate(items) if a != b)


def _leading_items(clause: str) -> set[str]:
    """The words a clause opens with as its subject: its first content word and the items
    listed with it ("films and games for one week": films, games)."""
    words = [match.group(0) if match.group(0) == "," else match.group(0).lower()
             for match in _WORD_OR_MARK.finditer(clause)]
    start = next((i for i, word in enumerate(words) if word not in STOPWORDS and word != ","),
                 None)
    if start is None:
        return set()
    items = {normalise_word(words[start])}
    at = start + 1
    while at + 1 < len(words) and words[at] in _ITEM_MARKS:
        at += 1
        if words[at] in _ITEM_MARKS and at + 1 < len(words):  # ", and"
            at += 1
        items.add(normalise_word(words[at]))
        at += 1
    return items


def _written(text: str, word: str) -> str:
    """``word`` (normalised) as ``text`` writes it."""
    return next((match.group(0) for match in tokens(text)
                 if normalise_word(match.group(0)) == word), word)
