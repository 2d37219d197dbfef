"""A bare answer and its question as the one statement they make together.

"Is the Eiffel Tower in Paris? no" states "The Eiffel Tower is not in Paris."; "Which was
released first, The True Glory or American Pimp? The True Glory" states "The True Glory was
released first."; "Does the Landseer or English Mastiff have a limited range of colors?
English Mastiff" states "English Mastiff does have a limited range of colors.". Glued
together, a question and its answer are no statement: a context that names every option
entails the glued text whichever option was chosen.

The rules are word order only: an auxiliary-first question puts its auxiliary (with "not"
for "no") after its subject, and keeps the verb as the auxiliary leaves it ("did star"); a
question that offers options ("X or Y") has the chosen one in their place, or in the place
of its question word ("Which band", "Who"). A yes or no of two subjects at once ("Are X and
Y both documentaries?") is left as it was given: one entailment does not settle it, as the
subject the contexts state carries the other, and "no" says only that one of them is not.
Anything else the rules cannot write gives None.
"""

from __future__ import annotations

import re

from veritype._text import ARTICLES
from veritype._verbs import AUXILIARY_WORDS, VerbForm, verb_forms

_TOKEN = re.compile(r"[\w'\u2019&.-]+|[^\w\s]")
_POLAR = {"yes": True, "no": False}
# Words inside a name ("In Search of the Second Amendment", "Ludwig van Beethoven") or
# joining two: no predicate starts with them.
_INSIDE_NAMES = frozenset({"and", "of", "de", "von", "van", "der", "den", "la", "le", "del",
                           "da", "du", "di", "&"})
# Words a predicate may open with before its verb: "both documentaries", "ever win".
_PREDICATE_OPENERS = frozenset({"both", "either", "all", "each", "ever", "also", "really",
                                "still", "actually"})
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "my", "your",
                          "our", "its", "their", "his", "her", "every", "each"})
# What may open a subject of two: "Are both Liam Gallagher and Deron Miller known ...".
_BOTH = frozenset({"both", "either", "neither"})
_OF_SEVERAL = _BOTH | {"all", "each"}
# Auxiliaries whose verb stands in its base form: "Does the library charge".
_TAKING_BASE_FORMS = frozenset({"do", "does", "did", "can", "could", "will", "would", "shall",
                                "should", "may", "might", "must"})
_PRONOUNS = frozenset({"they", "it", "he", "she", "we", "you", "i"})
_QUESTION_WORDS = frozenset({"which", "who", "what"})


def answered_statement(question: str, answer: str) -> str | None:
    """The statement ``question`` and its bare ``answer`` make together (see the module's
    rules), or None when the rules cannot write it."""
    words = _TOKEN.findall(question.strip().rstrip("?").strip())
    given = _TOKEN.findall(answer.strip().rstrip(".!").strip())
    answered = [word.lower() for word in given]
    if not words or not answered:
        return None
    if len(answered) == 1 and answered[0] in _POLAR:
        return _polar(words, affirmed=_POLAR[answered[0]])
    chosen = _with_option(words, answered)
    if chosen is None:
        return None
    if chosen[0].lower() in AUXILIARY_WORDS:
        return _polar(chosen, affirmed=True)
    if chosen[0].lower() in _QUESTION_WORDS:
        return _in_place_of_question_word(chosen, given)
    return None


