"""Whether evidence states a claim word for word: quoted whole, only inside words that
qualify it, or with words left out that change nothing it asserts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise

from veritype._finite_verbs import first_verb
from veritype._text import ANAPHORIC_LEAD, NEGATIONS, has_word_of, sentence_spans
from veritype._verbs import AUXILIARY_WORDS, coordinates_a_predicate, opens_a_clause, verb_forms

# Words that, outside a verbatim match, can change what the matched words assert: negation,
# quantifiers, hedges, comparison, condition, and reports of what someone claims.
_QUALIFIERS = NEGATIONS | frozenset(
    """few many most some all every each only any several little more less fewer least
    nearly almost hardly rarely seldom than if unless whether may might could would should
    likely unlikely possibly probably perhaps allegedly reportedly supposedly believe believed
    believes claim claims claimed myth misconception rumour rumor false untrue wrong suggest
    suggests suggested thought said says seem seems seemed appear appears appeared think
    thinks until except but although though contrary belief popular rare sometimes""".split()  # noqa: SIM905
)
# Words that take back what a clause beside them states.
_DENIALS = NEGATIONS | frozenset(["false", "untrue", "wrong", "incorrect", "myth",
                                  "misconception", "rumour", "rumor", "disproved"])
# Comparison words: set off after a copy with "than" ("It runs at 62 dB(A), a little louder
# than the smaller models"), they set it beside something else and do not limit it.
_COMPARING = frozenset(["little", "more", "less", "fewer", "than"])
_THAN = frozenset(["than"])
_UNCOMPARED_QUALIFIERS = _QUALIFIERS - _COMPARING
_CLAUSE_BREAK = (",", ";", ":", "\u2014", " -")
# A clause of its own starts here: after ", but", "; and", ", while" (the text before a copy).
_JOINED_CLAUSE = re.compile(r"[,;]\s*(?:but|yet|and|while|whereas)\s*$")


def _qualified(text: str) -> bool:
    return has_word_of(text, _QUALIFIERS)


@dataclass(frozen=True, slots=True)
class _Copy:
    """One whole-word occurrence of a claim in a sentence, and what surrounds it."""

    ends_clause: bool  # the copy runs to the end of the sentence or of a clause
    coordinated: bool  # "and"/"or"/"nor" extends it ("euros and Swiss francs")
    qualified: bool  # a word around it qualifies it ("very few", "more than")


def _copies(claim: str, sentence: str) -> Iterator[_Copy]:
    """The whole-word occurrences of ``claim`` in ``sentence`` (both normalised)."""
    at = sentence.find(claim)
    while at >= 0:
        before, after = sentence[:at], sentence[at + len(claim):]
        if (not before or not before[-1].isalnum()) and (not after or not after[0].isalnum()):
            suffix = after.strip().rstrip(".!?;: ")
            following = suffix.lstrip(",;: \u2014-")
            # "... 3,499 euros and has a 750 Wh battery", "... Swiss Alps and flows into the
            # North Sea": a verb phrase of the same subject follows, so the copy is a whole
            # clause, not one item of a list.
            # "... in 1930, and the hosts beat ...", "... 12 months, while Grana Padano
            # must ...": a clause of its own follows, and what it says qualifies only itself.
            predicate = coordinates_a_predicate(following)
            clause = not predicate and opens_a_clause(following)
            whole = predicate or clause
            joiner = following.split(" ", 1)[0]
            # Words before the copy only matter when they qualify it: a heading run into the
            # sentence ("CONCLUSIONS The drug ...") or a lead-in ("In 1889, ...") does not.
            # "Eighteen episodes were completed, but the series was canceled ...", "... was
            # 57,363, but the real capacity was only 48,000": a clause joined by "but" is
            # asserted, and the clause beside it, with a subject of its own, qualifies only
            # itself. A predicate of the same subject after "but" may take the copy back
            # ("opened in 1950 but closed in 1990"): that is the model's to read.
            own_clause = _JOINED_CLAUSE.search(before) is not None
            # "... falls below a set limit, which is lower for women than for men": a clause
            # set off after a comma describes its noun, and takes the copy back only when it
            # denies it ("..., which is a myth"). So does a clause after a semicolon: "open on
            # Mondays and Wednesdays; on all other days it is closed".
            aside = (after.lstrip().startswith(";")
                     or (after.lstrip().startswith(",")
                         and joiner in {"which", "who", "whom", "whose"}))
            # "..., a little louder than the smaller models": a comparison set off after
            # the copy compares it with something else, and limits it only with another
            # qualifier ("..., but less than in winter").
            limits = (_UNCOMPARED_QUALIFIERS if after.lstrip().startswith(",")
                      and has_word_of(suffix, _THAN) else _QUALIFIERS)
            yield _Copy(
                ends_clause=(not suffix or after.lstrip().startswith(_CLAUSE_BREAK) or whole),
                coordinated=not whole and joiner in {"and", "or", "nor"},
                qualified=(not own_clause and _qualified(before))
                or (_qualified(joiner) if predicate else not clause and (
                    has_word_of(suffix, _DENIALS) if aside else has_word_of(suffix, limits))),
            )
        at = sentence.find(claim, at + 1)


def _states_verbatim(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` asserts ``claim`` (both normalised) word for word: the claim runs
    to the end of the sentence or of a clause, and the words around it neither qualify it
    ("very few", "more than", "it is likely that") nor extend it ("euros and Swiss francs")."""
    return any(copy.ends_clause and not copy.coordinated and not copy.qualified
               for copy in _copies(claim, sentence))


