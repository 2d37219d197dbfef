"""The knowledge-base guard: once an answer says "subject relation", only a known object
may follow.

A knowledge base holds triples (subject, relation, object, optional validity dates) from
CSV/JSON files or extracted from corpus sentences ("X is/was/has/contains/causes Y",
"X rose to 12%"). It compiles to a character trie over lead phrases (every alias of the
subject followed by every surface form of the relation, or a relation template such as
"the capital of {subject} is"). When the answer so far ends with a lead phrase and the
beginning of an object, a candidate token is safe only if the object written so far plus
the token can still become, or has just completed, an object the knowledge base holds for
that lead and time.

A lead the knowledge base has no surface for ("Canada's seat of government is", "Hamlet was
penned by") is recognised by meaning: when the clause names a known subject and ends with a
linking word, the phrase around the subject is embedded and compared with every relation's
name and surfaces; if the nearest relation is one the subject has, and near enough, its
objects are the only ones allowed. With a retriever, the triples stated by the passages
retrieved for a question join the knowledge base, so facts outside a hand-made one are
guarded too.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veritype.decoding._base import (
    CLAUSE_BREAK,
    LiteralConstraint,
    PrefixGuard,
    literal_open,
    register_guard,
)
from veritype.decoding._relation_matcher import RelationMatcher
from veritype.decoding._trie import Trie, add, last_match
from veritype.decoding._triples import Triple, extract_triples, normalise, parse_date
from veritype.errors import DecodingError

if TYPE_CHECKING:
    from veritype.ingest.corpus import Corpus
    from veritype.retrieval import Retriever
    from veritype.store import Store

__all__ = [
    "CompiledKnowledgeBase",
    "KnowledgeBase",
    "KnowledgeBaseGuard",
    "Triple",
    "extract_triples",
    "kb_guard",
    "normalise",
    "parse_date",
]

_SUBJECT_SLOT = "{subject}"
_ARTICLES = ("the ", "a ", "an ")
_YEAR_CONTEXT = re.compile(r"\b(?:in|during|as of|by|since)\s+(1\d{3}|20\d{2})\b", re.IGNORECASE)
# Characters of the answer, beyond the longest lead and object, searched for a lead phrase.
_SLACK = 40


@dataclass(slots=True)
class KnowledgeBase:
    """Triples plus subject aliases and relation surface forms (all matched
    case-insensitively). A relation surface may place the subject itself with
    ``{subject}`` ("the capital of {subject} is"); otherwise it follows the subject."""

    triples: list[Triple] = field(default_factory=list)
    subject_aliases: dict[str, set[str]] = field(default_factory=dict)
    relation_aliases: dict[str, set[str]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.triples)

    def add(self, triple: Triple) -> None:
        self.triples.append(triple)

    def add_subject_alias(self, subject: str, alias: str) -> None:
        self.subject_aliases.setdefault(normalise(subject), set()).add(normalise(alias))

    def add_relation_alias(self, relation: str, surface: str) -> None:
        self.relation_aliases.setdefault(normalise(relation), set()).add(normalise(surface))

    def merge(self, other: KnowledgeBase) -> None:
        self.triples.extend(other.triples)
        for subject, aliases in other.subject_aliases.items():
            self.subject_aliases.setdefault(subject, set()).update(aliases)
        for relation, surfaces in other.relation_aliases.items():
            self.relation_aliases.setdefault(relation, set()).update(surfaces)

    @classmethod
    def from_file(cls, path: str | Path) -> KnowledgeBase:
        """Read a ``.csv`` or ``.json`` knowledge base (see ``from_rows`` for the fields)."""
        file = Path(path)
        if not file.is_file():
            raise DecodingError(f"knowledge base {file}: no such file")
        suffix = file.suffix.lower()
        if suffix == ".csv":
            with file.open(newline="", encoding="utf-8") as handle:
                return cls.from_rows(csv.DictReader(handle), where=str(file))
        if suffix == ".json":
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except json.JSONDecodeError as error:
                raise DecodingError(f"knowledge base {file}: invalid JSON: {error}") from None
            if isinstance(data, dict):
                knowledge = cls.from_rows(data.get("triples", []), where=str(file))
                for subject, aliases in data.get("subject_aliases", {}).items():
                    for alias in aliases:
                        knowledge.add_subject_alias(subject, alias)
                for relation, surfaces in data.get("relation_aliases", {}).items():
                    for surface in surfaces:
                        knowledge.add_relation_alias(relation, surface)
                return knowledge
            if isinstance(data, list):
                return cls.from_rows(data, where=str(file))
            raise DecodingError(f"knowledge base {file}: expected a list of triples or an object")
        raise DecodingError(f"knowledge base {file}: expected a .csv or .json file")

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]], *, where: str = "rows") -> KnowledgeBase:
        """Triples from records with ``subject``, ``relation``, ``object`` and optional
        ``valid_from``, ``valid_to``, ``subject_aliases`` and ``relation_aliases`` (aliases
        separated by "|" in a string, or a list)."""
        knowledge = cls()
        for number, row in enumerate(rows, start=1):
            if not isinstance(row, Mapping):
                raise DecodingError(f"{where}: record {number} is not an object")
            missing = [key for key in ("subject", "relation", "object") if not row.get(key)]
            if missing:
                raise DecodingError(f"{where}: record {number} lacks {', '.join(missing)}")
            try:
                triple = Triple(
                    str(row["subject"]).strip(),
                    str(row["relation"]).strip(),
                    str(row["object"]).strip(),
                    parse_date(str(row.get("valid_from") or "")),
                    parse_date(str(row.get("valid_to") or ""), end=True),
                    source=f"{where}:{number}",
                )
            except (DecodingError, ValueError) as error:
                raise DecodingError(f"{where}: record {number}: {error}") from None
            knowledge.add(triple)
            for alias in _aliases(row.get("subject_aliases")):
                knowledge.add_subject_alias(triple.subject, alias)
            for surface in _aliases(row.get("relation_aliases")):
                knowledge.add_relation_alias(triple.relation, surface)
        return knowledge

    @classmethod
    def from_texts(cls, texts: Iterable[str], *, sources: Sequence[str] = ()) -> KnowledgeBase:
        """Triples extracted from the sentences of ``texts`` (see ``extract_triples``)."""
        names = iter(sources)
        return cls.from_documents(
            (next(names, f"text-{index}"), text) for index, text in enumerate(texts)
        )

    @classmethod
    def from_store(cls, store: Store, *, page: int = 500) -> KnowledgeBase:
        """Triples extracted from every document of an ingested store."""
        return cls.from_documents(_store_documents(store, page))

    @classmethod
    def from_corpus(cls, corpus: Corpus) -> KnowledgeBase:
        return cls.from_store(corpus.store)

    @classmethod
    def from_retrieval(cls, retriever: Retriever, question: str, *, k: int = 4) -> KnowledgeBase:
        """Triples extracted from the ``k`` passages ``retriever`` finds for ``question``."""
        if k < 1:
            raise DecodingError(f"k must be >= 1, got {k}")
        if not question.strip():
            raise DecodingError("retrieving triples needs a question")
        return cls.from_documents(
            (hit.chunk.chunk_id, hit.chunk.text) for hit in retriever.retrieve(question, k)
        )

    @classmethod
    def from_documents(cls, documents: Iterable[tuple[str, str]]) -> KnowledgeBase:
        """Triples extracted from ``(source, text)`` pairs."""
        knowledge = cls()
        for source, text in documents:
            for triple in extract_triples(text, source=source):
                knowledge.add(triple)
        return knowledge

    def compile(self) -> CompiledKnowledgeBase:
        return CompiledKnowledgeBase(self)


def _aliases(value: object) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split("|") if part.strip()]
    if isinstance(value, list):
        return [str(part).strip() for part in value if str(part).strip()]
    raise DecodingError(f"aliases must be a '|'-separated string or a list, got {value!r}")


def _store_documents(store: Store, page: int) -> Iterator[tuple[str, str]]:
    offset = 0
    while True:
        records = store.documents(limit=page, offset=offset)
        if not records:
            return
        for record in records:
            yield record.source or record.doc_id, record.document.text
        offset += len(records)


@dataclass(frozen=True, slots=True)
class _Objects:
    """The objects one lead phrase may be followed by, each with its validity."""

    entries: tuple[tuple[tuple[str, ...], Triple], ...]

    def spellings(self, start: date, end: date) -> tuple[str, ...]:
        spellings: list[str] = []
        for variants, triple in self.entries:
            if triple.valid_between(start, end):
                spellings.extend(variants)
        return tuple(dict.fromkeys(spellings))


class CompiledKnowledgeBase:
    """A knowledge base as a character trie of lead phrases, for lookups while decoding."""

    def __init__(self, knowledge: KnowledgeBase) -> None:
        leads: dict[str, list[tuple[tuple[str, ...], Triple]]] = {}
        for triple in knowledge.triples:
            subject = normalise(triple.subject)
            relation = normalise(triple.relation)
            subjects = {subject, *knowledge.subject_aliases.get(subject, ())}
            subjects |= {s[len(a):] for s in subjects for a in _ARTICLES if s.startswith(a)}
            surfaces = {relation, *knowledge.relation_aliases.get(relation, ())}
            variants = _object_variants(triple.object)
            for name in subjects:
                for surface in surfaces:
                    if _SUBJECT_SLOT in surface:
                        lead = surface.replace(_SUBJECT_SLOT, name)
                    else:
                        lead = f"{name} {surface}"
                    leads.setdefault(normalise(lead), []).append((variants, triple))
        self._trie: Trie = {}
        self._subject_trie: Trie = {}
        # The relations a knowledge base names and words (those with surfaces), each with
        # its descriptions, and each subject's triples by such a relation: what a lead may
        # mean. A verb read off a corpus sentence ("inhibits") is its own surface already.
        self.relations: dict[str, tuple[str, ...]] = {}
        self._facts: dict[str, dict[str, list[tuple[tuple[str, ...], Triple]]]] = {}
        for triple in knowledge.triples:
            subject, relation = normalise(triple.subject), normalise(triple.relation)
            if not knowledge.relation_aliases.get(relation):
                continue
            self._facts.setdefault(subject, {}).setdefault(relation, []).append(
                (_object_variants(triple.object), triple))
            surfaces = {relation, *knowledge.relation_aliases.get(relation, ())}
            self.relations[relation] = (relation, *sorted(_relation_phrase(s) for s in surfaces))
            names = {subject, *knowledge.subject_aliases.get(subject, ())}
            for name in names | {n[len(a):] for n in names for a in _ARTICLES
                                 if n.startswith(a)}:
                add(self._subject_trie, name, subject)
        for lead, entries in leads.items():
            add(self._trie, lead, _Objects(tuple(entries)))
        self.lead_count = len(leads)
        longest_lead = max((len(lead) for lead in leads), default=0)
        longest_object = max(
            (len(v) for entries in leads.values() for vs, _ in entries for v in vs), default=0
        )
        self._window = longest_lead + longest_object + _SLACK

    def lookup(self, prefix: str, today: date) -> tuple[str, tuple[str, ...]] | None:
        """For an answer ending with a lead phrase and an unfinished object: what it has
        written of the object and the object spellings still allowed; else None.

        The lead that ends last wins. A year the sentence names before the lead ("In 2010,
        ...") selects the triples valid in that year instead of those valid ``today``.
        """
        tail = normalise(prefix[-self._window :])
        if prefix[-1:].isspace():
            tail += " "
        best = last_match(self._trie, tail, lambda after: after == " ")
        if best is None:
            return None
        start, end, objects = best
        assert isinstance(objects, _Objects)
        window = _year_window(tail[:start]) or (today, today)
        spellings = objects.spellings(*window)
        written = tail[end:]
        if not spellings or not literal_open(written, spellings):
            return None
        return written, spellings


    def lead_by_meaning(
        self, prefix: str, today: date, relations: RelationMatcher
    ) -> tuple[str, tuple[str, ...]] | None:
        """Like ``lookup``, for a clause that names a known subject and then ends its
        relation phrase with a linking word ("Canada's seat of government is"): the
        relation is the knowledge base's relation nearest in meaning to that phrase."""
        tail = normalise(prefix[-self._window :])
        if prefix[-1:].isspace():
            tail += " "
        breaks = list(CLAUSE_BREAK.finditer(tail))
        clause = tail[breaks[-1].end() :] if breaks else tail
        mention = self._last_subject(clause)
        if mention is None:
            return None
        start, end, subject = mention
        facts = self._facts[subject]
        window = _year_window(clause[:start]) or (today, today)
        everything = tuple(dict.fromkeys(
            v for entries in facts.values() for vs, t in entries if t.valid_between(*window)
            for v in vs))
        for link in reversed(list(_LINK.finditer(clause, end))):
            written = clause[link.end() :]
            if not literal_open(written, everything):
                continue
            phrase = f"{clause[:start]}X{clause[end:link.end()]}".strip()
            relation = relations.nearest(_LABEL.sub("", phrase), self.relations)
            if relation is None or relation not in facts:
                return None
            spellings = _Objects(tuple(facts[relation])).spellings(*window)
            if not spellings or not literal_open(written, spellings):
                return None
            return written, spellings
        return None

    def _last_subject(self, clause: str) -> tuple[int, int, str] | None:
        """The last known subject named in ``clause`` (the longest of those ending last:
        "isaac newton", not its alias "newton"): its span and canonical name."""
        found = last_match(self._subject_trie, clause, lambda after: not after.isalnum())
        return None if found is None else (found[0], found[1], str(found[2]))


# A relation phrase ends with a word after which its object follows: a copula or
# preposition ("is", "was penned by", "is written as", "pay with the").
_LINK = re.compile(
    r"(?<![\w'])(?:is|are|was|were|be|by|as|in|with|the|of|on|at|from|to|called|named)(?= ?$| )")
# A speaker label before the answer ("A: ") is not part of its relation.
_LABEL = re.compile(r"^[a-z]{1,3}: ")


def _relation_phrase(surface: str) -> str:
    """A relation surface with its subject written as "X"."""
    return surface.replace(_SUBJECT_SLOT, "X") if _SUBJECT_SLOT in surface else f"X {surface}"


def _object_variants(obj: str) -> tuple[str, ...]:
    text = normalise(obj)
    variants = [text] + [text[len(a):] for a in _ARTICLES if text.startswith(a)]
    return tuple(variants)


def _year_window(before: str) -> tuple[date, date] | None:
    sentence = re.split(r"[.!?\n]\s", before)[-1]
    years = _YEAR_CONTEXT.findall(sentence)
    if not years:
        return None
    year = int(years[-1])
    return date(year, 1, 1), date(year, 12, 31)


class KnowledgeBaseGuard(PrefixGuard):
    """Blocks a token that turns "subject relation ..." into an object the knowledge base
    does not hold for that subject and relation (at ``as_of``, default today).

    With ``relations`` (a ``RelationMatcher``), leads in words the knowledge base has no
    surface for are recognised by meaning (see the module doc).
    """

    name = "kb"
    _where = "the knowledge base holds the object of its subject and relation"

    def __init__(
        self,
        knowledge: KnowledgeBase,
        *,
        as_of: date | None = None,
        relations: RelationMatcher | None = None,
        enabled: bool = True,
    ) -> None:
        super().__init__()
        if len(knowledge) == 0:
            raise DecodingError("the kb guard needs a knowledge base with at least one triple")
        self.knowledge = knowledge
        self.compiled = knowledge.compile()
        self.as_of = as_of
        self.relations = relations
        if relations is not None:
            relations.prepare(self.compiled.relations)
        self.enabled = enabled

    def with_knowledge(self, extra: KnowledgeBase) -> KnowledgeBaseGuard:
        """The same guard (sharing its relation matcher) over its triples plus ``extra``."""
        merged = KnowledgeBase()
        merged.merge(self.knowledge)
        merged.merge(extra)
        return KnowledgeBaseGuard(merged, as_of=self.as_of, relations=self.relations,
                                  enabled=self.enabled)

    def _constraint(self, prefix: str) -> LiteralConstraint | None:
        today = self.as_of or date.today()
        found = self.compiled.lookup(prefix, today)
        if found is None and self.relations is not None:
            found = self.compiled.lead_by_meaning(prefix, today, self.relations)
        return LiteralConstraint(*found) if found else None


@register_guard("kb")
def kb_guard(
    *,
    knowledge: KnowledgeBase | None = None,
    files: Sequence[str | Path] = (),
    texts: Sequence[str] = (),
    corpus: Corpus | None = None,
    retriever: Retriever | None = None,
    question: str = "",
    k: int = 4,
    by_meaning: bool = True,
    as_of: date | None = None,
    enabled: bool = True,
) -> KnowledgeBaseGuard:
    """The ``kb`` guard over ``knowledge`` plus the triples of ``files`` (CSV/JSON), of
    ``texts``, of an ingested ``corpus`` and of the ``k`` passages ``retriever`` finds for
    ``question``; ``by_meaning`` also recognises relations by meaning (MiniLM embeddings)."""
    merged = KnowledgeBase()
    if knowledge is not None:
        merged.merge(knowledge)
    for file in files:
        merged.merge(KnowledgeBase.from_file(file))
    if texts:
        merged.merge(KnowledgeBase.from_texts(texts))
    if corpus is not None:
        merged.merge(KnowledgeBase.from_corpus(corpus))
    if retriever is not None:
        merged.merge(KnowledgeBase.from_retrieval(retriever, question, k=k))
    return KnowledgeBaseGuard(merged, as_of=as_of, relations=RelationMatcher() if by_meaning
                              else None, enabled=enabled)