def _polar(words: list[str], *, affirmed: bool) -> str | None:
    """"Did Holly Hunter star in The Piano first" as "Holly Hunter did star in The Piano
    first."; a question that asks after a comma keeps what comes before it: its subject
    ("Lou Gramm, is American") or a statement of its own ("Lou Gramm, is he American")."""
    negation = "" if affirmed else " not"
    if "," in words:
        comma = len(words) - 1 - words[::-1].index(",")
        before, after = words[:comma], words[comma + 1:]
        if len(after) > 1 and after[0].lower() in AUXILIARY_WORDS:
            if after[1].lower() not in _PRONOUNS and all(
                    word.lower() not in AUXILIARY_WORDS for word in before):
                if not _of_one(before, after[1:]):
                    return None
                return _sentence(f"{_joined(before)} {after[0].lower()}{negation} "
                                 f"{_joined(after[1:])}")
            asked = _polar(after, affirmed=affirmed)
            return None if asked is None else _sentence(
                f"{_joined(before)}, {_lower_pronoun(asked.rstrip('.'))}")
    auxiliary = words[0].lower()
    if auxiliary not in AUXILIARY_WORDS or len(words) < 3:
        return None
    rest = words[1:]
    end = _subject_end(rest, auxiliary)
    if end is None or not _of_one(rest[:end], rest[end:]):
        return None
    statement = f"{_joined(rest[:end])} {auxiliary}{negation} {_joined(rest[end:])}"
    return _sentence(statement.replace(" not ever ", " never "))


def _of_one(subject: list[str], predicate: list[str]) -> bool:
    """Whether a yes or no speaks of one subject: "Are X and Y both documentaries?" asks
    of two at once, which one statement's entailment does not settle (the one stated in
    the contexts carries the other), and "no" to it says only that one of them is not."""
    said = [word.lower() for word in subject]
    return "and" not in said and not _OF_SEVERAL & set(said) and not (
        predicate and predicate[0].lower() in _OF_SEVERAL)


def _subject_end(words: list[str], auxiliary: str) -> int | None:
    """Where the subject after a question's auxiliary ends: a pronoun alone; a subject that
    opens on a name ("Holly Hunter", "the band Texas and the singer Eagle-Eye Cherry") at the
    first word that opens a predicate ("both") or else at the first lower-case word after
    the names that is no part of a name; any other subject as :func:`_common_subject_end`
    reads it."""
    if words[0].lower() in _PRONOUNS:
        return 1
    opener = next((index for index, word in enumerate(words)
                   if index and word.lower() in _PREDICATE_OPENERS), None)
    named, end = False, None
    for index, word in enumerate(words):
        lower = word.lower()
        if _names(word):
            named = True
        elif not named and (lower in _DETERMINERS | _BOTH or _describes_a_name(words, index)):
            continue
        elif not named:
            break
        elif lower not in _INSIDE_NAMES and word[:1].isalpha() and not (
                lower in ARTICLES and words[index - 1].lower() in _INSIDE_NAMES):
            end = index
            break
    # "the band Texas and the singer Eagle-Eye Cherry both originate": a predicate's opener
    # ends the subject past its lower-case nouns, unless a comma stands before it ("... the
    # older brother of Titus Davis, also a wide receiver").
    if opener is not None and (end is None or "," not in words[end:opener]):
        return opener
    return end if named else _common_subject_end(words, auxiliary)


def _describes_a_name(words: list[str], index: int) -> bool:
    """Whether ``words[index]`` is a noun between a determiner and a name: "the band Texas"."""
    return (0 < index < len(words) - 1 and words[index - 1].lower() in _DETERMINERS
            and words[index + 1][:1].isupper())


def _common_subject_end(words: list[str], auxiliary: str) -> int | None:
    """Where a subject that names nothing ends: after a bare noun ("Can members renew"),
    before the verb a "do" or a modal leaves in its base form ("Does the library charge"),
    else after a determiner and its noun ("Is the museum open", "Is the children's section
    open")."""
    if words[0][:1].islower() and words[0].lower() not in _DETERMINERS:
        return 1  # a bare noun: "Can members renew"
    if auxiliary in _TAKING_BASE_FORMS:
        return next((index for index, word in enumerate(words)
                     if index and VerbForm.BASE in verb_forms(word.lower())), None)
    if words[0].lower() not in _DETERMINERS or len(words) < 3:
        return None
    index = 2
    while index < len(words) - 1 and words[index - 1].lower().endswith(("'s", "\u2019s")):
        index += 1
    return index


