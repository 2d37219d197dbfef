"""Where a sentence's finite verb stands: "prices rise" has one, "the 2019 release" none.

A word's possible verb forms come from the lexicon in ``veritype._verbs``; whether it is a
verb where it stands is read here from the words around it.
"""

from __future__ import annotations

import re

from veritype._text import STOPWORDS
from veritype._verbs import AUXILIARY_WORDS, BASE_FORMS, VerbForm, verb_forms

# Words that make the word after them a noun or an adjective: "the release", "a limited
# edition", "in 1989 released", "its first release".
NOMINAL_CUES = frozenset(
    """a an the this these those each every some any no its his her their our your my another
    whose what both either neither all many much several few such first second third last
    next final new latest original former previous recent initial official upcoming most more
    less least very of in on at to for from by with without into onto upon over under about
    above below between among through during before after since until as than via per across
    along around behind beyond near within against towards toward despite""".split()  # noqa: SIM905
)
_PLURAL_SUBJECTS = frozenset({"i", "you", "we", "they", "who", "which"})
_SINGULAR_SUBJECTS = frozenset({"he", "she", "it", "who", "which", "that"})
_IRREGULAR_PLURALS = frozenset(
    {"people", "children", "men", "women", "police", "data", "media", "cattle", "feet", "teeth"}
)
# Adverbs a verb can stand behind ("the wall finally fell"): read past to find its subject.
_ADVERBS = frozenset(
    """also already always eventually finally first just later never not now often once only
    soon still then even""".split()  # noqa: SIM905
)
# Words in -ly that are nouns, verbs or names, not adverbs.
_NOT_ADVERBS = frozenset(
    {"family", "supply", "reply", "apply", "assembly", "rally", "monopoly", "anomaly", "belly",
     "jelly", "bully", "comply", "multiply", "italy", "sicily", "emily", "kelly", "holly",
     "molly", "beverly"}
)
# Words in -ed that are no past tense.
_NOT_PAST = frozenset(
    {"hundred", "sacred", "naked", "wicked", "kindred", "rugged", "ragged", "infrared",
     "indeed", "embed", "biped", "moped", "sled", "shred"}
)
_CONTRACTED_VERB = re.compile(r"(?:n't|['\u2019](?:re|m|ve|ll|d))$", re.IGNORECASE)
_CONTRACTED_IS = re.compile(
    r"(?:it|he|she|that|there|what|who|here)['\u2019]s$", re.IGNORECASE
)
# Words ("K2", "well-known", "it's"), numbers ("8,611", "1990s") and punctuation marks.
_WORD = re.compile(r"\d[\d,.:/]*\w*|\w+(?:[-'\u2019]\w+)*|[^\w\s]")
_AUXILIARIES = AUXILIARY_WORDS | {"am"}


def is_adverb(word: str) -> bool:
    return word in _ADVERBS or (
        word.endswith("ly") and len(word) > 4 and word not in _NOT_ADVERBS
    )


def is_regular_past(word: str) -> bool:
    """Whether the lower-case ``word`` reads as a regular past ("opened", "agreed", "died")."""
    if not word.endswith("ed") or len(word) < 4 or word in _NOT_PAST:
        return False
    # "agreed" is a past, "speed" and "proceed" are bases.
    return not word.endswith("eed") or word[:-1] in BASE_FORMS


def _word_before(words: list[str], index: int) -> int | None:
    """The index of the word the verb candidate at ``index`` follows, adverbs skipped; None
    at the start of the text or after punctuation."""
    index -= 1
    while index >= 0 and is_adverb(words[index].lower()):
        index -= 1
    if index < 0 or not words[index][:1].isalnum():
        return None
    return index


def _is_nominal_number(words: list[str], index: int | None) -> bool:
    """Whether ``words[index]`` is a number that makes the word after it a noun ("the 2019
    release", "in 1989 released"), not the end of a name ("Apollo 11 landed")."""
    if index is None or not words[index][:1].isdigit():
        return False
    name = words[index - 1] if index > 0 else ""
    return not name[:1].isupper() or name.lower() in STOPWORDS or name.lower() in NOMINAL_CUES


