"""Text primitives shared by the core: sentence spans, tokens and content words.

Everything here works on character offsets into the original string, so that a
claim or a citation can always point back to the exact characters it came from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from veritype._tables import is_separator, is_table_line
from veritype._verbs import forms_of

# Abbreviations whose trailing period does not end a sentence (compared lower-case,
# without the final period); "b.", "d.", "c." and "fl." as in "(b. 1980)".
_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt ft gen gov sen rep col lt capt sgt rev hon inc ltd co
    corp bros vs etc approx dept est fig figs no nos vol vols pp ed eds al cf ca jan feb
    mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun e.g i.e u.s u.k
    u.n a.m p.m ph.d b.c a.d op ref b d c fl""".split()  # noqa: SIM905
)

_CLOSERS = "\"')]}\u201d\u2019"
_TERMINATORS = ".!?"
_WORD_BEFORE = re.compile(r"([^\W\d_](?:[^\W\d_]|\.)*)$")
# How far back the word before a period is read: longer than any abbreviation, and short
# enough that splitting stays linear in the length of the text.
_LOOKBEHIND = 40


def _ends_sentence(text: str, index: int) -> bool:
    """Whether the terminator at ``index`` closes a sentence."""
    char = text[index]
    nxt = text[index + 1] if index + 1 < len(text) else ""
    if char == ".":
        # Decimal point or version number: "3.5", "v1.2".
        if nxt.isdigit():
            return False
        match = _WORD_BEFORE.search(text, max(0, index - _LOOKBEHIND), index)
        if match is not None:
            word = match.group(1).lower()
            if word in _ABBREVIATIONS:
                return False
            # Single initials such as "J. R. R. Tolkien".
            if len(word) == 1 and text[match.start()].isupper():
                return False
        # Ellipsis inside a sentence: "wait... and see".
        if nxt == ".":
            return False
    return True


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into sentences, returned as ``(start, end)`` character offsets.

    Leading and trailing whitespace is excluded from each span. The splitter keeps
    abbreviations ("Dr.", "e.g.", "Jan."), decimals ("3.5") and initials together,
    and a terminator inside quotes ends the sentence after the closing quote.
    """
    return list(iter_sentence_spans(text))


def iter_sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """The spans of :func:`sentence_spans` one at a time, in linear time, so a long text is
    never held as a list of spans."""
    start = 0
    i = 0
    length = len(text)
    while i < length:
        char = text[i]
        if (i == 0 or text[i - 1] == "\n") and char in " \t|":
            # Each line of a Markdown table is a sentence of its own, its separator none.
            line_end = text.find("\n", i)
            line_end = length if line_end < 0 else line_end
            line = text[i:line_end]
            if is_table_line(line):
                yield from _trimmed(text, start, i)
                if not is_separator(line):
                    yield from _trimmed(text, i, line_end)
                start = i = line_end
                continue
        if char == "\n" and i + 1 < length and text[i + 1] == "\n":
            # A blank line always ends a sentence (paragraphs, list items).
            yield from _trimmed(text, start, i)
            start = i
            i += 2
            continue
        if char in _TERMINATORS and _ends_sentence(text, i):
            end = i + 1
            while end < length and text[end] in _TERMINATORS:
                end += 1
            while end < length and text[end] in _CLOSERS:
                end += 1
            if end >= length or text[end].isspace() or _glued_sentence(text, i, end):
                nxt = _next_non_space(text, end)
                # A lower-case word goes on the sentence: "e.g. the" after an unknown
                # abbreviation, and titles that end in "!" or "?" ("Help!" is a song).
                if nxt is None or not text[nxt].islower():
                    yield from _trimmed(text, start, end)
                    start = end
                i = end
                continue
        i += 1
    yield from _trimmed(text, start, length)


def _glued_sentence(text: str, terminator: int, end: int) -> bool:
    """Whether a sentence starts right after the terminator, with no space between: texts
    joined from paragraphs read "... in the 19th century.First for Women is ...". A word of
    two or more letters (or a number, or a closing bracket) ends there, and a capitalised
    word begins; "Ph.D." and "U.S.Army" do not, nor do abbreviations ("St.Louis"), which
    :func:`_ends_sentence` has already kept."""
    before = text[terminator - 1] if terminator > 0 else ""
    return (
        end + 1 < len(text)
        and text[end].isupper()
        and text[end + 1].islower()
        and (before.islower() or before.isdigit() or before in _CLOSERS)
        and (terminator < 2 or not text[terminator - 2].isspace() or before.isdigit())
    )


# C0 controls and DEL, except the whitespace ones (tab, newline, form feed, return).
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f]")


def without_controls(text: str) -> tuple[str, int]:
    """``text`` with control characters (NUL among them) replaced by spaces, and how many
    there were. Offsets are unchanged, so spans into the result are spans into ``text``."""
    return _CONTROL.subn(" ", text)


def _next_non_space(text: str, index: int) -> int | None:
    while index < len(text):
        if not text[index].isspace():
            return index
        index += 1
    return None


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` without surrounding whitespace, unless nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        yield start, end


# A capital letter of the Latin scripts ("Østerby", "Ångström", "Émile"), for patterns of names.
UPPER = "A-Z\u00c0-\u00d6\u00d8-\u00de"
# Letters of any script ("Holmø", "café"), digits, and the marks inside a word.
_TOKEN = re.compile(r"[^\W_]+(?:[.,'\u2019-][^\W_]+)*")


def tokens(text: str) -> Iterator[re.Match[str]]:
    """Word tokens with their offsets; keeps "1,000", "3.5", "don't" and "well-known" whole."""
    return _TOKEN.finditer(text)


ARTICLES = frozenset({"a", "an", "the"})

STOPWORDS = frozenset(
    """a an the and or but if then else of in on at to for from by with without into onto
    upon over under about above below between among through during before after since
    until as than that this these those there here is are was were be been being am do
    does did doing have has had having will would shall should can could may might must it
    its it's he him his she her hers they them their theirs we us our ours you your yours
    i me my mine who whom whose which what when where why how all any both each few more
    most other some such only own same so too very just also s t also well up down out off
    again further once one's per via upon whether while""".split()  # noqa: SIM905
)