def qualified_in(claim: str, evidence: str) -> bool:
    """Whether ``evidence`` has ``claim`` word for word only inside words that qualify it
    (a negation, quantifier, hedge, comparison, condition or report: "very few (if any)",
    "more than", "it is likely that") or coordinate it ("euros and Swiss francs"); a copy
    that is merely extended ("Visitors climb it daily.") is not."""
    if quoted_in(claim, evidence) is not False:
        return False
    wanted = _normalised(claim)
    return all(copy.coordinated or copy.qualified
               for start, end in sentence_spans(evidence)
               for copy in _copies(wanted, _normalised(evidence[start:end])))


_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|"
          r"November|December)")
_IN_YEAR = re.compile(r"\bin (?P<year>\d{4})\b")
_FINER_DATE = re.compile(
    rf"\b(?:on (?:{_MONTH} \d{{1,2}},? |\d{{1,2}} {_MONTH},? )|in {_MONTH},? )(?P<year>\d{{4}})\b")
# A word, or a comma or bracket (they mark an aside the shortening may leave out).
_SHORTENING_TOKEN = re.compile(r"[\w'\u2019.-]*\w|[,()]")
_ASIDE_MARKS = frozenset(",()")
# Besides the qualifiers, words whose absence from a shortened copy can change what it binds
# or asserts: joiners of another clause, and words that say how often, how far or how exactly
# it holds ("usually listed", "over 2 million", "about 6,650 km").
_KEPT_WORDS = frozenset("""while whereas yet according or usually often generally typically
    mostly mainly largely partly partially occasionally normally commonly frequently always
    roughly approximately about around over under above below up estimated""".split())  # noqa: SIM905
# Prepositions: left out just before a kept word, one of them would hand that word to
# another: "brought by [the tenants' association against] Redbrook Properties" does not state
# "brought by Redbrook Properties".
_PREPOSITIONS = frozenset("""against by from to for with without of at on in into onto over
    under between among toward towards through via versus""".split())  # noqa: SIM905


