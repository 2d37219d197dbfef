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

from veritype.decoding._base import PrefixGuard, continues_literal, literal_open, register_guard
from veritype.decoding._triples import Triple, extract_triples, normalise, parse_date
from veritype.errors import DecodingError

if TYPE_CHECKING:
    from veritype.ingest.corpus import Corpus
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


_LEAF = ""


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
        self._trie: dict[str, Any] = {}
        for lead, entries in leads.items():
            node = self._trie
            for char in lead:
                node = node.setdefault(char, {})
            node[_LEAF] = _Objects(tuple(entries))
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
        best: tuple[int, int, _Objects] | None = None
        for start in _word_starts(tail):
            node: dict[str, Any] | None = self._trie
            for position in range(start, len(tail)):
                node = node.get(tail[position]) if node is not None else None
                if node is None:
                    break
                objects = node.get(_LEAF)
                end = position + 1
                if objects is not None and (end == len(tail) or tail[end] == " ") and (
                    best is None or end > best[1]
                ):
                    best = (start, end, objects)
        if best is None:
            return None
        start, end, objects = best
        window = _year_window(tail[:start]) or (today, today)
        spellings = objects.spellings(*window)
        written = tail[end:]
        if not spellings or not literal_open(written, spellings):
            return None
        return written, spellings


def _object_variants(obj: str) -> tuple[str, ...]:
    text = normalise(obj)
    variants = [text] + [text[len(a):] for a in _ARTICLES if text.startswith(a)]
    return tuple(variants)


def _word_starts(text: str) -> Iterator[int]:
    for index, char in enumerate(text):
        if char.isalnum() and (index == 0 or not text[index - 1].isalnum()):
            yield index


def _year_window(before: str) -> tuple[date, date] | None:
    sentence = re.split(r"[.!?\n]\s", before)[-1]
    years = _YEAR_CONTEXT.findall(sentence)
    if not years:
        return None
    year = int(years[-1])
    return date(year, 1, 1), date(year, 12, 31)


@dataclass(frozen=True, slots=True)
class KnowledgeConstraint:
    written: str
    answers: tuple[str, ...]


class KnowledgeBaseGuard(PrefixGuard):
    """Blocks a token that turns "subject relation ..." into an object the knowledge base
    does not hold for that subject and relation (at ``as_of``, default today)."""

    name = "kb"

    def __init__(
        self, knowledge: KnowledgeBase, *, as_of: date | None = None, enabled: bool = True
    ) -> None:
        super().__init__()
        if len(knowledge) == 0:
            raise DecodingError("the kb guard needs a knowledge base with at least one triple")
        self.knowledge = knowledge
        self.compiled = knowledge.compile()
        self.as_of = as_of
        self.enabled = enabled

    def _constraint(self, prefix: str) -> KnowledgeConstraint | None:
        found = self.compiled.lookup(prefix, self.as_of or date.today())
        return KnowledgeConstraint(*found) if found else None

    def _accepts(self, constraint: object, candidate: str) -> bool:
        assert isinstance(constraint, KnowledgeConstraint)
        return continues_literal(constraint.written, candidate, constraint.answers)


@register_guard("kb")
def kb_guard(
    *,
    knowledge: KnowledgeBase | None = None,
    files: Sequence[str | Path] = (),
    texts: Sequence[str] = (),
    corpus: Corpus | None = None,
    as_of: date | None = None,
    enabled: bool = True,
) -> KnowledgeBaseGuard:
    """The ``kb`` guard over ``knowledge`` plus the triples of ``files`` (CSV/JSON), of
    ``texts`` and of an ingested ``corpus``."""
    merged = KnowledgeBase()
    if knowledge is not None:
        merged.merge(knowledge)
    for file in files:
        merged.merge(KnowledgeBase.from_file(file))
    if texts:
        merged.merge(KnowledgeBase.from_texts(texts))
    if corpus is not None:
        merged.merge(KnowledgeBase.from_corpus(corpus))
    return KnowledgeBaseGuard(merged, as_of=as_of, enabled=enabled)