def _agrees_as_subject(subject: str, form: VerbForm, *, opens: bool) -> bool:
    """Whether ``subject``, the word before a present-tense form, can be its subject:
    "they release", "prices rise", "the Nile flows", but not "the 2019 release". A word that
    ``opens`` the text is capitalised either way, so one in -s may be a plural ("Prices rise")
    or a name ("Paris lies")."""
    lower = subject.lower()
    if lower in _PLURAL_SUBJECTS or lower in _SINGULAR_SUBJECTS:
        return lower in (_PLURAL_SUBJECTS if form is VerbForm.BASE else _SINGULAR_SUBJECTS)
    if lower in STOPWORDS or lower in NOMINAL_CUES or not subject[:1].isalpha():
        return False
    plural = lower in _IRREGULAR_PLURALS or (
        lower.endswith("s") and not lower.endswith(("ss", "us", "is")))
    if opens:
        return plural or form is VerbForm.THIRD_PERSON
    plural = plural and not subject[:1].isupper()
    return plural if form is VerbForm.BASE else not plural


def _is_verb_at(words: list[str], index: int) -> bool:
    """Whether ``words[index]`` is a finite verb where it stands."""
    word = words[index]
    lower = word.lower()
    following = words[index + 1] if index + 1 < len(words) else ""
    before = _word_before(words, index)
    cue = "" if before is None else words[before].lower()
    if lower in _AUXILIARIES:
        if word[:1].isupper():
            # "Was built in 1889." opens with its verb; "May 1883" and "Will Smith" do not.
            return following[:1].islower()
        return cue not in NOMINAL_CUES
    if _CONTRACTED_VERB.search(word) or _CONTRACTED_IS.match(word):
        return True
    if index == 0 or word[:1].isupper():
        # The first word is the subject; a capitalised word inside is a name.
        return False
    if cue in NOMINAL_CUES or cue.endswith(("'s", "\u2019s")) or _is_nominal_number(
            words, before) or (cue, lower) == ("korean", "won"):
        # After a possessive it is a noun ("the women's record"); the Korean won is a
        # currency, the one past tense that names something common.
        return False
    forms = verb_forms(lower)
    if VerbForm.PAST in forms or is_regular_past(lower):
        # After an appositive too: "Tower Bridge, a bascule bridge, opened in 1894".
        return True
    if before is None:
        # After an appositive: "Cairo, the capital of Egypt, lies on the Nile".
        return words[index - 1] == "," and VerbForm.THIRD_PERSON in forms
    if words[before][:1].isdigit() and before > 0:
        # A number that ends a name leaves the name as the subject: "The Kestrel 3 weighs".
        before -= 1
    return any(_agrees_as_subject(words[before], form, opens=before == 0)
               for form in forms if form in (VerbForm.BASE, VerbForm.THIRD_PERSON))


def first_verb(text: str) -> int | None:
    """The offset in ``text`` of its first finite verb, None when it has none.

    Auxiliaries always count ("was", "has", "will"); a past tense ("fell", "opened") counts
    unless a determiner, preposition or number before it makes it a noun or adjective ("the
    limited edition"); a present tense ("rise", "flows") counts after a subject it agrees
    with ("prices rise", "the Nile flows"), not after a determiner ("the 2019 release").
    """
    matches = list(_WORD.finditer(text))
    words = [match.group(0) for match in matches]
    for index, match in enumerate(matches):
        if words[index][:1].isalpha() and _is_verb_at(words, index):
            return match.start()
    return None


def has_verb(text: str) -> bool:
    """Whether ``text`` has a finite verb: a statement, not a bare phrase such as a name, a
    date or "The 2019 release."."""
    return first_verb(text) is not None
