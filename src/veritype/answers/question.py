"""What would answer a question: the kind of value it asks for and what that value is of.

"When did the Golden Gate Bridge open?" asks for a date (the kind) of the opening (the focus)
of the Golden Gate Bridge (the subject). A true sentence about the bridge that holds no date
("Its main span is 1,280 metres long.") does not answer it. A sentence answers a question when
it shares enough of the focus and holds a value of the asked kind: a date for "when", a number
for "how long / how many / how much" and for attributes such as range or price, a name for
"who" and "where". A yes/no question is answered by a sentence that states or negates the
asked property; a comparison ("Which has the longer range, the City or the Sport?") by one
such sentence for each side.

Pure and rule-based, so the renderer and the drafter can use it without loading a model.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import StrEnum

from veritype._text import (
    STOPWORDS,
    UPPER,
    content_families,
    content_words,
    normalise_word,
    tokens,
    word_family,
)
from veritype._verbs import BASE_FORMS, forms_of
from veritype.answers.relevance import (
    KIND_WORDS,
    SCOPE_WORDS,
    is_demonym,
    name_word,
    names_any,
    names_side,
    question_subjects,
)
from veritype.answers.sides import COMPARATIVES, comparison_parts, sides_of, words_of_side
from veritype.answers.values import (
    COUNT,
    DURATION,
    IMPLIED_VALUES,
    MEASURE,
    MONEY,
    MONTH,
    NUMBER,
    WHEN,
    YEAR,
    YEAR_NUMBER,
)
from veritype.errors import InputError


class AnswerKind(StrEnum):
    """The kind of value a question asks for."""

    DATE = "date"
    QUANTITY = "quantity"
    DURATION = "duration"
    PERSON = "person"
    PLACE = "place"
    ENTITY = "entity"
    YES_NO = "yes_no"
    COMPARISON = "comparison"
    DESCRIPTION = "description"


_AUXILIARIES = frozenset(
    [
        "is", "are", "was", "were", "be", "been", "do", "does", "did", "can", "could", "will",
        "would", "should", "shall", "has", "have", "had", "may", "might", "must",
    ]
)
# Nouns whose value is a measurement: "What is the range of the Trek?" asks for a quantity.
_MEASURED = frozenset(
    normalise_word(word) for word in
    [
        "range", "length", "weight", "price", "cost", "speed", "height", "width", "depth",
        "span", "capacity", "size", "age", "temperature", "distance", "torque", "power",
        "duration", "population", "area", "volume", "weigh",
    ]
)
_DATED = frozenset({"year", "date", "day", "century", "decade"})
# "How long does it take / did it last ...?" asks for a stretch of time, not a length.
_TAKES = frozenset({"take", "takes", "took", "taken", "last", "lasts", "lasted"})
# The measure word of "how long / how much / how high" names the kind, not the focus.
_HOW_MEASURES = frozenset([
    "long", "much", "many", "high", "far", "old", "big", "tall", "often", "large", "wide",
    "deep",
])
# Verbs that carry no topic of their own ("How long does it take to charge ...").
_LIGHT = frozenset(normalise_word(word) for word in ["take", "get", "make", "go", "happen", "come"])
# Words of a question that ask for a sum of money ("Which is cheaper, ...", "How much does it
# cost ...").
_MONEY_WORDS = frozenset({"cheaper", "cheapest", "dearer", "dearest", "expensive", "cost",
                          "costs", "price", "prices", "priced", "fee", "fees", "fare", "fares",
                          "charge", "charges", "charged"})
_NAME = re.compile(rf"[{UPPER}][\w'\u2019.-]*")
# Inflections a focus word may take in an answer: "die" / "died", "charge" / "charges".
_INFLECTIONS = ("", "s", "d", "e", "ed", "es", "er", "r", "ing")


@dataclass(frozen=True)
class Question:
    """A question read for what would answer it.

    ``focus``: the normalised words that name what is asked of the subject ("range" in "What
    is the range of the Voltra Trek?"); ``subjects``: the names asked about (distinctive words
    of each); ``sides``: the two things a comparison compares, each as the words that tell it
    from the other (``side_texts``: each as written); ``counts``: it asks "how many", so a
    measure ("1,280 metres") does not answer it.
    """

    text: str
    kind: AnswerKind
    focus: frozenset[str]
    subjects: tuple[frozenset[str], ...]
    sides: tuple[frozenset[str], ...] = ()
    counts: bool = False  # "How many ...": a count, not a measure
    money: bool = False  # it asks for a sum of money: "Which is cheaper, ...?"
    # The verbs a "did/does/do" question asks about ("move" in "When did Marie Curie move to
    # Paris?"): an answer states one of them, not another event of the subject.
    events: frozenset[str] = frozenset()
    side_texts: tuple[str, ...] = ()
    # The focus is the attribute a comparative word implies ("older": an age), which a value
    # of that attribute states without naming it ("You must be 20 to buy spirits").
    implied: bool = False

    @property
    def comparative(self) -> bool:
        return self.kind is AnswerKind.COMPARISON

    def describe(self) -> str:
        """What the question asks for, in words ("a date for: open")."""
        wanted = {
            AnswerKind.DATE: "a date", AnswerKind.QUANTITY: "a quantity",
            AnswerKind.DURATION: "a duration",
            AnswerKind.PERSON: "a person or organisation", AnswerKind.PLACE: "a place",
            AnswerKind.ENTITY: "a named thing", AnswerKind.YES_NO: "a yes or no",
            AnswerKind.COMPARISON: "a value for each side of the comparison",
            AnswerKind.DESCRIPTION: "a description",
        }[self.kind]
        if not self.focus:
            return wanted
        # Each focus word as the question writes it ("refused", not its stem "refus").
        written = {normalise_word(match.group(0)): match.group(0).lower()
                   for match in reversed(list(tokens(self.text)))}
        return f"{wanted} ({', '.join(sorted(written.get(word, word) for word in self.focus))})"

    def answers(self, sentence: str, about: str = "") -> bool:
        """Whether ``sentence`` holds a value of the asked kind for the focus, which it or
        ``about`` (the title or heading of its passage) names: "The default is 25 items."
        under "Page size" (for a comparison: for either side; see ``side_answered``)."""
        if not _covers_focus(self.focus, f"{sentence} {about}"):
            return False
        return _holds_kind(self, sentence)

    def holds_kind(self, sentence: str) -> bool:
        """Whether ``sentence`` holds a value of the asked kind (a date for "when", a number for
        a quantity, a name besides the subject's for "who" and "where"), whatever its focus."""
        return _holds_kind(self, sentence)

    def names_asked_attribute(self, sentence: str) -> bool:
        """Whether ``sentence`` names the measured attribute the question asks for ("range"
        in "What is the range of the Voltra Trek?"), or the question asks for none."""
        asked = self.focus & _MEASURED
        return not asked or shared_focus(asked, sentence) > 0

    def names_asked_event(self, sentence: str) -> bool:
        """Whether ``sentence`` states the event a "did/does/do" question asks about (a
        form of one of ``events``: "Marie Curie died in 1934" does not say when she moved
        to Paris), or the question asks about none."""
        if not self.events:
            return True
        written = {match.group(0).lower() for match in tokens(sentence)}
        return any(written & forms_of(verb) for verb in self.events)

    def names_side(self, side: frozenset[str], sentence: str, about: str = "",
                   title: str = "") -> bool:
        """Whether ``sentence``, or ``about`` (the title or heading of its passage), names
        ``side`` of a comparison, in any inflection ("Access tokens ..." names "an access
        token"), a hyphenated word by its parts ("full-pay" by "at full pay"); not by its
        heading alone when the sentence itself names another side. ``title`` (its
        document's, given apart from ``about``) names a side by all of the side's words
        only: "We followed 812 first-year students" under "Methods" of a paper on students'
        sleep names "the student sleep study", while "Travel and expenses" over "you may
        claim up to £12 for one meal" does not name "submitting an expense claim"; with the
        sentence that opens the paragraph, it outranks the heading as the sentence does."""
        for words in (sentence, f"{sentence} {title}"):
            if (about or title) and not names_any(words, [side]) and not names_side(
                    sentence, side, self.sides) and any(
                    names_any(words, [other]) for other in self.sides if other != side):
                # "... four weeks of partner leave" under "Maternity and partner leave" gives
                # the partner side's value: the sentence's own words outrank its heading's,
                # and the sentence opening its paragraph ("The ferry to Lindø ...") does too.
                return False
        if names_side(f"{sentence} {about}", side, self.sides):
            return True
        return bool(title) and names_any(f"{sentence} {about} {title}", [side])

    def unstated(self, sentence: str, about: str = "") -> list[str]:
        """The question's words, as written, that name what ``sentence`` (read with ``about``,
        the title or heading of its passage) does not speak of: a focus word it lacks in every
        inflection, and the words of a subject it does not name ("film" of "How much is the
        fine for an overdue film?" against the fine for books)."""
        context = f"{sentence} {about}"
        held = set(content_words(context))
        families = content_families(context)
        unnamed = {word for subject in self.subjects if not names_any(context, [subject])
                   for word in subject}
        missing = [
            raw for raw in (match.group(0) for match in tokens(self.text))
            if raw.lower().split("'")[0] not in _QUESTION_WORDS and (
                name_word(raw) in unnamed or (
                    normalise_word(raw.lower()) in self.focus
                    and word_family(raw) not in families
                    and not any(_matches(normalise_word(raw.lower()), word) for word in held)))
        ]
        return list(dict.fromkeys(missing))

    def side_question(self, index: int) -> str:
        """The question asked of one side of a comparison alone: its text without the other
        side ("Which study had more participants, the student sleep study?"), which the
        answer model reads as a plain question; the question itself when the sides cannot
        be cut apart."""
        if len(self.side_texts) != 2:
            return self.text
        first, second = self.side_texts
        for joint in (" or ", " and "):
            both = f"{first}{joint}{second}"
            if both in self.text:
                return self.text.replace(both, self.side_texts[index], 1)
        return self.text

    def side_answered(self, side: frozenset[str], sentence: str, about: str = "",
                      title: str = "") -> bool:
        """Whether ``sentence`` answers a comparison for ``side``: it names the side and
        shares the focus (or ``about``, the title or heading of its passage, does: "Admission
        costs 170 kroner." under "Kunsthall Varn") and holds a value of the asked kind;
        ``title`` names the side as :meth:`names_side` reads it, and is read for the focus
        only when the sentence names the side by its own words ("The effect was larger for
        pupils on free school meals" in a paper on paired reading): else a document's title
        is too broad to say which of its values a sentence gives."""
        context = f"{sentence} {about}"
        if title and not side <= SCOPE_WORDS and names_any(sentence, [side]):
            context = f"{context} {title}"
        covered = _covers_focus(self.focus, context) or (self.implied and any(
            pattern.search(sentence) is not None
            for word, pattern in IMPLIED_VALUES.items() if word in self.focus))
        return (self.names_side(side, sentence, about, title)
                and covered and _holds_kind(self, sentence))


def analyse(question: str) -> Question:
    """Read ``question`` for the kind of answer it asks for, its focus and its subjects."""
    text = question.strip()
    if not text:
        raise InputError("the question is empty")
    # "What's the ..." is read as "What is the ...": the question word is not a focus word.
    words = [match.group(0) for match in tokens(_CONTRACTED.sub(r"\1 is", text))]
    lowered = [word.lower() for word in words]
    subjects = tuple(question_subjects(text))
    parts = comparison_parts(text, lowered)
    sides = sides_of(parts)
    side_words = {normalise_word(w) for part in parts for w in words_of_side(part)}
    subject_words = side_words | {normalise_word(w) for subject in subjects for w in subject}
    kind = _kind(lowered, sides, text)
    focus: set[str] = set()
    implied: set[str] = set()
    for index, word in enumerate(lowered):
        if word in STOPWORDS or word in _AUXILIARIES or (word in _HOW_MEASURES and (
                index > 0 and lowered[index - 1] == "how")):
            continue
        if sides and word in COMPARATIVES:
            implied.update(COMPARATIVES[word])
            continue
        stem = normalise_word(word)
        # Names are subjects, not focus; an acronym ("CEO") names a role or a thing asked,
        # unless it names a compared side ("London or the rest of the UK").
        if len(word) > 1 and words[index].isupper() and stem not in side_words:
            focus.add(stem)
            continue
        if stem in subject_words or stem in _LIGHT or (words[index][0].isupper() and index):
            continue
        focus.add(stem)
    # "Which is heavier, ...?" compares weights; "Which hotel limit is higher, ...?" compares
    # the limit it names, not heights.
    implied = implied if not focus else set()
    focus = focus or implied
    if kind is AnswerKind.DESCRIPTION and focus & _MEASURED:
        kind = AnswerKind.QUANTITY
    elif kind is AnswerKind.DESCRIPTION and _head_words(lowered) & _DATED:
        kind = AnswerKind.DATE
    # The verb of "when/where did X <verb>" is the event the date or place belongs to; in
    # "What country does Watling Street run through?" it is a relation, which the answer
    # ("a route in England") need not repeat.
    events = _events(words, lowered) if kind in _EVENT_KINDS else frozenset()
    counts = lowered[:2] == ["how", "many"]
    return Question(text, kind, frozenset(focus), subjects, sides, counts=counts,
                    events=events, side_texts=parts, implied=bool(implied),
                    money=kind in (AnswerKind.QUANTITY, AnswerKind.COMPARISON)
                    and not counts and bool(_MONEY_WORDS & set(lowered)))


_EVENT_KINDS = frozenset({AnswerKind.DATE, AnswerKind.PLACE})
_CONTRACTED = re.compile(r"\b(what|who|where|when|how|which)['\u2019]s\b", re.IGNORECASE)
_DETERMINERS = frozenset(["the", "a", "an", "my", "your", "our", "its", "their", "his", "her"])


def _head_words(lowered: list[str]) -> set[str]:
    """The normalised words of the phrase a "what is" question asks for: after the question
    word, its auxiliary and a determiner, up to the next function word ("date" in "What is the
    date of the opening?"; "mileage rate", not "year", in "What is the mileage rate once I've
    done 10,000 miles in the tax year?")."""
    start = 0
    while start < len(lowered) and (lowered[start] in _QUESTION_WORDS
                                    or lowered[start] in _AUXILIARIES
                                    or lowered[start] in _DETERMINERS):
        start += 1
    head: set[str] = set()
    for word in lowered[start:]:
        if word in STOPWORDS or "'" in word:
            break
        head.add(normalise_word(word))
    return head


def _events(words: list[str], lowered: list[str]) -> frozenset[str]:
    """The verbs after "did/does/do" among a question's first words: each lower-case word
    after it that the lexicon knows as a verb's base form ("open" and "traffic" in "When did
    the Golden Gate Bridge open to traffic?"; a noun that is also a verb may be among them,
    and an answer needs only one)."""
    opening = next((index for index, word in enumerate(lowered[:3])
                    if word in {"did", "does", "do"}), None)
    if opening is None:
        return frozenset()
    return frozenset(word for word, raw in zip(lowered[opening + 1:], words[opening + 1:],
                                               strict=True)
                     if word in BASE_FORMS and word not in _LIGHT and raw[:1].islower())


# A yes/no question may ask after a comma: "Wink and Aquafina are drinks, are they both owned
# by Canada Dry?"; with no question word anywhere, it asks for a yes or no.
_ASKS_AFTER_COMMA = re.compile(
    r",\s*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would)\b[^,]*\?\s*$",
    re.IGNORECASE)
_QUESTION_WORDS = frozenset(["who", "whom", "whose", "what", "which", "when", "where", "why",
                             "how"])


def _kind(lowered: list[str], sides: tuple[frozenset[str], ...], text: str) -> AnswerKind:
    if sides:
        return AnswerKind.COMPARISON
    first = lowered[0] if lowered else ""
    second = lowered[1] if len(lowered) > 1 else ""
    if first == "when" or (first == "what" and second in {"year", "date", "day"}):
        return AnswerKind.DATE
    if first == "how" and second == "long" and _TAKES & set(lowered):
        return AnswerKind.DURATION
    if first == "how" and second in _HOW_MEASURES:
        return AnswerKind.QUANTITY
    if first in {"who", "whom", "whose"}:
        return AnswerKind.PERSON
    if first == "where":
        return AnswerKind.PLACE
    if first == "which" or (first == "what" and second not in _AUXILIARIES):
        return AnswerKind.ENTITY
    if first in _AUXILIARIES or (_ASKS_AFTER_COMMA.search(text) is not None
                                 and not _QUESTION_WORDS & set(lowered)):
        return AnswerKind.YES_NO
    return AnswerKind.DESCRIPTION


def _matches(focus_word: str, word: str) -> bool:
    short, long = sorted((focus_word, word), key=len)
    return len(short) >= 3 and long.startswith(short) and long[len(short):] in _INFLECTIONS


def _covers_focus(focus: frozenset[str], sentence: str) -> bool:
    """Whether the sentence shares at least half of the focus words (rounded up)."""
    if not focus:
        return True
    return shared_focus(focus, sentence) >= max(1, math.ceil(len(focus) / 2))


def shared_focus(focus: frozenset[str], sentence: str) -> int:
    """How many of the focus words the sentence holds, in any of their inflections."""
    words = set(content_words(sentence))
    return sum(1 for wanted in focus if any(_matches(wanted, word) for word in words))


def _holds_kind(question: Question, sentence: str) -> bool:
    kind = question.kind
    if kind is AnswerKind.DATE:
        return any(pattern.search(sentence) is not None
                   for pattern in (YEAR, MONTH, WHEN, DURATION))
    if kind is AnswerKind.DURATION:
        return DURATION.search(sentence) is not None
    if kind is AnswerKind.COMPARISON:
        sentence = _without_side_numbers(question, sentence)
    if kind in (AnswerKind.QUANTITY, AnswerKind.COMPARISON):
        if question.counts and not _counted(question, sentence):
            return False
        if question.money:
            return MONEY.search(sentence) is not None
        return NUMBER.search(sentence) is not None
    if kind in (AnswerKind.PERSON, AnswerKind.PLACE):
        return _other_name(question, sentence)
    return True


def _without_side_numbers(question: Question, sentence: str) -> str:
    """The sentence without the numbers that name a side: the 30 of "airport bus 30, which
    stops at the Harbour" is its name, not its value."""
    numbers = {word for side in question.sides for word in side if word[:1].isdigit()}
    if not numbers:
        return sentence
    named = [match for match in tokens(sentence) if match.group(0).lower() in numbers]
    for match in reversed(named):
        sentence = f"{sentence[:match.start()]}{sentence[match.end():]}"
    return sentence


def _counted(question: Question, sentence: str) -> bool:
    """Whether ``sentence`` holds a count for a "how many" question: a number that is neither
    a measure ("1,280 metres" counts no cars) nor a year, unless the question counts in a
    measure ("How many kilometres ...")."""
    if any(MEASURE.fullmatch(f"1 {word}") for word in question.text.split()):
        return True
    counts = [number for number in COUNT.findall(sentence) if not YEAR_NUMBER.fullmatch(number)]
    return len(counts) > len(MEASURE.findall(sentence))


def _other_name(question: Question, sentence: str) -> bool:
    """Whether the sentence names something besides the question's subjects: a capitalised
    word that does not open the sentence."""
    asked = {word for subject in question.subjects for word in subject}
    for index, match in enumerate(tokens(sentence)):
        word = match.group(0)
        lowered = name_word(word)
        # "Alan Turing was an English mathematician" names no one who could be his advisor.
        if (index and _NAME.fullmatch(word) and lowered not in asked
                and lowered not in KIND_WORDS
                and not (question.kind is AnswerKind.PERSON and is_demonym(lowered))):
            return True
    return False