def shortened_in(claim: str, evidence: str) -> bool:
    """Whether a sentence of ``evidence`` states ``claim`` with words left out: the claim's
    words are the sentence's, in its order ("K2 stands at 8,611 metres ..." from "K2, the
    second-highest mountain on Earth, stands at 8,611 metres ..."), and what is left out
    changes nothing the claim asserts. Nothing left out may qualify it (a negation,
    quantifier, hedge, condition, report or contrast; nor any word of a sentence with a
    negation), extend it as a list's next item ("euros [and Swiss francs]"), or, inside the
    claim, hold a verb, a number or part of a name ("Judge [Eleanor] Owens"), unless it is
    an aside set off by commas or brackets ("Miguel de Cervantes[, the author of Don
    Quixote,] was born in 1547"). A plain copy is not a shortened one (``quoted_in``)."""
    wanted = [token for token in _shortening_tokens(claim.rstrip(".!? ")) if token[0]
              not in _ASIDE_MARKS]
    if len(wanted) < 4 or quoted_in(claim, evidence):
        return False
    for start, end in sentence_spans(evidence):
        for sentence in _clauses_of(evidence[start:end].rstrip(".!? ")):
            dated = [token.lower() for token in _shortening_tokens(
                _in_its_year(claim, sentence).rstrip(".!? ")) if token[0] not in _ASIDE_MARKS]
            if _shortens(dated, _shortening_tokens(sentence)):
                return True
    return False


# Words that open a clause after a semicolon that bears on the one before it.
_BEARING = frozenset("""however but yet although though otherwise except unless if so thus
    therefore instead""".split())  # noqa: SIM905


def _clauses_of(sentence: str) -> list[str]:
    """``sentence``, and each part of it before a semicolon that a clause with a subject of
    its own follows: "The north tower was finished in 1520; the south tower was never
    completed" states its first clause whatever the second denies of the south tower. A
    clause after the semicolon that opens with a pronoun ("; it was never used") or a word
    bearing on the first ("; however, ...") may take it back, and no part is cut there.
    Such a clause with a subject of its own is stated on its own too, whatever stands
    before the semicolon: "Fenwick Outdoor sells tents; its sister company, Fenwick Cycles,
    sells bicycles and helmets" states "Fenwick Cycles sells bicycles and helmets"."""
    parts = [sentence]
    for match in re.finditer(r";\s*", sentence):
        following = sentence[match.end():]
        first = following.split(" ", 1)[0].strip(",").lower()
        verb = first_verb(following[:1].upper() + following[1:])
        if first in _BEARING or verb is None or verb == 0:
            continue
        if ANAPHORIC_LEAD.match(following) is None:
            parts.append(sentence[:match.start()])
        if ";" not in following:
            parts.append(following)
    return parts


def _shortening_tokens(text: str) -> list[str]:
    return [match.group(0) for match in _SHORTENING_TOKEN.finditer(text)]


def _shortens(claim: list[str], sentence: list[str]) -> bool:
    lowered = [token.lower() for token in sentence]
    # Most sentences lack a word of the claim: no alignment to search for.
    if not set(claim) <= set(lowered) or any(word in NEGATIONS or word.endswith("n't")
                                              for word in lowered):
        return False
    kept = _fewest_gaps(claim, lowered)
    if kept is None:
        return False
    gaps = [(0, kept[0], "lead")] if kept[0] > 0 else []
    gaps += [(before + 1, after, "inside") for before, after in pairwise(kept)
             if after > before + 1]
    if kept[-1] < len(sentence) - 1:
        gaps.append((kept[-1] + 1, len(sentence), "tail"))
    if not any(lowered[i] not in _ASIDE_MARKS for start, end, _ in gaps
               for i in range(start, end)):
        return False
    return all(_may_leave_out(sentence, lowered, start, end, where)
               for start, end, where in gaps)


