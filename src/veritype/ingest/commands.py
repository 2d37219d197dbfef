"""The corpus commands of the CLI: ``ingest``, ``documents list|show|delete``, ``search``
and ``traces prune``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from veritype._cli import StoreOption, output_console, rich_progress
from veritype._cli import fail as _fail
from veritype.errors import InputError, VeritypeError
from veritype.ingest.corpus import HYBRID, Corpus, document_summary
from veritype.ingest.engines import IngestEngine, create_ingest_engine
from veritype.ingest.pipeline import IngestReport, Skipped, chunk_rate, collect_files
from veritype.ingest.readers import RecordFields, UnreadableFileError, read_file
from veritype.settings import env
from veritype.store import Chunking, IndexSpec, StoreError, StoreNotFoundError

_out = output_console()
_err = Console(stderr=True)


def _open(
    store: str | None, indexes: list[IndexSpec] | None = None, *, create: bool = False
) -> Corpus:
    """The corpus at ``store``; only writers (``create``) may bring a new store into being."""
    try:
        return Corpus.open(store, indexes=indexes, create=create)
    except VeritypeError as error:
        raise _fail(str(error)) from None


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files and folders to ingest.")],
    store: StoreOption = None,
    include: Annotated[
        list[str] | None,
        typer.Option("--include", "-i", help="Glob of files to take from folders (repeatable)."),
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", "-x", help="Glob of files to leave out.")
    ] = None,
    text_field: Annotated[
        str | None, typer.Option("--text-field", help="JSONL/CSV field with the text.")
    ] = None,
    title_field: Annotated[
        str | None, typer.Option("--title-field", help="JSONL/CSV field with the title.")
    ] = None,
    id_field: Annotated[
        str | None, typer.Option("--id-field", help="JSONL/CSV field with a stable row id.")
    ] = None,
    chunk_chars: Annotated[
        int | None,
        typer.Option("--chunk-chars", help="Maximum chunk size in characters (all indexes)."),
    ] = None,
    overlap: Annotated[
        int | None,
        typer.Option("--overlap", help="Sentences repeated between neighbouring chunks."),
    ] = None,
    engine: Annotated[
        str, typer.Option(help="local, or ray: read, chunk and embed on Ray workers (needs the "
                          "ray extra).")
    ] = "local",
    address: Annotated[str | None, typer.Option(
        help="Ray cluster address ('auto' for one started with `ray start`; default: start "
             "a local cluster).", show_default=False)] = None,
    workers: Annotated[int | None, typer.Option(
        help="Ray workers (one CPU each).", min=1, show_default="2")] = None,
) -> None:
    """Ingest .txt, .md, .html, .pdf, .jsonl and .csv files (folders recursively)."""
    fields = RecordFields(text=text_field, title=title_field, identifier=id_field)
    # The engine first: options that cannot work must fail before any store is touched.
    runner = _engine(engine, address, workers)
    if not _store_exists(store):
        skipped = _all_skipped(paths, include or (), exclude or (), fields)
        if skipped is not None:
            # Nothing to store: a store that does not exist yet is not created empty.
            for item in skipped:
                _err.print(f"[yellow]warning:[/] skipped {escape(item.path)}: "
                           f"{escape(item.reason)}", highlight=False, soft_wrap=True)
            _print_ingest(IngestReport(skipped=skipped), 0)
            if skipped:
                raise _fail("no file could be ingested")
            return
    indexes = None
    if chunk_chars is not None or overlap is not None:
        try:
            indexes = _layout_with_chunking(store, chunk_chars, overlap)
        except ValueError as error:
            raise _fail(str(error)) from None
    corpus = _open(store, indexes, create=True)
    try:
        with corpus, rich_progress(_err) as progress:
            report = corpus.ingest(
                paths,
                engine=runner,
                include=include or (),
                exclude=exclude or (),
                fields=fields,
                progress=progress,
            )
            stored = corpus.store.count_documents()
    except VeritypeError as error:
        raise _fail(str(error)) from None
    _print_ingest(report, stored, runner)
    if not report.files and report.skipped:
        raise _fail("no file could be ingested")


def _engine(name: str, address: str | None, workers: int | None) -> IngestEngine | None:
    """The engine of ``--engine`` with its options; ``None`` for a local ingest."""
    if name == "local":
        if address is not None or workers is not None:
            raise _fail("--address and --workers need --engine ray")
        return None
    options: dict[str, Any] = {"address": address}
    if workers is not None:
        options["workers"] = workers
    try:
        return create_ingest_engine(name, **options)
    except VeritypeError as error:
        raise _fail(str(error)) from None


def _store_exists(store: str | None) -> bool:
    try:
        Corpus.open(store, create=False).close()
    except StoreNotFoundError:
        return False
    except VeritypeError as error:
        raise _fail(str(error)) from None
    return True


def _all_skipped(
    paths: list[Path], include: Sequence[str], exclude: Sequence[str], fields: RecordFields
) -> list[Skipped] | None:
    """Every file an ingest of ``paths`` would skip, with why, when it would skip them all;
    ``None`` once one file reads (only that file is read twice, by the ingest after)."""
    files, skipped = collect_files(paths, include=include, exclude=exclude)
    for path in files:
        try:
            read_file(path, fields)
        except UnreadableFileError as error:
            skipped.append(Skipped(str(path), str(error)))
        else:
            return None
    return skipped


def fill_demo(corpus: Corpus) -> None:
    """Ingest the bundled demo corpus into an empty store, with a progress bar, and say so."""
    with rich_progress(_err) as progress:
        report = corpus.ensure_demo(progress=progress)
    if report is not None:
        _err.print(
            f"Ingested the demo corpus ({report.added} SciFact abstracts) into "
            f"{corpus.store.url}.",
            highlight=False,
            soft_wrap=True,
        )


def _layout_with_chunking(
    store: str | None, chunk_chars: int | None, overlap: int | None
) -> list[IndexSpec]:
    with _open(store, create=True) as corpus:
        current = corpus.indexes
    layout = []
    for spec in current:
        chunking = Chunking(
            max_chars=chunk_chars if chunk_chars is not None else spec.chunking.max_chars,
            overlap_sentences=overlap if overlap is not None else spec.chunking.overlap_sentences,
        )
        layout.append(replace(spec, chunking=chunking))
    return layout


def _print_ingest(report: IngestReport, stored: int, engine: IngestEngine | None = None
                  ) -> None:
    where = "" if engine is None else f" on {engine.workers} {engine.name} workers"
    _out.print(
        f"{report.files} files: {report.added} documents added, {report.replaced} replaced, "
        f"{report.unchanged} unchanged, {report.removed} removed, {len(report.skipped)} "
        f"files skipped; {report.chunks} chunks written in {report.seconds:.1f} s "
        f"({chunk_rate(report.chunks, report.seconds)}{where}). "
        f"The store holds {stored} documents.",
        highlight=False,
    )


documents_app = typer.Typer(help="List, show and delete stored documents.", no_args_is_help=True)


@documents_app.command("list")
def list_documents(
    store: StoreOption = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many to list.")] = 50,
    offset: Annotated[int, typer.Option("--offset", help="Skip this many first.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
) -> None:
    """List stored documents, oldest first."""
    with _open(store) as corpus:
        records = corpus.store.documents(limit=limit, offset=offset)
        total = corpus.store.count_documents()
    if as_json:
        for record in records:
            typer.echo(json.dumps(document_summary(record)))
        return
    table = Table(
        title=f"Documents {offset + 1 if records else 0}–{offset + len(records)} of {total}"
    )
    for column in ("doc_id", "title", "source", "chars", "chunks"):
        table.add_column(column, overflow="fold", no_wrap=column == "doc_id")
    for record in records:
        table.add_row(
            record.doc_id,
            escape(record.document.title),
            escape(record.source),
            str(len(record.document.text)),
            str(record.chunk_count),
        )
    _out.print(table)


@documents_app.command("show")
def show_document(
    doc_id: Annotated[str, typer.Argument(help="The document id (from `documents list`).")],
    store: StoreOption = None,
    chunks: Annotated[bool, typer.Option("--chunks", help="Also list its chunks.")] = False,
) -> None:
    """Show one document: metadata, text and (with --chunks) chunk offsets."""
    with _open(store) as corpus:
        record = corpus.store.document(doc_id)
        if record is None:
            raise _fail(f"no document {doc_id!r} in {corpus.store.url}")
        keys = {spec.chunking.key: spec.name for spec in corpus.indexes}
        chunk_rows = [
            (", ".join(n for k, n in keys.items() if k == key) or key, chunk)
            for key, chunk in (corpus.store.document_chunks(doc_id) if chunks else [])
        ]
    added = datetime.fromtimestamp(record.added_at, tz=UTC).isoformat(timespec="seconds")
    for label, value in (
        ("doc_id", record.doc_id),
        ("title", record.document.title),
        ("source", record.source),
        ("origin", record.origin),
        ("media type", record.media_type),
        ("added", added),
        ("chars", str(len(record.document.text))),
        ("chunks", str(record.chunk_count)),
    ):
        _out.print(f"[bold]{label}:[/] {escape(value)}", highlight=False, soft_wrap=True)
    _out.print()
    _out.print(escape(record.document.text), highlight=False, soft_wrap=True)
    if chunk_rows:
        table = Table(title="Chunks")
        for column in ("index", "chunk_id", "start", "end", "text"):
            table.add_column(column, overflow="fold")
        for index_name, chunk in chunk_rows:
            preview = chunk.text if len(chunk.text) <= 80 else chunk.text[:77] + "..."
            table.add_row(
                index_name, chunk.chunk_id, str(chunk.start), str(chunk.end), escape(preview)
            )
        _out.print(table)


@documents_app.command("delete")
def delete_documents(
    doc_ids: Annotated[list[str], typer.Argument(help="Ids of the documents to delete.")],
    store: StoreOption = None,
) -> None:
    """Delete documents with their chunks and vectors."""
    with _open(store) as corpus:
        missing = [doc_id for doc_id in doc_ids if corpus.store.document(doc_id) is None]
        if missing:
            raise _fail(f"no document {', '.join(map(repr, missing))} in {corpus.store.url}")
        deleted = corpus.store.delete(doc_ids)
        corpus.refresh_indexes()
    _out.print(f"Deleted {deleted} document{'s' if deleted != 1 else ''}.")


def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    store: StoreOption = None,
    k: Annotated[int, typer.Option("-k", help="How many chunks to return.")] = 5,
    retriever: Annotated[
        str, typer.Option("--retriever", "-r", help="hybrid, or an index name (bm25, dense).")
    ] = HYBRID,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """Retrieve the chunks that best match QUERY, with their exact character spans.

    Without --store (and $VERITYPE_STORE), an empty default store is first filled with the
    bundled demo corpus (283 SciFact abstracts).
    """
    if k < 1:
        raise _fail(f"-k must be at least 1, got {k}")
    demo = store is None and not env("STORE")
    with _open(store, create=demo) as corpus:
        if demo:
            fill_demo(corpus)
        try:
            hits = corpus.retrieve(query, k, retriever=retriever)
        except VeritypeError as error:
            raise _fail(str(error)) from None
    if as_json:
        typer.echo(
            json.dumps(
                [
                    {
                        "rank": rank,
                        "score": hit.score,
                        "doc_id": hit.chunk.doc_id,
                        "chunk_id": hit.chunk.chunk_id,
                        "start": hit.chunk.start,
                        "end": hit.chunk.end,
                        "title": hit.title,
                        "text": hit.chunk.text,
                    }
                    for rank, hit in enumerate(hits, start=1)
                ],
                indent=2,
            )
        )
        return
    if not hits:
        _out.print("No matching chunks.")
    for rank, hit in enumerate(hits, start=1):
        _out.print(
            f"[bold]{rank}.[/] {escape(hit.title or hit.chunk.doc_id)} "
            f"[dim]{hit.chunk.doc_id} {hit.chunk.start}..{hit.chunk.end} "
            f"score {hit.score:.4f}[/]",
            highlight=False,
            soft_wrap=True,
        )
        text = hit.chunk.text if len(hit.chunk.text) <= 300 else hit.chunk.text[:297] + "..."
        _out.print(f"   {escape(text)}", highlight=False, soft_wrap=True)


traces_app = typer.Typer(help="The traces of answered and verified requests.",
                         no_args_is_help=True)

_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """Seconds in ``text``: a number with an optional unit s, m, h or d (``30d``, ``12h``)."""
    value = text.strip().lower()
    unit = _DURATION_UNITS.get(value[-1:], 0)
    number = value[:-1] if unit else value
    try:
        seconds = float(number) * (unit or 1)
    except ValueError:
        raise InputError(f"{text!r} is not a duration such as 3600, 90m, 12h or 30d") from None
    if not seconds > 0:
        raise InputError(f"a duration must be positive, got {text!r}")
    return seconds


@traces_app.command("prune")
def prune_traces(
    store: StoreOption = None,
    older_than: Annotated[
        str | None,
        typer.Option("--older-than", help="Delete traces older than this: 3600, 90m, 12h, 30d."),
    ] = None,
    keep: Annotated[
        int | None, typer.Option("--keep", help="Then keep only the newest N traces.")
    ] = None,
) -> None:
    """Delete old traces (oldest first); documents are never touched."""
    if older_than is None and keep is None:
        raise _fail("give --older-than, --keep or both")
    if keep is not None and keep < 0:
        raise _fail(f"--keep must be 0 or more, got {keep}")
    try:
        seconds = None if older_than is None else parse_duration(older_than)
    except ValueError as error:
        raise _fail(f"--older-than: {error}") from None
    with _open(store) as corpus:
        try:
            deleted = corpus.store.prune_traces(older_than=seconds, keep=keep)
            remaining = corpus.store.count_traces()
        except StoreError as error:
            raise _fail(str(error)) from None
    _out.print(f"Deleted {deleted} trace{'s' if deleted != 1 else ''}; {remaining} remain.",
               highlight=False)


def register(app: typer.Typer) -> None:
    """Add the corpus commands to the main CLI."""
    app.command("ingest")(ingest)
    app.add_typer(documents_app, name="documents")
    app.command("search")(search)
    app.add_typer(traces_app, name="traces")
