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


class ChunkPreparer:
    """Chunks and embeds documents into the writes a store takes: the part of an ingest that
    needs no store, so that it runs in this process or on a worker of a cluster alike."""

    def __init__(
        self,
        indexes: Sequence[IndexSpec],
        *,
        embedders: dict[str, Embedder] | None = None,
        threads: int | None = None,
    ) -> None:
        """``embedders`` maps dense index names to models already loaded (by default each
        index loads its own ``model``, with ``threads`` threads if given)."""
        self.indexes = list(indexes)
        self._embedders = dict(embedders or {})
        self._threads = threads

    def _embedder(self, spec: IndexSpec) -> Embedder:
        if spec.name not in self._embedders:
            options = {"threads": self._threads} if self._threads else {}
            self._embedders[spec.name] = create_embedder(spec.model, max_tokens=spec.max_tokens,
                                                         **options)
        return self._embedders[spec.name]

    def _embed(self, spec: IndexSpec, texts: list[str], progress: Progress | None) -> Vectors:
        return _embed_slices(self._embedder(spec).embed_batch, texts, progress,
                             f"  embedding for {spec.name}")

    def prepare(
        self,
        batch: list[tuple[Document, str]],
        origin: str,
        media_types: dict[str, str],
        progress: Progress | None,
    ) -> list[DocumentWrite]:
        """The writes of ``batch`` (documents with their fingerprints), read from ``origin``:
        each document's chunks under every chunking and its vectors for every dense index."""
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
        self.preparer = ChunkPreparer(self.indexes, embedders=embedders)

    def ingest(self, paths: Sequence[Path | str], **options: Unpack[IngestOptions]
               ) -> IngestReport:
        """Ingest files and folders; ``progress`` hears of each file, batch and warning."""
        started = time.perf_counter()
        progress, fields = options.get("progress"), options.get("fields")
        files, report = self.begin(paths, options)
        file_task = progress.start("files", total=len(files)) if progress else None
        for path in files:
            if progress is not None and file_task is not None:
                progress.describe(file_task, short_path(path))
            self._ingest_file(path, fields, report, progress)
            if progress is not None and file_task is not None:
                progress.advance(file_task)
                progress.describe(file_task, running_counts(report, time.perf_counter() - started))
        report.seconds = time.perf_counter() - started
        return report

    def begin(
        self, paths: Sequence[Path | str], options: IngestOptions
    ) -> tuple[list[Path], IngestReport]:
        """The files an ingest of ``paths`` reads, and its report, which counts (and the
        progress says at once) the paths that do not exist; the layout is saved first."""
        files, missing = collect_files(
            [Path(path) for path in paths], include=options.get("include", ()),
            exclude=options.get("exclude", ()),
        )
        report = IngestReport()
        for skipped in missing:
            skip(report, options.get("progress"), skipped)
        self.save_layout()
        return files, report

    def ingest_documents(
        self, documents: Iterable[SourceDocument], *, origin: str = ""
    ) -> IngestReport:
        """Ingest documents that are already text (the Python API's way in) in one
        transaction: under a deadline (a server request) the ingest stops at a checkpoint
        while it chunks and embeds, having stored nothing, or stores every document."""
        started = time.perf_counter()
        report = IngestReport()
        sources = list(documents)
        documents_in = [stored_document(item, report.warnings) for item in sources]
        media_types = _media_types(documents_in, sources)
        writes: list[DocumentWrite] = []
        for batch in batches(self.changed(documents_in, report), self.batch_size):
            checkpoint("the next ingest batch")
            writes.extend(self.preparer.prepare(batch, origin, media_types, None))
        commit_point("storing the documents")
        self.save_layout()
        self.commit(writes, report)
        report.seconds = time.perf_counter() - started
        return report

    def save_layout(self) -> None:
        """Keep the index layout in the store, where it differs (before the first write)."""
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
            contents = read_documents(path, fields)
        except UnreadableFileError as error:
            skip(report, progress, Skipped(str(path), str(error)))
            return
        report.files += 1
        for warning in contents.warnings:
            _warn(report, progress, warning)
        pending = self.changed(contents.documents, report)
        task: int | None = None
        if progress is not None and pending:
            task = progress.start(f"  {short_path(path)}", total=len(pending))
        for batch in batches(pending, self.batch_size):
            writes = self.preparer.prepare(batch, contents.origin, contents.media_types,
                                           progress)
            self.commit(writes, report)
            if progress is not None and task is not None:
                progress.advance(task, len(batch))
        if progress is not None and task is not None:
            progress.finish(task)
        self.remove_gone(contents, report)

    def commit(self, writes: list[DocumentWrite], report: IngestReport) -> None:
        """Store ``writes`` in one transaction and count what it did to each document."""
        _record(report, writes, self.store.write(writes))

    def remove_gone(self, contents: FileDocuments, report: IngestReport) -> None:
        """Delete the documents once read from the same file that it no longer holds (rows
        gone from a JSON Lines or CSV file)."""
        current_sources = {document.source for document in contents.documents}
        gone = [s for s in self.store.sources_from(contents.origin) if s not in current_sources]
        report.removed += self.store.delete_sources(gone) if gone else 0

    def changed(
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


@dataclass(slots=True)
class FileDocuments:
    """A file read for an ingest: its documents as they are stored, their media types by
    source, and the warnings reading gave (rows left out, characters replaced), in order."""

    origin: str
    documents: list[Document]
    media_types: dict[str, str]
    warnings: list[str]


def read_documents(path: Path, fields: RecordFields | None) -> FileDocuments:
    """Read ``path`` into the documents an ingest stores; raises :class:`UnreadableFileError`
    with the reason when it cannot be ingested."""
    contents = read_file(path, fields)
    warnings = list(contents.row_warnings)
    documents = [stored_document(item, warnings) for item in contents.documents]
    return FileDocuments(str(path), documents, _media_types(documents, contents.documents),
                         warnings)


def stored_document(item: SourceDocument, warnings: list[str]) -> Document:
    """The document to store: control characters (NUL among them), which PostgreSQL cannot
    keep, become spaces, so offsets into the text still hold; a warning says how many."""
    text, replaced = without_controls(item.text)
    title, _ = without_controls(item.title)
    source, _ = without_controls(item.source)
    if replaced:
        warnings.append(f"{source}: {replaced} control character"
                        f"{'s' if replaced > 1 else ''} (such as NUL) replaced by spaces")
    return Document.from_text(text, title=title, source=source)


def skip(report: IngestReport, progress: Progress | None, skipped: Skipped) -> None:
    """Count a file left out of the ingest, and say why at once."""
    report.skipped.append(skipped)
    if progress is not None:
        progress.warn(f"skipped {skipped.path}: {skipped.reason}")


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


def batches(items: list[tuple[Document, str]], size: int) -> Iterator[list[tuple[Document, str]]]:
    """``items`` in consecutive batches of ``size`` (the last may be shorter)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _warn(report: IngestReport, progress: Progress | None, warning: str) -> None:
    report.warnings.append(warning)
    if progress is not None:
        progress.warn(warning)


def chunk_rate(chunks: int, seconds: float) -> str:
    """``chunks`` over ``seconds`` as the progress and the summary show it: "85 chunks/s"."""
    return f"{chunks / max(seconds, 1e-9):,.0f} chunks/s"


def running_counts(report: IngestReport, seconds: float) -> str:
    """The running totals, with the chunks written per second so far (chunking, embedding
    and storing together)."""
    return (
        f"{report.added} added, {report.replaced} replaced, {report.unchanged} unchanged, "
        f"{len(report.skipped)} skipped; {report.chunks:,} chunks, "
        f"{chunk_rate(report.chunks, seconds)}"
    )


def short_path(path: Path) -> str:
    return path.name if len(str(path)) > 40 else str(path)
