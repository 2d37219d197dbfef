"""The Ray ingest engine: files read, chunked and embedded on Ray actors, stored from here.

The driver lists the files and holds the only store connection, so any store works, SQLite
included, wherever the workers run. Each actor loads the embedding models once, reads whole
files into documents (the local readers, with the same warnings and reasons to skip), and
turns batches of the documents the store lacks into writes: chunks and vectors. The driver
stores each batch in one transaction under the content-hash fingerprint of a local ingest,
so the ids, texts and offsets are those of a local ingest, and a rerun, also after a crash,
stores nothing twice.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Unpack

from veritype._closing import Closing
from veritype._ray import RAY_WORKERS, connect
from veritype.errors import ConfigurationError, VeritypeError
from veritype.evidence import Document
from veritype.ingest.pipeline import (
    ChunkPreparer,
    FileDocuments,
    IngestOptions,
    Ingestor,
    IngestReport,
    Skipped,
    batches,
    read_documents,
    running_counts,
    short_path,
)
from veritype.ingest.readers import RecordFields, UnreadableFileError
from veritype.progress import Progress
from veritype.store import DocumentWrite, IndexSpec

# Tasks queued on each actor: one running and the next, so no actor waits for the driver.
TASKS_PER_WORKER = 2

Batch = list[tuple[Document, str]]


class _IngestWorker:
    """A Ray actor: reads files, and chunks and embeds batches with models loaded once."""

    def __init__(self, indexes: list[IndexSpec], threads: int) -> None:
        self._preparer = ChunkPreparer(indexes, threads=threads)

    def read(self, path: str, fields: RecordFields | None) -> FileDocuments | str:
        """The file's documents, or why it cannot be ingested."""
        try:
            return read_documents(Path(path), fields)
        except UnreadableFileError as error:
            return str(error)

    def prepare(self, batch: Batch, origin: str, media_types: dict[str, str]
                ) -> list[DocumentWrite]:
        return self._preparer.prepare(batch, origin, media_types, None)


@dataclass(slots=True)
class _File:
    """A file read on the cluster whose batches are not all stored yet."""

    number: int
    contents: FileDocuments
    unstored: int
    task: int | None = None


