"""Evidence: documents, chunks with exact character offsets, spans and the evidence pack.

Offsets are always into the *document* text, so a citation ``(doc_id, start, end)``
means ``document.text[start:end]`` wherever the chunk boundaries fall.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from veritype._text import HEADING, iter_sentence_spans, sentence_spans
from veritype.errors import InputError

_HASH_PIECE = 1 << 20


@dataclass(frozen=True, slots=True)
class Document:
    """A source text. ``doc_id`` is stable: derived from the content and its origin."""

    doc_id: str
    text: str
    title: str = ""
    source: str = ""

    @staticmethod
    def make_id(text: str, source: str = "") -> str:
        """A stable id from the content hash and the source path."""
        digest = hashlib.sha256()
        digest.update(source.encode("utf-8"))
        digest.update(b"\0")
        # In pieces, so a long text is never held a second time as bytes.
        for start in range(0, len(text), _HASH_PIECE):
            digest.update(text[start : start + _HASH_PIECE].encode("utf-8"))
        return digest.hexdigest()[:16]

    @classmethod
    def from_text(cls, text: str, *, title: str = "", source: str = "") -> Document:
        return cls(doc_id=cls.make_id(text, source), text=text, title=title, source=source)


def paragraph_opening(text: str, offset: int) -> str:
    """The first sentence of the paragraph of ``text`` that ``offset`` stands in (a paragraph
    ends at a blank line or a heading), or "" when ``offset`` is inside that sentence: "A
    single ticket costs 140 kroner." is said of "The quickest way into town is the Airport
    Express train.", which opens its paragraph."""
    start = max(text.rfind("\n\n", 0, offset), text.rfind("\n#", 0, offset))
    start = 0 if start < 0 else start + 1
    line_end = text.find("\n", start)
    if HEADING.match(text[start:line_end if line_end >= 0 else len(text)].strip()):
        start = line_end + 1
    first = next(iter(sentence_spans(text[start:offset + 1])), None)
    if first is None or start + first[1] > offset:
        return ""
    return " ".join(text[start + first[0]:start + first[1]].split())