NEGATIONS = frozenset(
    """not no never none nobody nothing neither nor nowhere cannot can't don't doesn't didn't
    isn't aren't wasn't weren't won't wouldn't shouldn't couldn't hasn't haven't hadn't
    without n't""".split()  # noqa: SIM905
)
# Words that are no content words: stopwords and negations.
_NOT_CONTENT = STOPWORDS | NEGATIONS

# A Markdown heading line ("## Kunsthall Varn"); group 1 is its text.
HEADING = re.compile(r"#{1,6}[ \t]+(.+?)[ \t#]*$")
# A sentence opening with one of these leans on an earlier sentence for what it is about
# ("It was completed in 1889.", "These results ..."): claims, decomposition and evidence
# windows all look back one sentence for it.
ANAPHORIC_LEAD = re.compile(
    r"(?:he|she|it|they|its|his|her|their|this|that|these|those)\b", re.IGNORECASE
)
# Besides a pronoun, a definite description with a common noun ("The bridge ...") usually
# points back to a name given earlier.
DEFINITE_DESCRIPTION = re.compile(r"The\s+[a-z]")


# "may" the modal, not May the month: lower-case anywhere, or capitalised at a sentence start
# when no day or year follows ("May 24, 1883" is a date). For patterns that ignore case.
MODAL_MAY = r"(?-i:\bmay\b|(?:^|(?<=[.!?]\s))May\b(?!\s+\d))"


