"""Ingestion: files → documents → chunks per index → vectors → store, in atomic batches
(texts given in memory: in one transaction).

Unchanged documents (same text, title and index layout) are skipped before any chunking or
embedding; changed ones replace their old version inside the same transaction that writes
the new one. A file that cannot be read is skipped with a reason and the batch goes on.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, Unpack

import numpy as np

from veritype._text import without_controls
from veritype.deadline import checkpoint, commit_point
from veritype.evidence import Document
from veritype.ingest.readers import (
    READERS,
    RecordFields,
    SourceDocument,
    UnreadableFileError,
    read_file,
)
from veritype.progress import Progress
from veritype.retrieval.embedding import Embedder, create_embedder
from veritype.store import (
    ChunkVectors,
    DocumentRecord,
    DocumentWrite,
    IndexSpec,
    Store,
    TitledChunk,
    Vectors,
    WriteOutcome,
    layout_fingerprint,
)

DEFAULT_BATCH_SIZE = 64
# Chunks embedded per call: the progress of one big document's embedding is shown per slice.
EMBED_SLICE = 1024


class IngestOptions(TypedDict, total=False):
    """How an ingest reads files: glob patterns to include and exclude (relative paths),
    the fields of JSON/CSV records, and where its progress goes."""

    include: Sequence[str]
    exclude: Sequence[str]
    fields: RecordFields | None
    progress: Progress | None


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file left out of an ingest, and why."""

    path: str
    reason: str


@dataclass(slots=True)
class IngestReport:
    """What an ingest did; ``skipped`` and ``warnings`` name every file or row left out."""

    files: int = 0
    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    removed: int = 0
    chunks: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _matches(relative: str, patterns: Sequence[str]) -> bool:
    name = relative.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(name, p) for p in patterns)


def collect_files(
    paths: Sequence[Path], *, include: Sequence[str] = (), exclude: Sequence[str] = ()
) -> tuple[list[Path], list[Skipped]]:
    """The files to ingest: named files as given, folders walked recursively.

    In a folder, a file is taken when it matches an ``include`` glob (default: every
    supported suffix) and no ``exclude`` glob; globs match the path relative to the folder
    or the bare file name. Hidden files and folders are left out of a walk.
    """
    default_include = [f"*{suffix}" for suffix in READERS]
    files: list[Path] = []
    missing: list[Skipped] = []
    for path in paths:
        if path.is_dir():
            for candidate in sorted(path.rglob("*")):
                relative = candidate.relative_to(path).as_posix()
                if any(part.startswith(".") for part in candidate.relative_to(path).parts):
                    continue
                if (
                    candidate.is_file()
                    and _matches(relative, include or default_include)
                    and not _matches(relative, exclude)
                ):
                    files.append(candidate)
        elif path.exists():
            if not _matches(path.name, exclude):
                files.append(path)
        else:
            missing.append(Skipped(str(path), "no such file or directory"))
    unique = list(dict.fromkeys(file.resolve() for file in files))
    return unique, missing


def fingerprint(document: Document, layout: str) -> str:
    payload = json.dumps([document.source, document.title, document.text, layout])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:24]


