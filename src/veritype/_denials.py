"""The plain denials of a claim: the same sentence with its first verb negated, or, for a
claim that denies, with the negation taken away.

"The Kestrel 3 has obstacle sensors." is denied by "The Kestrel 3 has no obstacle sensors."
and by "The Kestrel 3 does not have obstacle sensors."; "The ferry does not run in winter."
by "The ferry runs in winter.". Evidence that states a denial word for word contradicts the
claim, a reading NLI models miss: they entail a sentence that differs only in a "no".
"""

from __future__ import annotations

import re

from veritype._finite_verbs import first_verb
from veritype._verbs import BASE_FORMS, VerbForm, forms_of, irregular_base, verb_forms

# Verbs negated by a "not" after them.
_NOT_AFTER = frozenset(["is", "are", "was", "were", "am", "can", "could", "will", "would",
                        "may", "might", "must", "shall", "should"])
_POSSESSION = frozenset({"has", "have", "had"})
_DO_SUPPORT = {"does": VerbForm.THIRD_PERSON, "do": VerbForm.BASE, "did": VerbForm.PAST}
# Negations written into their verb, spelled out so that one reading serves both.
_CONTRACTED = re.compile(r"\b(can)not\b|\b(ca|wo|[a-z]+)n['\u2019]t\b", re.IGNORECASE)
_CONTRACTION_STEMS = {"ca": "can", "wo": "will"}
_WORD = re.compile(r"[\w'\u2019-]+")


def denials(claim: str) -> tuple[str, ...]:
    """The sentences that plainly deny ``claim`` (empty when its verb is not found)."""
    text = spelled_out(claim.strip().rstrip(".!?"))
    at = first_verb(text)
    if at is None:
        return ()
    match = _WORD.match(text, at)
    if match is None:
        return ()
    before, verb, after = text[:at], match.group(0), text[match.end():]
    lower = verb.lower()
    following = _WORD.match(after.lstrip())
    next_word = following.group(0).lower() if following else ""
    rest = after.lstrip()[len(next_word):]
    if before.lower().endswith("never "):
        return (f"{before[:-len('never ')]}{verb}{after}",)
    negatable = _NOT_AFTER | _POSSESSION | _DO_SUPPORT.keys()
    if (next_word in {"not", "never"} and lower in negatable) or (
            next_word == "no" and lower in _POSSESSION):
        return _affirmed(before, lower, rest)
    if lower in _NOT_AFTER:
        return tuple(f"{before}{verb} {word}{after}" for word in ("not", "never"))
    if lower in _POSSESSION:
        if next_word.endswith("ed") or next_word == "been" or VerbForm.PARTICIPLE in verb_forms(
                next_word):
            return tuple(f"{before}{verb} {word}{after}" for word in ("not", "never"))
        support = {"has": "does", "have": "do", "had": "did"}[lower]
        return (f"{before}{verb} no{after}", f"{before}{support} not have{after}")
    if lower in _DO_SUPPORT:
        return (f"{before}{verb} not{after}",)
    base, support = _base_and_support(lower)
    if base is None:
        return ()
    return (f"{before}{support} not {base}{after}", f"{before}never {verb}{after}")


def spelled_out(text: str) -> str:
    """``text`` with "cannot", "isn't", "won't" written as "can not", "is not", "will not"."""
    def spelled(match: re.Match[str]) -> str:
        stem = match.group(1) or match.group(2)
        full = _CONTRACTION_STEMS.get(stem.lower(), stem)
        return f"{stem[0]}{full[1:]} not"
    return _CONTRACTED.sub(spelled, text)


def _affirmed(before: str, verb: str, rest: str) -> tuple[str, ...]:
    """The claim without its negation, ``rest`` being what follows it: "does not run" →
    "runs", "has no" → "has"."""
    if verb not in _DO_SUPPORT:
        return (f"{before}{verb}{rest}",)
    lexical = _WORD.match(rest.lstrip())
    if lexical is None:
        return ()
    main = lexical.group(0)
    after = rest.lstrip()[len(main):]
    return tuple(f"{before}{form}{after}" for form in _forms(main.lower(), _DO_SUPPORT[verb]))


def _forms(base: str, form: VerbForm) -> tuple[str, ...]:
    """How ``base`` may be written in ``form``: "run" → "runs" (third person), "ran" (past);
    a regular verb's spellings by rule, only one of which evidence will hold."""
    if base == "have":
        return ({VerbForm.BASE: "have", VerbForm.THIRD_PERSON: "has"}.get(form, "had"),)
    if base not in BASE_FORMS:
        return ()
    if form is VerbForm.BASE:
        return (base,)
    written = sorted(forms_of(base) - {base})
    if form is VerbForm.THIRD_PERSON:
        return tuple(word for word in written if word.endswith("s"))
    irregular = tuple(word for word in written if VerbForm.PAST in verb_forms(word))
    return irregular or tuple(word for word in written if word.endswith("ed"))


def _base_and_support(verb: str) -> tuple[str | None, str]:
    """The base form of a lexical verb and the "do" that carries its tense and person."""
    forms = verb_forms(verb)
    if VerbForm.BASE in forms and verb in BASE_FORMS:
        return verb, "do"
    if VerbForm.THIRD_PERSON in forms:
        return next((base for base in _candidates(verb) if base in BASE_FORMS
                     and verb in forms_of(base)), None), "does"
    base = irregular_base(verb)
    if base is not None and VerbForm.PAST in forms:
        return base, "did"
    if verb.endswith("ed"):
        return next((base for base in _candidates(verb) if base in BASE_FORMS
                     and verb in forms_of(base)), None), "did"
    return None, "do"


def _candidates(verb: str) -> tuple[str, ...]:
    """Base forms a regular inflected ``verb`` may come from ("carried" → "carry")."""
    if verb.endswith("ies") or verb.endswith("ied"):
        return (verb[:-3] + "y",)
    if verb.endswith("ed"):
        return (verb[:-2], verb[:-1], verb[:-3])
    return (verb[:-1], verb[:-2])
