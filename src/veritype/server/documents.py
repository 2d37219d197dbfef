"""What the store holds: documents to add, list, read and delete, and the traces of runs."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from veritype._text import without_controls
from veritype.evidence import Document
from veritype.ingest.corpus import document_summary
from veritype.server.models import (
    BODY_ERRORS,
    ENGINE_ERRORS,
    NOT_FOUND,
    ChunkInfo,
    DocumentDetail,
    DocumentPage,
    DocumentsIn,
    DocumentSummary,
    IdParam,
    IngestResponse,
    StoredDocument,
    error_responses,
)
from veritype.server.service import Authorized, ServiceDep
from veritype.store import DocumentRecord

_SAME_SOURCE = {422: (
    "Invalid field values; each problem names its field. Two documents of one request with "
    "the same source (given, or derived from the same text) are refused, naming the later one."
)}


def default_source(text: str) -> str:
    """The source of a posted text that names none: its content hash, so reposting merges."""
    return "api:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _check_distinct_sources(sources: list[str], derived: list[bool]) -> None:
    """A 422 naming each document whose source an earlier one of the request has."""
    first: dict[str, int] = {}
    problems: list[dict[str, Any]] = []
    for index, source in enumerate(sources):
        if source not in first:
            first[source] = index
            continue
        problem = (f"has the same text as documents.{first[source]} and no source to tell "
                   "them apart" if derived[index] else
                   f"is also the source of documents.{first[source]}")
        problems.append({"loc": ("body", "documents", index, "source"), "msg": problem,
                         "type": "value_error"})
    if problems:
        raise RequestValidationError(problems)


def _summary(record: DocumentRecord) -> dict[str, Any]:
    return {**document_summary(record), "added_at": record.added_at}


def documents_router() -> APIRouter:
    router = APIRouter(dependencies=[Authorized])
    lookup_errors = error_responses(404, *ENGINE_ERRORS, notes=NOT_FOUND)

    @router.post(
        "/documents", response_model=IngestResponse, status_code=201,
        responses=error_responses(*BODY_ERRORS, notes=_SAME_SOURCE), tags=["documents"],
    )
    async def add_documents(body: DocumentsIn, service: ServiceDep) -> IngestResponse:
        """Ingest texts; a document whose source is already stored is replaced. Control
        characters (NUL among them) in a text, title or source are stored as spaces, and the
        sources of one request must differ once they are (422 naming the later document)."""
        # As the ingest stores them, so the ids returned are those of the stored documents.
        texts = [without_controls(item.text)[0] for item in body.documents]
        titles = [without_controls(item.title)[0] for item in body.documents]
        sources = [
            without_controls(item.source)[0] if item.source is not None else default_source(text)
            for item, text in zip(body.documents, texts, strict=True)
        ]
        _check_distinct_sources(sources, [item.source is None for item in body.documents])
        engine = service.engine
        report = await service.runner.call(
            lambda: engine.ingest_texts(texts, titles=titles, sources=sources)
        )
        return IngestResponse(
            documents=[
                StoredDocument(doc_id=Document.make_id(text, source), title=title, source=source)
                for text, title, source in zip(texts, titles, sources, strict=True)
            ],
            added=report.added,
            replaced=report.replaced,
            unchanged=report.unchanged,
            chunks=report.chunks,
            seconds=report.seconds,
        )

    @router.get(
        "/documents", response_model=DocumentPage, responses=error_responses(*ENGINE_ERRORS),
        tags=["documents"],
    )
    async def list_documents(
        service: ServiceDep,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
    ) -> DocumentPage:
        """Stored documents, oldest first, ``limit`` of them from ``offset``."""
        store = service.engine.corpus.store
        records, total = await service.runner.call(
            lambda: (store.documents(limit=limit, offset=offset), store.count_documents())
        )
        return DocumentPage(
            total=total, offset=offset, limit=limit,
            items=[DocumentSummary(**_summary(record)) for record in records],
        )

    @router.get(
        "/documents/{doc_id}", response_model=DocumentDetail, responses=lookup_errors,
        tags=["documents"],
    )
    async def get_document(doc_id: IdParam, service: ServiceDep) -> DocumentDetail:
        """A document's text and metadata, with its chunks' offsets."""
        corpus = service.engine.corpus
        found = await service.runner.call(
            lambda: (corpus.store.document(doc_id), corpus.store.document_chunks(doc_id))
        )
        record, chunks = found
        if record is None:
            raise HTTPException(404, f"no document {doc_id!r}")
        names = {spec.chunking.key: spec.name for spec in corpus.indexes}
        return DocumentDetail(
            **_summary(record),
            text=record.document.text,
            origin=record.origin,
            chunk_spans=[
                ChunkInfo(chunk_id=chunk.chunk_id, index=names.get(key, key),
                          start=chunk.start, end=chunk.end)
                for key, chunk in chunks
            ],
        )

    @router.delete(
        "/documents/{doc_id}", status_code=204, responses=lookup_errors, tags=["documents"]
    )
    async def delete_document(doc_id: IdParam, service: ServiceDep) -> Response:
        """Delete a document with its chunks and vectors."""
        corpus = service.engine.corpus

        def delete() -> int:
            deleted = corpus.store.delete([doc_id])
            if deleted:
                corpus.refresh_indexes()
            return deleted

        if not await service.runner.call(delete):
            raise HTTPException(404, f"no document {doc_id!r}")
        return Response(status_code=204)

    @router.get("/traces/{trace_id}", responses=lookup_errors, tags=["traces"])
    async def get_trace(trace_id: IdParam, service: ServiceDep) -> dict[str, Any]:
        """A run's full trace: draft, belief graph with every view's result, evidence."""
        trace = await service.runner.call(lambda: service.engine.trace(trace_id))
        if trace is None:
            raise HTTPException(404, f"no trace {trace_id!r}")
        return trace

    return router