class Ingestor:
    """Writes documents into a store under an index layout (chunking and vectors per index)."""

    def __init__(
        self,
        store: Store,
        indexes: Sequence[IndexSpec],
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        embedders: dict[str, Embedder] | None = None,
    ) -> None:
        """``embedders`` maps dense index names to models already loaded (by default each
        index loads its own ``model``)."""
        self.store = store
        self.indexes = list(indexes)
        self.batch_size = batch_size
        self.layout = layout_fingerprint(self.indexes)
        self._embedders = dict(embedders or {})

    def _embedder(self, spec: IndexSpec) -> Embedder:
        if spec.name not in self._embedders:
            self._embedders[spec.name] = create_embedder(spec.model, max_tokens=spec.max_tokens)
        return self._embedders[spec.name]

    def ingest(self, paths: Sequence[Path | str], **options: Unpack[IngestOptions]
               ) -> IngestReport:
        """Ingest files and folders; ``progress`` hears of each file, batch and warning."""
        started = time.perf_counter()
        progress, fields = options.get("progress"), options.get("fields")
        files, missing = collect_files(
            [Path(path) for path in paths], include=options.get("include", ()),
            exclude=options.get("exclude", ()),
        )
        report = IngestReport(skipped=list(missing))
        if progress is not None:
            for skipped in missing:
                progress.warn(f"skipped {skipped.path}: {skipped.reason}")
        self._save_layout()
        file_task = progress.start("files", total=len(files)) if progress else None
        for path in files:
            if progress is not None and file_task is not None:
                progress.describe(file_task, _short(path))
            self._ingest_file(path, fields, report, progress)
            if progress is not None and file_task is not None:
                progress.advance(file_task)
                progress.describe(file_task, _counts(report, time.perf_counter() - started))
        report.seconds = time.perf_counter() - started
        return report

    def ingest_documents(
        self, documents: Iterable[SourceDocument], *, origin: str = ""
    ) -> IngestReport:
        """Ingest documents that are already text (the Python API's way in) in one
        transaction: under a deadline (a server request) the ingest stops at a checkpoint
        while it chunks and embeds, having stored nothing, or stores every document."""
        started = time.perf_counter()
        report = IngestReport()
        sources = list(documents)
        documents_in = [self._document(item, report, None) for item in sources]
        media_types = _media_types(documents_in, sources)
        writes: list[DocumentWrite] = []
        for batch in _batches(self._changed(documents_in, report), self.batch_size):
            checkpoint("the next ingest batch")
            writes.extend(self._prepare(batch, origin, media_types, None))
        commit_point("storing the documents")
        self._save_layout()
        _record(report, writes, self.store.write(writes))
        report.seconds = time.perf_counter() - started
        return report

    def _save_layout(self) -> None:
        if self.store.layout() != self.indexes:
            self.store.save_layout(self.indexes)

    def _ingest_file(
        self,
        path: Path,
        fields: RecordFields | None,
        report: IngestReport,
        progress: Progress | None,
    ) -> None:
        try:
            contents = read_file(path, fields)
        except UnreadableFileError as error:
            report.skipped.append(Skipped(str(path), str(error)))
            if progress is not None:
                progress.warn(f"skipped {path}: {error}")
            return
        report.files += 1
        for warning in contents.row_warnings:
            _warn(report, progress, warning)
        self._ingest_contents(contents.documents, str(path), report, progress)

    def _ingest_contents(
        self,
        sources: list[SourceDocument],
        origin: str,
        report: IngestReport,
        progress: Progress | None,
    ) -> None:
        documents = [self._document(item, report, progress) for item in sources]
        media_types = _media_types(documents, sources)
        pending = self._changed(documents, report)
        task: int | None = None
        if progress is not None and pending:
            task = progress.start(f"  {_short(Path(origin))}", total=len(pending))
        for batch in _batches(pending, self.batch_size):
            writes = self._prepare(batch, origin, media_types, progress)
            _record(report, writes, self.store.write(writes))
            if progress is not None and task is not None:
                progress.advance(task, len(batch))
        if progress is not None and task is not None:
            progress.finish(task)
        if origin:
            current_sources = {document.source for document in documents}
            gone = [s for s in self.store.sources_from(origin) if s not in current_sources]
            report.removed += self.store.delete_sources(gone) if gone else 0

    def _changed(
        self, documents: list[Document], report: IngestReport
    ) -> list[tuple[Document, str]]:
        """The documents whose stored version differs, with their new fingerprints; the
        others count as unchanged."""
        stored = self.store.fingerprints([document.source for document in documents])
        pending: list[tuple[Document, str]] = []
        for document in documents:
            current = fingerprint(document, self.layout)
            if stored.get(document.source) == current:
                report.unchanged += 1
            else:
                pending.append((document, current))
        return pending

    def _document(
        self, item: SourceDocument, report: IngestReport, progress: Progress | None
    ) -> Document:
        """The document to store: control characters (NUL among them), which PostgreSQL
        cannot keep, become spaces, so offsets into the text still hold."""
        text, replaced = without_controls(item.text)
        title, _ = without_controls(item.title)
        source, _ = without_controls(item.source)
        if replaced:
            _warn(report, progress, f"{source}: {replaced} control character"
                  f"{'s' if replaced > 1 else ''} (such as NUL) replaced by spaces")
        return Document.from_text(text, title=title, source=source)

    def _embed(self, spec: IndexSpec, texts: list[str], progress: Progress | None) -> Vectors:
        return _embed_slices(self._embedder(spec).embed_batch, texts, progress,
                             f"  embedding for {spec.name}")

    def _prepare(
        self,
        batch: list[tuple[Document, str]],
        origin: str,
        media_types: dict[str, str],
        progress: Progress | None,
    ) -> list[DocumentWrite]:
        now = time.time()
        chunkings = {spec.chunking.key: spec.chunking for spec in self.indexes}
        writes = [
            DocumentWrite(
                record=DocumentRecord(
                    document=document,
                    origin=origin,
                    media_type=media_types.get(document.source, "text/plain"),
                    fingerprint=stamp,
                    added_at=now,
                ),
                chunks={key: chunking.split(document) for key, chunking in chunkings.items()},
            )
            for document, stamp in batch
        ]
        for spec in self.indexes:
            if spec.kind != "dense":
                continue
            per_document = [
                [
                    TitledChunk(chunk, write.record.document.title)
                    for chunk in write.chunks[spec.chunking.key]
                ]
                for write in writes
            ]
            texts = [item.index_text for chunks in per_document for item in chunks]
            vectors = self._embed(spec, texts, progress)
            offset = 0
            for write, chunks in zip(writes, per_document, strict=True):
                rows = vectors[offset : offset + len(chunks)]
                offset += len(chunks)
                write.vectors[spec.name] = ChunkVectors(
                    [item.chunk.chunk_id for item in chunks], rows
                )
        return writes


