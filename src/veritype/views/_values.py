"""Checkable values in text: numbers, percentages, money, quantities, dates and names.

Every value keeps its character offsets and surface text and carries a canonical form,
so that "1,000" and "1000", "Jan. 5, 1889" and "1889-01-05", or "330 m" and
"330 metres" compare equal. Units are canonicalised by name only and never converted:
whether 1,063 feet is 324 metres is not something a string matcher should decide.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Literal

from veritype._text import NEGATIONS, STOPWORDS, sentence_spans
from veritype.views._dimensions import counted_noun, dimension_of
from veritype.views._units import CURRENCY_WORD, UNIT, currency_code, unit_named


class ValueKind(StrEnum):
    NUMBER = "number"
    PERCENT = "percent"
    MONEY = "money"
    QUANTITY = "quantity"
    DATE = "date"
    ENTITY = "entity"


Granularity = Literal["day", "month", "year"]


@dataclass(frozen=True, slots=True)
class Value:
    """One value found in a text.

    ``value`` is a float for the numeric kinds and a string otherwise: an ISO date
    ("1889-03-31", "1889-03", "1889", or "--03-31" without a year) or the lower-cased
    words of a name. ``unit`` is the canonical unit of a quantity or the ISO code of a
    currency. ``hedged`` marks a number introduced by "about", "nearly", ...; ``bound`` one
    that states a limit: "lower" after "more than", "at least"; "upper" after "under".
    ``dimension`` is what a quantity measures (:func:`~veritype.views._dimensions.dimension_of`)
    or what a plain number counts (:func:`~veritype.views._dimensions.counted_noun`).
    """

    kind: ValueKind
    value: float | str
    start: int
    end: int
    text: str
    unit: str = ""
    granularity: Granularity | None = None
    hedged: bool = False
    bound: Literal["", "lower", "upper"] = ""
    # What a quantity measures, when a word beside it says: "length", "depth", ...; what a
    # plain number counts: "item", "day", ...
    dimension: str = ""

    @property
    def label(self) -> str:
        """How the value reads in a trace: ISO form for dates, the surface text otherwise."""
        if self.kind is ValueKind.DATE:
            return str(self.value)
        return " ".join(self.text.split())

    @property
    def words(self) -> tuple[str, ...]:
        """The lower-cased words of a name (empty for other kinds)."""
        return tuple(str(self.value).split()) if self.kind is ValueKind.ENTITY else ()


# --- dates -------------------------------------------------------------------------------

# Only an abbreviated month takes a period, so "on 4 July." leaves the full stop alone.
_MONTH = (
    r"\b(?P<month>(?:January|February|March|April|May|June|July|August|September|October|"
    r"November|December)\b|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?)"
)
_DAY = r"(?<![\w.,])(?P<day>\d{1,2})(?:st|nd|rd|th)?\b"
_YEAR = r"(?<![\w.,])(?P<year>\d{4})(?![\w]|[.,]\d)"
# A weekday in front of a date belongs to the date, so it never becomes a name.
_WEEKDAY = r"(?:\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day,?\s+)?"

# In priority order: a later pattern only claims text no earlier one matched.
_DATE_PATTERNS: tuple[tuple[re.Pattern[str], Granularity], ...] = (
    (re.compile(r"(?<![\w-])(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})(?![\w-])"), "day"),
    (re.compile(rf"{_WEEKDAY}{_MONTH}\s+{_DAY},?\s+{_YEAR}"), "day"),
    (re.compile(rf"{_WEEKDAY}{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}"), "day"),
    (re.compile(rf"{_MONTH},?\s+(?:of\s+)?{_YEAR}"), "month"),
    (re.compile(rf"{_WEEKDAY}{_MONTH}\s+{_DAY}"), "day"),
    (re.compile(rf"{_WEEKDAY}{_DAY}\s+(?:of\s+)?{_MONTH}"), "day"),
)

_MONTH_NUMBERS = {
    name: index
    for index, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
        start=1,
    )
}

_YEAR_RANGE = range(1000, 2100)


def _iso_date(match: re.Match[str], granularity: Granularity) -> str | None:
    """The ISO form of a date match, or None when it names no real calendar day."""
    raw_month = match.group("month")
    month = int(raw_month) if raw_month.isdigit() else _MONTH_NUMBERS[raw_month[:3].lower()]
    groups = match.groupdict()
    year = int(groups["year"]) if groups.get("year") else None
    if granularity == "month":
        return f"{year:04d}-{month:02d}" if 1 <= month <= 12 else None
    day = int(match.group("day"))
    try:
        # 2000 is a leap year, so "29 February" without a year stays valid.
        datetime.date(year if year is not None else 2000, month, day)
    except ValueError:
        return None
    if year is None:
        return f"--{month:02d}-{day:02d}"
    return f"{year:04d}-{month:02d}-{day:02d}"


def _dates(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    found: list[Value] = []
    for pattern, granularity in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            iso = _iso_date(match, granularity)
            if iso is None or not _free(taken, start, end):
                continue
            taken.append((start, end))
            found.append(
                Value(ValueKind.DATE, iso, start, end, match.group(0), granularity=granularity)
            )
    return found


# --- numbers, percentages, money, quantities --------------------------------------------

_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"

_SMALL_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_UNITS_WORDS = "one|two|three|four|five|six|seven|eight|nine"
# A bare "one" is left out: it is far more often a pronoun or determiner ("one of the
# oldest") than a count, and would give nearly every sentence a number.
_NUMBER_WORD = (
    rf"(?:{'|'.join(_TENS)})(?:-(?:{_UNITS_WORDS}))?|"
    + "|".join(sorted((w for w in _SMALL_NUMBERS if w != "one"), key=len, reverse=True))
)

_NUMBER = re.compile(
    rf"(?:(?<![^\s(])(?P<sign>[-\u2212]))?(?<![\w.,])(?P<digits>{_DIGITS})(?![.,]\d)"
    rf"|\b(?P<words>{_NUMBER_WORD})\b",
    re.IGNORECASE,
)

_SCALES = {
    "hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9,
    "trillion": 10**12, "bn": 10**9, "mn": 10**6, "m": 10**6, "k": 10**3,
}
_SCALE = re.compile(r"\s*(?P<scale>(?i:hundred|thousand|million|billion|trillion))\b|\s?bn\b")
# After a currency sign "m" and "k" are scales ("$5m"); elsewhere "5m" is five metres.
_MONEY_SCALE = re.compile(
    r"\s*(?P<scale>(?i:thousand|million|billion|trillion))\b|(?P<abbr>\s?(?:bn|mn|m|k))\b"
)

_MONEY_PREFIX = re.compile(
    r"(?P<currency>US\$|\$|€|£|¥|₹|\b(?:USD|EUR|GBP|JPY|CNY|INR|CHF)\b)\s?"
    rf"(?P<digits>{_DIGITS})(?![.,]\d)"
)
_PERCENT = re.compile(r"\s?%|\s+(?i:per\s?cent)\b")

_HEDGE = re.compile(
    r"\b(?:about|approximately|approx\.?|around|nearly|roughly|some|over|more\s+than|almost)"
    r"\s*$",
    re.IGNORECASE,
)


_LOWER_BOUND = re.compile(
    r"\b(?:more\s+than|over|at\s+least|above|exceeding|upwards\s+of)\s*$", re.IGNORECASE)
# Not "up to": "a range of up to 90 km" states the range's top, which 70 km is not.
_UPPER_BOUND = re.compile(
    r"\b(?:less\s+than|fewer\s+than|under|below|at\s+most)\s*$", re.IGNORECASE)


def _hedged(text: str, start: int) -> bool:
    return _HEDGE.search(text, max(0, start - 30), start) is not None


def _bound(text: str, start: int) -> Literal["", "lower", "upper"]:
    before = max(0, start - 30)
    if _LOWER_BOUND.search(text, before, start):
        return "lower"
    return "upper" if _UPPER_BOUND.search(text, before, start) else ""



def _word_number(words: str) -> int:
    return sum(_SMALL_NUMBERS.get(part, 0) + _TENS.get(part, 0)
               for part in words.lower().split("-"))


def _prefixed_money(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    found: list[Value] = []
    for match in _MONEY_PREFIX.finditer(text):
        amount = Decimal(match.group("digits").replace(",", ""))
        end = match.end()
        scale = _MONEY_SCALE.match(text, end)
        if scale is not None:
            amount *= _SCALES[(scale.group("scale") or scale.group("abbr")).strip().lower()]
            end = scale.end()
        start = match.start()
        if (end < len(text) and text[end].isalnum()) or not _free(taken, start, end):
            continue
        taken.append((start, end))
        found.append(Value(ValueKind.MONEY, float(amount), start, end, text[start:end],
                           unit=currency_code(match.group("currency").strip()),
                           hedged=_hedged(text, start), bound=_bound(text, start)))
    return found


def _numbers(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    found: list[Value] = []
    for match in _NUMBER.finditer(text):
        start, end = match.span()
        digits = match.group("digits")
        if digits is not None:
            amount = Decimal(digits.replace(",", ""))
            if match.group("sign"):
                amount = -amount
        else:
            amount = Decimal(_word_number(match.group("words")))
        scale = _SCALE.match(text, end)
        if scale is not None:
            amount *= _SCALES[(scale.group("scale") or "bn").lower()]
            end = scale.end()
        kind, unit = ValueKind.NUMBER, ""
        if (percent := _PERCENT.match(text, end)) is not None:
            kind, end = ValueKind.PERCENT, percent.end()
        elif (currency := CURRENCY_WORD.match(text, end)) is not None:
            kind, unit = ValueKind.MONEY, currency_code(currency.group("currency"))
            end = currency.end()
        elif (unit_match := UNIT.match(text, end)) is not None:
            alias = unit_match.group("word") or unit_match.group("symbol")
            kind, unit = ValueKind.QUANTITY, unit_named(alias)
            end = unit_match.end()
        # "1980s", "3rd", "A4": digits glued to letters that are no unit are no value; nor
        # are those closing a hyphenated name ("COVID-19", "SARS-CoV-2").
        if (end < len(text) and (text[end].isalnum() or text[end] == "_")) or not _free(
            taken, start, end
        ) or _closes_a_name(text, start) or (
                end == match.end() and _numbers_a_name(text, start, digits)):
            continue
        taken.append((start, end))
        surface = text[start:end]
        if kind is ValueKind.NUMBER and digits is not None and end == match.end() and (
            len(digits) == 4 and digits.isdigit() and int(digits) in _YEAR_RANGE
            and not match.group("sign")
        ):
            found.append(Value(ValueKind.DATE, digits, start, end, surface, granularity="year"))
            continue
        dimension = (dimension_of(text, start, end) if kind is ValueKind.QUANTITY
                     else counted_noun(text, end) if kind is ValueKind.NUMBER else "")
        found.append(Value(kind, float(amount), start, end, surface, unit=unit,
                           hedged=_hedged(text, start), bound=_bound(text, start),
                           dimension=dimension))
    return found


def _closes_a_name(text: str, start: int) -> bool:
    return start >= 2 and text[start - 1] == "-" and text[start - 2].isalpha()


_NAME_BEFORE = re.compile(r"(?P<word>[A-Z]\w*) $")
_SENTENCE_OPENING = re.compile(r"(?:^|[.!?:;\n]\s*|^\W+)$")


def _numbers_a_name(text: str, start: int, digits: str | None) -> bool:
    """Whether a bare whole number is part of the name before it, a model or a mission
    ("the Pixelon 8", "The Arvena Book 16"): one space after a capitalised word that is no
    common word and does not open the sentence ("Series 1 aired ..." may be any series),
    and no year (a year after a name is a date: "Paris 1924")."""
    if digits is None or not digits.isdigit() or len(digits) > 3:
        return False
    before = _NAME_BEFORE.search(text, max(0, start - 40), start)
    return (before is not None and before.group("word").lower() not in _COMMON
            and _SENTENCE_OPENING.search(text, 0, before.start()) is None)


# --- names -------------------------------------------------------------------------------

_WORD = re.compile(r"\w+(?:['\u2019.\-]\w+)*")
_CONNECTORS = frozenset({"de", "du", "des", "la", "le", "of", "the", "von", "van", "der",
                         "den", "da", "di", "del"})
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "prof", "st", "mt", "ft", "gen", "gov", "sen",
                     "rev", "capt", "col", "lt", "sgt"})
# Capitalised only because they open a sentence, or common enough never to be a name alone.
_COMMON = STOPWORDS | NEGATIONS | frozenset(
    {"however", "although", "though", "because", "yes", "today", "yesterday", "tomorrow",
     "many", "several", "according", "despite", "unlike", "like", "yet", "moreover",
     "furthermore", "nevertheless", "meanwhile", "later", "earlier", "first", "finally",
     "thus", "hence", "therefore", "instead", "perhaps", "maybe", "every", "another",
     "overall", "currently", "initially", "originally", "now", "following", "approximately",
     "around", "nearly", "roughly", "almost", "approx"}
)


def _normal_word(word: str) -> str:
    """Lower case, and a possessive's "'s" dropped: "Shakespeare's plays" names Shakespeare."""
    word = word.lower().replace("\u2019", "'")
    return word[:-2] if word.endswith("'s") and len(word) > 2 else word