def _with_option(words: list[str], answered: list[str]) -> list[str] | None:
    """The question with the option the answer chose in place of "X or Y"; None when the
    question offers no option that the answer names."""
    lowered = [word.lower() for word in words]
    bare = [word for word in answered if word not in ARTICLES]
    if not bare:
        return None
    for at, word in enumerate(lowered):
        if word != "or" or not 0 < at < len(words) - 1:
            continue
        after = _skip_article(lowered, at + 1)
        if lowered[after:after + len(bare)] == bare:
            start = _option_start(words, at, len(bare))
            return [*words[:start], *words[at + 1:after + len(bare)],
                    *words[after + len(bare):]]
        before = at - len(bare)
        if before >= 0 and lowered[before:at] == bare:
            # ", X or Y" closes the question: Y runs to its end ("the Verhoeven family").
            listed = words[before - 1 - (lowered[before - 1] in ARTICLES)] == "," \
                if before > 1 else False
            stop = len(words) if listed else _option_stop(words, at, len(bare))
            return [*words[:at], *words[stop:]]
    return None


def _option_start(words: list[str], at: int, length: int) -> int:
    """Where the option before "or" at ``at`` starts: after a comma, at the start of the
    name that ends there (an article before it included), or as many words back as the
    other option has."""
    unnamed = [index for index in range(at - 1, -1, -1)
               if not (_names(words[index])
                       or (words[index].lower() in _INSIDE_NAMES and index != at - 1))]
    start = (unnamed[0] + 1) if unnamed else 0
    named = start != at
    if not named:  # "the older or younger brother"
        start = max(at - length, 0)
    if named and start and words[start - 1].lower() in ARTICLES:
        start -= 1
    if start and words[start - 1] == ",":
        return start - 1
    return start


def _option_stop(words: list[str], at: int, length: int) -> int:
    """Where the option after "or" at ``at`` ends: at the end of the name it starts, or as
    many words on as the other option has."""
    index = _skip_article([w.lower() for w in words], at + 1)
    if index < len(words) and _names(words[index]):
        while index < len(words) and (_names(words[index])
                                      or words[index].lower() in _INSIDE_NAMES - {"and"}):
            index += 1
        return index
    return min(index + length, len(words))


def _in_place_of_question_word(words: list[str], answer: list[str]) -> str | None:
    """"Which band was formed first The Primitives" as "The Primitives was formed first.":
    the question word and the nouns after it give way to the answer, which the question's
    verb follows."""
    lowered, asked = [word.lower() for word in words], [word.lower() for word in answer]
    answer_at = next((index for index in range(len(words))
                      if lowered[index:index + len(asked)] == asked), None)
    if answer_at is None:
        return None
    stem = [w for w in words[:answer_at] if w != ","]
    tail = words[answer_at + len(answer):]
    for index, word in enumerate(stem[1:], start=1):
        lower = word.lower()
        forms = verb_forms(lower)
        if lower in {"do", "does", "did"}:
            return None  # "Which bridge did Roebling design": the answer is its object
        if (lower in AUXILIARY_WORDS or VerbForm.PAST in forms
                or VerbForm.THIRD_PERSON in forms or lower.endswith("ed")):
            chosen = words[answer_at:answer_at + len(answer)]
            return _sentence(" ".join([*chosen, *stem[index:], *tail]))
        if not word[:1].islower() or lower in _QUESTION_WORDS:
            return None
    return None


def _names(word: str) -> bool:
    """Whether ``word`` is written as part of a name: capitalised, or a number ("590
    Madison Avenue")."""
    return word[:1].isupper() or word[:1].isdigit()


def _skip_article(lowered: list[str], index: int) -> int:
    return index + 1 if index < len(lowered) and lowered[index] in ARTICLES else index


def _joined(words: list[str]) -> str:
    text = " ".join(words)
    return re.sub(r"\s+([,;:!?)])", r"\1", text).replace("( ", "(")


def _lower_pronoun(text: str) -> str:
    """A sentence that opens on a pronoun, the pronoun in lower case, as a clause."""
    first = text.split(" ", 1)[0]
    return f"{text[:1].lower()}{text[1:]}" if first.lower() in _PRONOUNS else text


def _sentence(text: str) -> str:
    text = _joined(text.split())
    return f"{text[:1].upper()}{text[1:]}."