@dataclass(slots=True)
class _Run:
    """One ingest's state on the driver: the work not yet given out, the tasks out on the
    actors, and what the files said (kept by file, so the report lists them in file order,
    as a local ingest does)."""

    ingestor: Ingestor
    report: IngestReport
    progress: Progress | None
    actors: list[Any]
    started: float = field(default_factory=time.perf_counter)
    unread: deque[tuple[int, Path]] = field(default_factory=deque)
    unprepared: deque[tuple[_File, Batch]] = field(default_factory=deque)
    running: dict[Any, tuple[int, Callable[[Any], None]]] = field(default_factory=dict)
    load: list[int] = field(default_factory=list)
    skipped: dict[int, Skipped] = field(default_factory=dict)
    warnings: dict[int, list[str]] = field(default_factory=dict)
    file_task: int | None = None

    def run(self, files: list[Path], fields: RecordFields | None) -> None:
        import ray

        self.unread.extend(enumerate(files))
        self.load = [0] * len(self.actors)
        if self.progress is not None:
            self.file_task = self.progress.start("files", total=len(files))
        while True:
            self._give_out(fields)
            if not self.running:
                break
            [ready], _ = ray.wait(list(self.running), num_returns=1)
            actor, handle = self.running.pop(ready)
            self.load[actor] -= 1
            handle(_result(ready))
        # Skipped files were counted as they came; the report lists them in file order.
        del self.report.skipped[len(self.report.skipped) - len(self.skipped):]
        self.report.skipped.extend(self.skipped[number] for number in sorted(self.skipped))
        self.report.warnings.extend(
            warning for number in sorted(self.warnings) for warning in self.warnings[number])

    def _give_out(self, fields: RecordFields | None) -> None:
        """Fill every actor's queue; batches first, so that files read wait in memory as
        briefly as possible."""
        while (self.unprepared or self.unread) and min(self.load) < TASKS_PER_WORKER:
            actor = self.load.index(min(self.load))
            if self.unprepared:
                file, batch = self.unprepared.popleft()
                ref = self.actors[actor].prepare.remote(
                    batch, file.contents.origin, file.contents.media_types)
                self.running[ref] = (actor, partial(self._prepared, file, batch))
            else:
                number, path = self.unread.popleft()
                ref = self.actors[actor].read.remote(str(path), fields)
                self.running[ref] = (actor, partial(self._read, number, path))
            self.load[actor] += 1

    def _read(self, number: int, path: Path, read: FileDocuments | str) -> None:
        if isinstance(read, str):
            self.skipped[number] = Skipped(str(path), read)
            self.report.skipped.append(self.skipped[number])
            self._say(f"skipped {path}: {read}")
            self._file_done()
            return
        self.report.files += 1
        self.warnings[number] = read.warnings
        for warning in read.warnings:
            self._say(warning)
        pending = self.ingestor.changed(read.documents, self.report)
        file = _File(number, read, unstored=0)
        for batch in batches(pending, self.ingestor.batch_size):
            self.unprepared.append((file, batch))
            file.unstored += 1
        if not pending:
            self._stored(file)
        elif self.progress is not None:
            file.task = self.progress.start(f"  {short_path(path)}", total=len(pending))

    def _prepared(self, file: _File, batch: Batch, writes: list[DocumentWrite]) -> None:
        self.ingestor.commit(writes, self.report)
        file.unstored -= 1
        if self.progress is not None and file.task is not None:
            self.progress.advance(file.task, len(batch))
        self._describe()
        if not file.unstored:
            self._stored(file)

    def _stored(self, file: _File) -> None:
        self.ingestor.remove_gone(file.contents, self.report)
        if self.progress is not None and file.task is not None:
            self.progress.finish(file.task)
        self._file_done()

    def _file_done(self) -> None:
        if self.progress is not None and self.file_task is not None:
            self.progress.advance(self.file_task)
        self._describe()

    def _describe(self) -> None:
        """The cluster's running totals on the files bar, chunks per second included."""
        if self.progress is not None and self.file_task is not None:
            self.progress.describe(
                self.file_task, running_counts(self.report, time.perf_counter() - self.started))

    def _say(self, warning: str) -> None:
        if self.progress is not None:
            self.progress.warn(warning)


def _result(ref: Any) -> Any:
    """What a task returned; an error of veritype's raised in an actor is raised here as it
    is, and a worker lost to the cluster as a :class:`VeritypeError`."""
    import ray

    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        if isinstance(error.cause, VeritypeError):
            raise error.cause from None
        raise
    except ray.exceptions.RayActorError as error:
        raise VeritypeError(
            f"a Ray worker of the ingest died ({error}); every batch stored so far is kept, "
            "and an ingest run again adds only the rest"
        ) from None


class RayIngestEngine(Closing):
    """Ingests on a Ray cluster with ``workers`` actors of ``cpus_per_worker`` CPUs each;
    ``address`` ``None`` starts a local cluster ("auto" joins one started with ``ray start``).
    Problems with the options or the cluster raise :class:`ConfigurationError` here, before
    any store is touched."""

    name = "ray"

    def __init__(
        self, *, address: str | None = None, workers: int = RAY_WORKERS,
        cpus_per_worker: float = 1.0,
    ) -> None:
        connect(address, workers, cpus_per_worker, ConfigurationError)
        self.workers = workers
        self._cpus = cpus_per_worker

    def ingest(
        self, ingestor: Ingestor, paths: Sequence[Path | str], **options: Unpack[IngestOptions]
    ) -> IngestReport:
        import ray

        started = time.perf_counter()
        files, report = ingestor.begin(paths, options)
        worker: Any = ray.remote(num_cpus=self._cpus)(_IngestWorker)
        # Each actor's models get the actor's CPUs, so actors do not fight over cores.
        threads = max(1, int(self._cpus))
        actors = [worker.remote(ingestor.indexes, threads)
                  for _ in range(min(self.workers, max(1, len(files))))]
        try:
            _Run(ingestor, report, options.get("progress"), actors, started).run(
                files, options.get("fields"))
        finally:
            for actor in actors:
                ray.kill(actor)
        report.seconds = time.perf_counter() - started
        return report

    def close(self) -> None:
        """Nothing to release: each ingest ends its own actors."""