def normalise_word(word: str) -> str:
    """Lower-case a word and strip a light English suffix so inflections match.

    A tiny stemmer, on purpose: "opened" / "opens" / "opening" → "open",
    "studies" → "study", "tallest" stays itself. Precision matters more than recall here.
    """
    word = word.lower().replace("\u2019", "'")
    if word.endswith("'s"):
        word = word[:-2]
    if not word.isalpha() or len(word) <= 3:
        return word
    for suffix, replacement in (("ies", "y"), ("ied", "y"), ("sses", "ss")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + replacement
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            if suffix == "s" and stem.endswith(("s", "u", "i")):
                return word
            if suffix in ("ing", "ed") and len(stem) > 2 and stem[-1] == stem[-2]:
                stem = stem[:-1]
            return stem
    return word


# Suffixes that make a noun of a verb: "renewal" of "renew", "entertainment" of "entertain".
_NOUN_SUFFIXES = ("ment", "al")


def word_family(word: str) -> str:
    """A normalised word (``normalise_word``) without a suffix that makes a noun of a verb, so
    that "renewal" and "renewed", "entertainment" and "entertaining" meet, and without a final
    "e", which the light stemmer keeps in "employee" and "charge" but cuts with "-es" and
    "-ed" ("employees", "charged")."""
    stem = normalise_word(word)
    for suffix in _NOUN_SUFFIXES:
        if stem.endswith(suffix) and len(stem) - len(suffix) >= 4:
            return stem[: -len(suffix)]
    bare = stem.rstrip("e")
    return bare if len(bare) >= 2 else stem


def content_words(text: str) -> list[str]:
    """Normalised content words of ``text``, in order, stopwords and negations removed."""
    words: list[str] = []
    for match in tokens(text):
        raw = match.group(0).lower().replace("\u2019", "'")
        if raw in _NOT_CONTENT:
            continue
        words.append(normalise_word(raw))
    return words


def content_families(text: str) -> set[str]:
    """The word families (``word_family``) of the content words of ``text``."""
    return {word_family(match.group(0)) for match in tokens(text)
            if match.group(0).lower().replace("\u2019", "'") not in _NOT_CONTENT}


def has_negation(text: str) -> bool:
    """Whether ``text`` contains a negation word ("not", "never", "no", "n't", ...)."""
    return has_word_of(text, NEGATIONS)


def has_word_of(text: str, words: frozenset[str]) -> bool:
    """Whether a word of ``text`` is in ``words`` or is a contracted negation ("isn't")."""
    for match in tokens(text):
        raw = match.group(0).lower().replace("\u2019", "'")
        if raw in words or raw.endswith("n't"):
            return True
    return False


# A hedge that only weakens a claim: "The Pixelon 8 Pro reportedly costs 799 euros" says
# less than "The Pixelon 8 Pro costs 799 euros".
_HEDGE_ADVERB = re.compile(r"\b(?:reportedly|probably|likely|possibly|perhaps|apparently)\s+",
                           re.IGNORECASE)
_HEDGE_REPORT = re.compile(
    r"\b(is|are)\s+(?:thought|believed|said|reported|estimated)\s+to\s+(have\s+been|be|[a-z]+)\b")


def unhedged(claim: str) -> str:
    """``claim`` without the hedges that only weaken it ("probably", "reportedly", "is
    thought to be"): "The human genome is thought to contain around 3 billion base pairs"
    → "The human genome contains around 3 billion base pairs"."""
    def plain(match: re.Match[str]) -> str:
        verb, then = match.group(1), match.group(2)
        if then == "be":
            return verb
        if then.startswith("have"):
            return "was" if verb == "is" else "were"
        if verb == "are":
            return then
        third = [form for form in forms_of(then) if form.endswith("s") and form != then]
        return min(third, key=len) if third else match.group(0)

    return _HEDGE_REPORT.sub(plain, _HEDGE_ADVERB.sub("", claim))


# Surface variants that never change what a text states: thousands separators, and British
# spellings whose American forms are the same words (metre/meter, colour/color,
# organise/organize, anaemia/anemia, catalogue/catalog, travelled/traveled, programme).
_DIGIT_GROUP = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_SPELLINGS = tuple((re.compile(pattern, re.IGNORECASE), american) for pattern, american in (
    (r"\b(\w+?)tre(s?)\b", r"\1ter\2"),
    (r"\b(col|flav|harb|hon|lab|neighb|behavi|hum|rum|vap|fav|arm|od|vig|rig|parl|savo)our",
     r"\1or"),
    (r"\b(\w{3,}?)is(e|ed|es|ing|ation|ations)\b", r"\1iz\2"),
    (r"\b(anal|paral|catal)ys(e|ed|es|ing)\b", r"\1yz\2"),
    (r"\b(an|h|p|orthop|gynec|leuk|encyclop|arch|pal)ae", r"\1e"),
    (r"\b(oest|foet|manoe|oesoph)", lambda m: m.group(1).replace("oe", "e")),
    (r"\b(catal|dial|anal|monol|prol|epil)ogue(s?)\b", r"\1og\2"),
    (r"\b(trave|mode|labe|cance|fue|signa|channe|tunne|jewe|counse)ll(ed|ing|er|ers)\b",
     r"\1l\2"),
    (r"\bprogrammes?\b", "program"),
    (r"\baluminium\b", "aluminum"),
    (r"\bgrey\b", "gray"),
))
# "The Hoover Dam" and "Hoover Dam" name the same thing: a sentence-initial article before a name.
_LEADING_ARTICLE = re.compile(r"(^|(?<=[.!?;]\s))The\s+(?=[A-Z0-9])")


# A window's readings are compared with every claim of a batch: each is made canonical once.
@lru_cache(maxsize=4096)
def surface_canonical(text: str) -> str:
    """``text`` with what a restatement may change without changing what it states set
    aside: spacing, thousands separators, British spellings and a sentence-initial "The"
    before a name. Compared only with another canonical text, never shown."""
    text = _LEADING_ARTICLE.sub(r"\1", " ".join(text.split()))
    text = _DIGIT_GROUP.sub("", text)
    for pattern, american in _SPELLINGS:
        text = pattern.sub(american, text)
    return text


# A number with its digit groups ("7,300"), or a word.
_SURFACE_TOKEN = re.compile(r"\d{1,3}(?:,\d{3})+(?!\d)|\w+")


@lru_cache(maxsize=4096)
def _writings(evidence: str) -> dict[str, str]:
    """How ``evidence`` writes each of its words and numbers, by canonical form."""
    written: dict[str, str] = {}
    for match in _SURFACE_TOKEN.finditer(evidence):
        written.setdefault(surface_canonical(match.group(0)).lower(), match.group(0))
    return written


def in_evidence_writing(claim: str, evidence: str) -> str:
    """``claim`` with each number and word that ``evidence`` writes another way (digit groups,
    British or American spelling: "7300" / "7,300", "anemia" / "anaemia") written as the
    evidence writes it, its capital kept, so that a model reads both in one spelling."""
    written = _writings(evidence)

    def rewrite(match: re.Match[str]) -> str:
        word = match.group(0)
        theirs = written.get(surface_canonical(word).lower())
        if theirs is None or theirs.lower() == word.lower():
            return word
        return theirs[0].upper() + theirs[1:] if word[0].isupper() else theirs.lower()

    return _SURFACE_TOKEN.sub(rewrite, claim)


def as_sentence(text: str) -> str:
    """A claim as a model reads it best: one line, a capital first letter and a full stop,
    so that neither its case nor a missing full stop changes a model's verdict."""
    text = " ".join(text.split())
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    return text if not text or text[-1] in ".!?" else text + "."


def json_object(text: str, what: str, error: Callable[[str], Exception]) -> dict[str, Any]:
    """``text`` parsed as a JSON object; ``error(message)`` naming ``what`` when it is not."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as problem:
        raise error(f"{what}: not valid JSON ({problem})") from None
    if not isinstance(data, dict):
        raise error(f"{what}: expected a JSON object")
    return data