def text_words(text: str) -> tuple[str, ...]:
    return tuple(_normal_word(m.group(0)) for m in _WORD.finditer(text))


def _joined(text: str, previous: re.Match[str], word: re.Match[str]) -> bool:
    """Whether two words are adjacent parts of one name: only spaces between them, or
    the period of a title ("Dr. Watson", "St. Louis") or of an initial before a name
    ("John A. Roebling")."""
    gap = text[previous.end() : word.start()]
    initial = (len(previous.group(0)) == 1 and previous.group(0).isupper()
               and _capitalised(word.group(0)) and word.group(0).lower() not in _COMMON)
    if gap.startswith(".") and (previous.group(0).lower() in _TITLES or initial):
        gap = gap[1:]
    return gap.isspace()


def _capitalised(word: str) -> bool:
    return word[0].isupper()


def _entities(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    initial: set[int] = set()
    for start, end in sentence_spans(text):
        first = _WORD.search(text, start, end)
        if first is not None:
            initial.add(first.start())
    words = [m for m in _WORD.finditer(text) if _free(taken, m.start(), m.end())]
    found: list[Value] = []
    i = 0
    while i < len(words):
        if not _capitalised(words[i].group(0)):
            i += 1
            continue
        run = [words[i]]
        i += 1
        while i < len(words) and _joined(text, words[i - 1], words[i]):
            word = words[i].group(0)
            if not _capitalised(word) and word.lower() not in _CONNECTORS and not (
                    word.isdigit() and _capitalised(words[i - 1].group(0))):
                break
            run.append(words[i])
            i += 1
        if run[0].start() in initial and run[0].group(0).lower() in _COMMON:
            run = run[1:]
        while run and not _capitalised(run[0].group(0)):
            run = run[1:]
        while run and not (_capitalised(run[-1].group(0)) or run[-1].group(0).isdigit()):
            run.pop()
        if not run or all(w.group(0).lower() in _COMMON for w in run):
            continue
        start, end = run[0].start(), run[-1].end()
        name = " ".join(_normal_word(w.group(0)) for w in run)
        found.append(Value(ValueKind.ENTITY, name, start, end, text[start:end]))
    return found


# --- extraction and comparison -----------------------------------------------------------


def _free(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= s or start >= e for s, e in taken)


def extract_values(text: str) -> list[Value]:
    """Every checkable value of ``text`` in text order; no character belongs to two values.

    Dates are found first, so "31 March 1889" is one date and not a number and a year;
    then money with a currency sign, then numbers with what follows them (scale word,
    percent, currency word or unit), then names among the words left over.
    """
    taken: list[tuple[int, int]] = []
    values = _dates(text, taken)
    values += _prefixed_money(text, taken)
    values += _numbers(text, taken)
    values += _entities(text, taken)
    return sorted(values, key=lambda v: (v.start, v.end))