def _may_leave_out(sentence: list[str], lowered: list[str], start: int, end: int,
                   where: str) -> bool:
    words = [word for word in lowered[start:end] if word not in _ASIDE_MARKS]
    # "... weighs 1.9 kilograms [and lasts up to 14 hours]": a predicate of its own after
    # the claim says nothing of how the claim holds.
    predicate = where == "tail" and len(words) > 1 and words[0] == "and" and _is_verb(words[1])
    if where == "inside" and _joined_predicate(words, lowered[end]):
        # What qualifies a predicate left out before "and" qualifies only it: "It leaves
        # [every 15 minutes ... and] takes 22 minutes". (A sentence with a negation is
        # never shortened.)
        return True
    if any(word in _QUALIFIERS or (word in _KEPT_WORDS and not predicate)
           or word.endswith("n't") for word in words):
        return False
    if where == "tail":
        # "euros [and Swiss francs]": a list goes on.
        return not (len(words) > 1 and words[0] in {"and", "or"} and not predicate)
    if where == "lead":
        return not any(_is_verb(word) for word in words)
    aside = lowered[start] in _ASIDE_MARKS and lowered[end - 1] in _ASIDE_MARKS
    if aside:
        return True
    if words and words[-1] in _PREPOSITIONS:
        return False
    cuts_a_name = ((sentence[start - 1][:1].isupper() and sentence[start][:1].isupper())
                   or (sentence[end][:1].isupper() and sentence[end - 1][:1].isupper()))
    return not (cuts_a_name or any(_is_verb(word) or any(c.isdigit() for c in word)
                                   for word in words))


def _joined_predicate(words: list[str], following: str) -> bool:
    """Whether left-out ``words`` are a predicate of the same subject joined by "and" before
    the kept one, which starts with ``following``: "Hoover Dam was [constructed between 1931
    and 1936 and] was dedicated ..." states "Hoover Dam was dedicated ...", as "[was
    constructed ... and]" before "was dedicated" does."""
    if len(words) > 2 and words[-2] == "and" and words[-1] in AUXILIARY_WORDS:
        predicate = words[:-2]
    elif len(words) > 1 and words[-1] == "and" and _is_verb(following):
        predicate = words[:-1]
    else:
        return False
    return _is_verb(predicate[0])


def _in_its_year(claim: str, sentence: str) -> str:
    """``claim`` with each "in <year>" that ``sentence`` dates more finely in that year ("on
    September 30, 1935", "in March 1935") written as the sentence dates it: the finer date
    states the year."""
    finer = {match.group("year"): match.group(0) for match in _FINER_DATE.finditer(sentence)}
    return _IN_YEAR.sub(lambda match: finer.get(match.group("year"), match.group(0)), claim)


def _is_verb(word: str) -> bool:
    return (bool(verb_forms(word)) or word in AUXILIARY_WORDS
            or (word.endswith("ed") and len(word) > 4))


def _fewest_gaps(claim: list[str], sentence: list[str]) -> list[int] | None:
    """The positions of the claim's words in the sentence, in order, with the fewest gaps
    between them (None when the sentence does not hold them in that order)."""
    missing = len(sentence) + 1
    gaps = [[missing] * len(sentence) for _ in claim]
    back = [[-1] * len(sentence) for _ in claim]
    for j, word in enumerate(sentence):
        if word == claim[0]:
            gaps[0][j] = 0
    for i in range(1, len(claim)):
        for j, word in enumerate(sentence):
            if word != claim[i]:
                continue
            for k in range(j):
                if gaps[i - 1][k] < missing:
                    count = gaps[i - 1][k] + (k != j - 1)
                    if count < gaps[i][j]:
                        gaps[i][j], back[i][j] = count, k
    ends = [j for j in range(len(sentence)) if gaps[-1][j] < missing]
    if not ends:
        return None
    position = min(ends, key=lambda j: gaps[-1][j])
    kept = [position]
    for i in range(len(claim) - 1, 0, -1):
        position = back[i][position]
        kept.append(position)
    return kept[::-1]


def _normalised(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!?;: ")


def quoted_in(claim: str, evidence: str) -> bool | None:
    """Whether ``evidence`` states ``claim`` word for word (case and spacing aside).

    ``None`` when the claim's words do not occur in it in that order at all; ``True`` when
    one sentence is the claim, or has it as a whole clause with nothing around it that
    qualifies it; ``False`` when every copy is qualified ("very few (if any) pop records are
    illegal", "more than 1 in 10,000 people") or extended ("euros and Swiss francs").
    """
    wanted = _normalised(claim)
    if not wanted or not re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", _normalised(evidence)):
        return None
    return any(_states_verbatim(wanted, _normalised(evidence[start:end]))
               for start, end in sentence_spans(evidence))