@dataclass(frozen=True, slots=True)
class Chunk:
    """A contiguous piece of a document: ``text == document.text[start:end]``."""

    chunk_id: str
    doc_id: str
    start: int
    end: int
    text: str

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise InputError(
                f"chunk {self.chunk_id!r}: invalid offsets start={self.start}, end={self.end}"
            )
        if self.end - self.start != len(self.text):
            raise InputError(
                f"chunk {self.chunk_id!r}: text length {len(self.text)} does not match "
                f"offsets {self.start}..{self.end}"
            )

    def contains(self, start: int, end: int) -> bool:
        return self.start <= start <= end <= self.end

    def slice(self, start: int, end: int) -> str:
        """The text of document offsets ``start..end``, which must lie inside this chunk."""
        if not self.contains(start, end):
            raise InputError(
                f"span {start}..{end} lies outside chunk {self.chunk_id!r} "
                f"({self.start}..{self.end})"
            )
        return self.text[start - self.start : end - self.start]

    def sentences(self) -> list[Span]:
        """The chunk's sentences as spans in document offsets."""
        return [
            Span(self.doc_id, self.chunk_id, self.start + s, self.start + e)
            for s, e in sentence_spans(self.text)
        ]


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A range of characters of one chunk, in document offsets."""

    doc_id: str
    chunk_id: str
    start: int
    end: int

    def to_dict(self) -> dict[str, str | int]:
        return {"doc_id": self.doc_id, "chunk_id": self.chunk_id, "start": self.start,
                "end": self.end}

    @classmethod
    def from_dict(cls, data: dict[str, str | int]) -> Span:
        return cls(str(data["doc_id"]), str(data["chunk_id"]), int(data["start"]),
                   int(data["end"]))


def chunk_document(
    document: Document, *, max_chars: int = 1200, overlap_sentences: int = 0
) -> list[Chunk]:
    """Split a document into sentence-aligned chunks of at most ``max_chars`` characters.

    A sentence longer than ``max_chars`` is cut after its last clause break (",", ";",
    ":") that fits, else at its last space, else at ``max_chars`` exactly, so every chunk
    keeps the bound and no text is dropped. ``overlap_sentences`` repeats that many trailing
    sentences at the start of the next chunk.
    """
    if max_chars < 1:
        raise InputError(f"max_chars must be positive, got {max_chars}")
    if overlap_sentences < 0:
        raise InputError(f"overlap_sentences must be >= 0, got {overlap_sentences}")
    chunks: list[Chunk] = []
    current: list[tuple[int, int]] = []
    for span in _bounded(document.text, iter_sentence_spans(document.text), max_chars):
        if current and span[1] - current[0][0] > max_chars:
            chunks.append(_chunk(document, len(chunks), current[0][0], current[-1][1]))
            # The next chunk repeats up to ``overlap_sentences`` of this one's sentences,
            # never all of them, and only as many as still fit with the new sentence.
            kept = max(1, len(current) - overlap_sentences) if overlap_sentences else len(current)
            current = current[kept:]
            while current and span[1] - current[0][0] > max_chars:
                current.pop(0)
        current.append(span)
    if current:
        chunks.append(_chunk(document, len(chunks), current[0][0], current[-1][1]))
    return chunks


# Each mark is followed by the whitespace it is cut before, so it fits in a window one
# character longer than a chunk.
_CLAUSE_BREAKS = (", ", "; ", ": ")
_SPACES = (" ", "\n", "\t")


def _bounded(
    text: str, spans: Iterable[tuple[int, int]], max_chars: int
) -> Iterator[tuple[int, int]]:
    """``spans`` with every span longer than ``max_chars`` cut into pieces that fit."""
    for start, end in spans:
        while end - start > max_chars:
            cut = _cut(text, start, max_chars)
            piece_end = cut
            while piece_end > start and text[piece_end - 1].isspace():
                piece_end -= 1
            yield start, piece_end
            start = cut
            while start < end and text[start].isspace():
                start += 1
        if end > start:
            yield start, end


def _cut(text: str, start: int, max_chars: int) -> int:
    """Where the piece of ``text`` from ``start`` ends: after its last clause break, else at
    its last space, either in the second half of the piece (so pieces stay long), else
    after exactly ``max_chars`` characters."""
    window = text[start : start + max_chars + 1]
    for breaks in (_CLAUSE_BREAKS, _SPACES):
        position = max(window.rfind(mark) for mark in breaks)
        if position > max_chars // 2:
            return start + position + 1
    return start + max_chars


def _chunk(document: Document, number: int, start: int, end: int) -> Chunk:
    return Chunk(chunk_id=f"{document.doc_id}:{number}", doc_id=document.doc_id, start=start,
                 end=end, text=document.text[start:end])


@dataclass(slots=True)
class EvidencePack:
    """The chunks a claim may be verified against, indexed by chunk id."""

    chunks: list[Chunk] = field(default_factory=list)
    documents: dict[str, Document] = field(default_factory=dict)
    _by_id: dict[str, Chunk] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for chunk in self.chunks:
            if chunk.chunk_id in seen:
                raise InputError(f"duplicate chunk id {chunk.chunk_id!r} in evidence pack")
            seen.add(chunk.chunk_id)
        self._by_id = {chunk.chunk_id: chunk for chunk in self.chunks}

    @classmethod
    def from_documents(
        cls, documents: Iterable[Document], *, max_chars: int = 1200
    ) -> EvidencePack:
        docs = list(documents)
        ids = [doc.doc_id for doc in docs]
        if len(set(ids)) != len(ids):
            raise InputError("the same document was given twice")
        chunks = [chunk for doc in docs for chunk in chunk_document(doc, max_chars=max_chars)]
        return cls(chunks=chunks, documents={doc.doc_id: doc for doc in docs})

    @classmethod
    def merge(cls, packs: Iterable[EvidencePack]) -> EvidencePack:
        """One pack holding every distinct chunk and document of ``packs``."""
        packs = list(packs)
        chunks = {chunk.chunk_id: chunk for pack in packs for chunk in pack}
        documents = {doc_id: doc for pack in packs for doc_id, doc in pack.documents.items()}
        return cls(chunks=list(chunks.values()), documents=documents)

    @classmethod
    def from_texts(cls, texts: Sequence[str], *, max_chars: int = 1200) -> EvidencePack:
        return cls.from_documents(
            (Document.from_text(text, source=f"text-{i}") for i, text in enumerate(texts)),
            max_chars=max_chars,
        )

    def __iter__(self) -> Iterator[Chunk]:
        return iter(self.chunks)

    def __len__(self) -> int:
        return len(self.chunks)

    def chunk(self, chunk_id: str) -> Chunk:
        try:
            return self._by_id[chunk_id]
        except KeyError:
            raise InputError(f"no chunk {chunk_id!r} in the evidence pack") from None

    def has_chunk(self, chunk_id: str) -> bool:
        return chunk_id in self._by_id

    def quote(self, span: Span) -> str:
        """The exact text of ``span``; raises if it does not resolve into the pack."""
        chunk = self.chunk(span.chunk_id)
        if chunk.doc_id != span.doc_id:
            raise InputError(
                f"span names document {span.doc_id!r} but chunk {span.chunk_id!r} "
                f"belongs to {chunk.doc_id!r}"
            )
        return chunk.slice(span.start, span.end)

    def resolves(self, span: Span) -> bool:
        """Whether ``span`` points at real characters of a chunk in this pack."""
        chunk = self._by_id.get(span.chunk_id)
        return (
            chunk is not None
            and chunk.doc_id == span.doc_id
            and span.start < span.end
            and chunk.contains(span.start, span.end)
        )

    def sentences(self) -> list[Span]:
        """Every sentence of every chunk, in pack order."""
        return [sentence for chunk in self.chunks for sentence in chunk.sentences()]

    def paragraph_opening(self, span: Span) -> str:
        """The first sentence of the paragraph ``span`` stands in (of its chunk when the
        pack lacks the document), or "" when ``span`` is in that sentence."""
        document = self.documents.get(span.doc_id)
        if document is not None:
            return paragraph_opening(document.text, span.start)
        chunk = self.chunk(span.chunk_id)
        return paragraph_opening(chunk.text, span.start - chunk.start)

    def title(self, doc_id: str) -> str:
        document = self.documents.get(doc_id)
        return document.title if document is not None else ""

    def heading(self, span: Span) -> str:
        """The text of the last Markdown heading above ``span`` in its document (in its
        chunk when the pack lacks the document), or "" where none is."""
        document = self.documents.get(span.doc_id)
        if document is not None:
            above = document.text[:span.start]
        else:
            chunk = self.chunk(span.chunk_id)
            above = chunk.text[:max(0, span.start - chunk.start)]
        for line in reversed(above.splitlines()):
            heading = HEADING.match(line.strip())
            if heading is not None:
                return heading.group(1)
        return ""