def _embed_slices(
    embed: Callable[[Sequence[str]], Vectors], texts: list[str], progress: Progress | None,
    description: str,
) -> Vectors:
    """``embed`` over ``texts`` in slices of ``EMBED_SLICE``, so the chunks of one big
    document show their progress; slicing is the same with or without a progress bar."""
    if len(texts) <= EMBED_SLICE:
        return embed(texts)
    task = progress.start(description, total=len(texts)) if progress is not None else None
    parts: list[Vectors] = []
    started = time.perf_counter()
    for start in range(0, len(texts), EMBED_SLICE):
        parts.append(embed(texts[start : start + EMBED_SLICE]))
        if progress is not None and task is not None:
            progress.advance(task, len(parts[-1]))
            rate = chunk_rate(start + len(parts[-1]), time.perf_counter() - started)
            progress.describe(task, f"{description} ({rate})")
    if progress is not None and task is not None:
        progress.finish(task)
    return np.vstack(parts)


def _media_types(documents: list[Document], sources: list[SourceDocument]) -> dict[str, str]:
    return {document.source: item.media_type
            for document, item in zip(documents, sources, strict=True)}


def _record(report: IngestReport, writes: list[DocumentWrite], outcomes: list[WriteOutcome]
            ) -> None:
    for write, outcome in zip(writes, outcomes, strict=True):
        setattr(report, outcome, getattr(report, outcome) + 1)
        if outcome != "unchanged":
            report.chunks += write.record.chunk_count


def _batches(items: list[tuple[Document, str]], size: int) -> Iterator[list[tuple[Document, str]]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _warn(report: IngestReport, progress: Progress | None, warning: str) -> None:
    report.warnings.append(warning)
    if progress is not None:
        progress.warn(warning)


def chunk_rate(chunks: int, seconds: float) -> str:
    """``chunks`` over ``seconds`` as the progress and the summary show it: "85 chunks/s"."""
    return f"{chunks / max(seconds, 1e-9):,.0f} chunks/s"


def _counts(report: IngestReport, seconds: float) -> str:
    """The running totals, with the chunks written per second so far (chunking, embedding
    and storing together)."""
    return (
        f"{report.added} added, {report.replaced} replaced, {report.unchanged} unchanged, "
        f"{len(report.skipped)} skipped; {report.chunks:,} chunks, "
        f"{chunk_rate(report.chunks, seconds)}"
    )


def _short(path: Path) -> str:
    return path.name if len(str(path)) > 40 else str(path)
