"""The HTTP service: question answering, verification, documents, traces, evaluation runs,
an OpenAI-compatible endpoint and the web trace viewer, in one FastAPI app."""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.routing import Match, Mount
from swagger_ui_bundle import swagger_ui_path

from veritype import __version__
from veritype._text import without_controls
from veritype.answer import ClaimReport, GroundedAnswer
from veritype.errors import InputError
from veritype.evidence import Document
from veritype.server import evals
from veritype.server.chat import OPENAI_PREFIX, chat_router
from veritype.server.logs import ACCESS_LOGGER
from veritype.server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from veritype.server.metrics import ServiceMetrics
from veritype.server.models import (
    ID_PATTERN,
    MAX_ID_CHARS,
    ChunkInfo,
    DocumentDetail,
    DocumentPage,
    DocumentsIn,
    DocumentSummary,
    ErrorBody,
    EvalRunDetail,
    EvalRunSummary,
    FieldProblem,
    Health,
    IngestResponse,
    OpenAIError,
    OpenAIErrorBody,
    QARequest,
    StoredDocument,
    VerifyRequest,
    error_responses,
)
from veritype.server.runner import DeadlineError, EngineRunner, Finished, SaturatedError
from veritype.server.service import (
    Answered,
    AnswerEngine,
    Authorized,
    ClaimCallback,
    Service,
    ServiceDep,
    outcome_fields,
)
from veritype.server.settings import ServerSettings, is_unspecified
from veritype.store import DocumentRecord

STATIC_DIR = Path(__file__).parent / "static"
SWAGGER_PREFIX = "/static/swagger-ui"
IdParam = Annotated[str, PathParam(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN)]
SSE_MEDIA_TYPE = "text/event-stream"

ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]

# The errors of the operations that queue engine or store work, and of those with a body.
_ENGINE_ERRORS = (401, 422, 429, 504)
_BODY_ERRORS = (400, 401, 413, 422, 429, 504)
_NOT_FOUND = {404: "No such document, trace or evaluation run."}
_SAME_SOURCE = {422: (
    "Invalid field values; each problem names its field. Two documents of one request with "
    "the same source (given, or derived from the same text) are refused, naming the later one."
)}
_SSE_DOC = {
    "description": "The GroundedAnswer as JSON, or with `Accept: text/event-stream` a stream "
    "of `claim` events (one ClaimReport each, as soon as it is typed) and a final `answer` "
    "event (the GroundedAnswer); a failure arrives as an `error` event.",
    # Before OpenAPI 3.2 the schema of an event stream is that of each event.
    "content": {SSE_MEDIA_TYPE: {"schema": {"oneOf": [
        {
            "type": "object",
            "required": ["event", "data"],
            "properties": {
                "event": {"const": event},
                "data": {"type": "string", "contentMediaType": "application/json",
                         "contentSchema": {"$ref": f"#/components/schemas/{model}"}},
            },
        }
        for event, model in (("claim", "ClaimReport"), ("answer", "GroundedAnswer"),
                             ("error", "ErrorBody"))
    ]}}},
}


class BodyTooLargeError(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than the limit of {limit:,} bytes")


# Scripts, styles and images only from this service, no frames: the viewer and /docs need no
# more (Swagger UI's icons are data: URLs; the viewer shows plots it fetched with the API key
# as blob: URLs), and markup injected through a stored text could load nothing from elsewhere.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = (
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("content-security-policy", CONTENT_SECURITY_POLICY),
)


def _header_values(scope: Mapping[str, Any], name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope["headers"] if key.lower() == name]


def declared_length(scope: Mapping[str, Any]) -> int | None:
    """The body size the Content-Length header declares (``None`` without one); a list of
    equal values counts as one. ``ValueError`` when it is not a byte count."""
    values = {part.strip() for value in _header_values(scope, b"content-length")
              for part in value.split(",")}
    if not values:
        return None
    if len(values) > 1 or not all(value.isascii() and value.isdigit() for value in values):
        raise ValueError(f"{', '.join(sorted(values))!r} is not a byte count")
    return int(values.pop())


class RequestMiddleware:
    """Refuses requests for foreign Host names and bodies over the cap, adds the security
    headers to every response, and logs and counts each request once it ends."""

    def __init__(
        self, app: ASGIApp, *, settings: ServerSettings, metrics: ServiceMetrics
    ) -> None:
        self.app = app
        self.settings = settings
        self.max_body_bytes = settings.max_body_bytes
        self.metrics = metrics
        self.log = logging.getLogger(ACCESS_LOGGER)

    def refusal(self, scope: Mapping[str, Any]) -> JSONResponse | None:
        """The error response for a request refused on its headers alone, if it is."""
        openai_shape = _is_openai(scope["path"])
        hosts = _header_values(scope, b"host")
        host = hosts[0] if hosts else None
        if not self.settings.allows_host(host):
            message = (f"the Host header {host!r} does not name this service"
                       if host else "the request has no Host header")
            problem = FieldProblem(field="host", problem="is not a name this service answers to "
                                   "(the server's --allowed-host adds names)")
            return _error_response(400, "host_not_allowed", message, [problem],
                                   openai_shape=openai_shape)
        try:
            declared = declared_length(scope)
        except ValueError as unreadable:
            problem = FieldProblem(field="content-length", problem=str(unreadable))
            return _error_response(400, "bad_request", "the Content-Length header cannot be "
                                   "read", [problem], openai_shape=openai_shape)
        if declared is not None and declared > self.max_body_bytes:
            too_large = str(BodyTooLargeError(self.max_body_bytes).detail)
            return _error_response(413, "body_too_large", too_large,
                                   [FieldProblem(field="body", problem=too_large)],
                                   openai_shape=openai_shape)
        return None

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        state: dict[str, Any] = scope.setdefault("state", {})
        request_id = uuid.uuid4().hex[:16]
        status = 500
        responded = False
        received = 0

        async def limited_receive() -> Any:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise BodyTooLargeError(self.max_body_bytes)
            return message

        async def tracking_send(message: Any) -> None:
            nonlocal status, responded
            if message["type"] == "http.response.start":
                status = message["status"]
                responded = True
                headers = MutableHeaders(scope=message)
                headers.append("x-request-id", request_id)
                for name, value in SECURITY_HEADERS:
                    headers.setdefault(name, value)
            await send(message)

        try:
            refused = self.refusal(scope)
            if refused is not None:
                await refused(scope, receive, tracking_send)
            else:
                await self.app(scope, limited_receive, tracking_send)
        except Exception:
            # Starlette's outer error handler would answer in plain text, without these
            # headers; the exception still propagates, to be logged.
            if not responded:
                body = ErrorBody(error="internal_error", message="the service failed on this "
                                 "request")
                await JSONResponse(body.model_dump(), status_code=500)(
                    scope, receive, tracking_send)
            raise
        finally:
            seconds = time.perf_counter() - started
            route = getattr(scope.get("route"), "path", "unmatched")
            self.metrics.observe_request(scope["method"], route, status, seconds)
            fields = {
                "request_id": request_id,
                "method": scope["method"],
                "path": scope["path"],
                "route": route,
                "status": status,
                "latency_ms": round(seconds * 1000, 1),
                **state.get("log_fields", {}),
            }
            self.log.info("request", extra={"fields": fields})


def _is_openai(path: str) -> bool:
    return path.startswith(OPENAI_PREFIX + "/")


def _error_response(
    status: int,
    code: str,
    message: str,
    fields: list[FieldProblem] | None = None,
    headers: Mapping[str, str] | None = None,
    *,
    openai_shape: bool = False,
) -> JSONResponse:
    """An ``ErrorBody``; under ``/v1`` the OpenAI error shape, which OpenAI clients read."""
    fields = fields or []
    if openai_shape:
        content: dict[str, Any] = OpenAIErrorBody(error=OpenAIError(
            message=message, type=code, code=code,
            param=fields[0].field if fields else None, fields=fields,
        )).model_dump()
    else:
        content = ErrorBody(error=code, message=message, fields=fields).model_dump()
    return JSONResponse(content, status_code=status, headers=dict(headers or {}))


_STATUS_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 413: "body_too_large", 415: "unsupported_media_type",
    422: "invalid_request", 429: "too_many_requests", 504: "deadline_exceeded",
}


# What a pattern of the request models means, for the problem a client reads.
_PATTERN_PROBLEMS = {ID_PATTERN: "must not contain control characters"}


def _field_name(error: dict[str, Any]) -> str:
    if error.get("type") == "json_invalid":
        return "body"
    parts = [str(part) for part in error.get("loc", ())]
    if parts and parts[0] in ("body", "query", "path", "header") and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts) or "body"


def _problem(error: dict[str, Any]) -> str:
    message = str(error.get("msg", "is invalid"))
    if error.get("type") == "json_invalid":
        detail = (error.get("ctx") or {}).get("error") or "cannot be parsed"
        position = error.get("loc", ("body", "?"))[-1]
        return f"not valid JSON at character {position}: {detail}"
    if error.get("type") == "string_pattern_mismatch":
        pattern = str((error.get("ctx") or {}).get("pattern", ""))
        message = _PATTERN_PROBLEMS.get(pattern, message)
    return message.removeprefix("Value error, ")


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


_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def _allowed_methods(request: Request) -> str:
    """Every method some route of the request's path answers, for a 405's Allow header."""
    # Probed from the top, with the request's full path: inside a mount the scope is the
    # mount's, and an included router knows its methods only by matching.
    probe = {"type": "http", "path": request.scope["path"], "headers": [],
             "root_path": request.scope.get("app_root_path", "")}
    methods: set[str] = set()
    for route in request.app.router.routes:
        for method in _METHODS:
            match, _ = route.matches({**probe, "method": method})
            if match is Match.FULL:
                # Mounts are the static files, which answer GET and HEAD whatever is asked.
                methods |= {"GET", "HEAD"} if isinstance(route, Mount) else {method}
    return ", ".join(sorted(methods))


def _install_error_handlers(app: FastAPI) -> None:
    async def invalid_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        errors = list(exc.errors())
        fields = [FieldProblem(field=_field_name(e), problem=_problem(e))
                  for e in errors]
        _note_error(request, [f"{f.field}: {f.problem}" for f in fields])
        if any(e.get("type") == "json_invalid" for e in errors):
            return _error_response(400, "malformed_json", "the request body is not valid JSON",
                                   fields, openai_shape=_is_openai(request.url.path))
        summary = "; ".join(f"{f.field}: {f.problem}" for f in fields)
        return _error_response(422, "invalid_request", summary, fields,
                               openai_shape=_is_openai(request.url.path))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
        _note_error(request, [message])
        code = _STATUS_CODES.get(exc.status_code, "error")
        headers = dict(exc.headers or {})
        fields: list[FieldProblem] = []
        if exc.status_code == 405:
            # Starlette names the methods of the first route of the path only.
            headers["Allow"] = _allowed_methods(request)
            message = f"{request.method} is not allowed here; allowed: {headers['Allow']}"
        elif isinstance(exc, BodyTooLargeError):
            fields = [FieldProblem(field="body", problem=message)]
        return _error_response(exc.status_code, code, message, fields, headers=headers,
                               openai_shape=_is_openai(request.url.path))

    async def saturated(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, SaturatedError)
        _note_error(request, [str(exc)])
        return _error_response(429, "too_many_requests", f"{exc}; retry later",
                               headers={"Retry-After": str(exc.retry_after)},
                               openai_shape=_is_openai(request.url.path))

    async def deadline(request: Request, exc: Exception) -> Response:
        _note_error(request, [str(exc)])
        return _error_response(504, "deadline_exceeded", str(exc),
                               openai_shape=_is_openai(request.url.path))

    async def unprocessable(request: Request, exc: Exception) -> Response:
        _note_error(request, [str(exc)])
        return _error_response(422, "unprocessable", str(exc),
                               openai_shape=_is_openai(request.url.path))

    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(SaturatedError, saturated)
    app.add_exception_handler(DeadlineError, deadline)
    app.add_exception_handler(InputError, unprocessable)


def _note_error(request: Request, problems: list[str]) -> None:
    fields = getattr(request.state, "log_fields", None) or {}
    request.state.log_fields = {**fields, "errors": problems}


def _sse(event: str, data: str) -> str:
    lines = "".join(f"data: {line}\n" for line in data.splitlines() or [""])
    return f"event: {event}\n{lines}\n"


def _error_event(error: BaseException) -> str:
    if isinstance(error, DeadlineError):
        body = ErrorBody(error="deadline_exceeded", message=str(error))
    elif isinstance(error, InputError):
        body = ErrorBody(error="unprocessable", message=str(error))
    else:
        body = ErrorBody(error="internal_error", message="the engine failed on this request")
    return _sse("error", body.model_dump_json())


def _wants_stream(request: Request) -> bool:
    return SSE_MEDIA_TYPE in request.headers.get("accept", "")


async def _respond(
    request: Request,
    service: Service,
    kind: str,
    work: Callable[[ClaimCallback | None], GroundedAnswer],
) -> Response:
    """The answer as JSON, or streamed as server-sent events when the client asks for them."""
    if not _wants_stream(request):
        answered = await service.answer(kind, lambda: work(None))
        request.state.log_fields = outcome_fields(answered)
        return Response(answered.grounded.model_dump_json(), media_type="application/json")
    items = service.stream_answer(kind, work)

    async def events() -> AsyncIterator[str]:
        try:
            async for item in items:
                if isinstance(item, Finished):
                    answered: Answered = item.result
                    request.state.log_fields = outcome_fields(answered)
                    yield _sse("answer", answered.grounded.model_dump_json())
                elif isinstance(item, ClaimReport):
                    yield _sse("claim", item.model_dump_json())
        except Exception as error:
            request.state.log_fields = {"errors": [str(error) or type(error).__name__]}
            if not isinstance(error, DeadlineError | InputError):
                logging.getLogger(ACCESS_LOGGER).exception("streamed request failed")
            yield _error_event(error)

    return StreamingResponse(
        events(),
        media_type=SSE_MEDIA_TYPE,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _summary(record: DocumentRecord) -> dict[str, Any]:
    return {
        "doc_id": record.doc_id,
        "title": record.document.title,
        "source": record.source,
        "media_type": record.media_type,
        "chars": len(record.document.text),
        "chunks": record.chunk_count,
        "added_at": record.added_at,
    }


def default_source(text: str) -> str:
    """The source of a posted text that names none: its content hash, so reposting merges."""
    return "api:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def create_app(
    engine: AnswerEngine, settings: ServerSettings | None = None, *, close_engine: bool = False
) -> FastAPI:
    """The service over ``engine``; with ``close_engine`` the app closes it on shutdown,
    else the caller owns it."""
    settings = settings or ServerSettings()
    runner = EngineRunner(max_pending=settings.max_pending, timeout=settings.request_timeout)
    metrics = ServiceMetrics(pending=lambda: float(runner.pending))
    service = Service(engine=engine, runner=runner, settings=settings, metrics=metrics)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        log = logging.getLogger("veritype.server")
        if settings.open_access:
            log.warning(
                "no API keys are set (VERITYPE_API_KEYS): the API is open to anyone who can "
                "reach %s", settings.host,
            )
            if settings.any_host:
                log.warning("--allowed-host '*' turns the Host check off: any web page this "
                            "machine's browser opens can reach the open API (DNS rebinding)")
        if is_unspecified(settings.host) and not settings.allowed_hosts:
            log.warning("bound to every address of %s, but only requests for localhost or a "
                        "loopback address are answered: name the host clients use with "
                        "--allowed-host", settings.host)
        yield
        runner.shutdown()
        if close_engine:
            engine.close()

    app = FastAPI(
        title="veritype",
        version=__version__,
        description="Every claim of an answer typed Verified, Uncertain or Unsupported against "
        "evidence; only Verified, cited claims are rendered.\n\nEvery request must name this "
        "service in its Host header (a loopback name or address, or one the server allows); "
        "any other gets 400. A request body may be at most "
        f"{settings.max_body_bytes:,} bytes (413).",
        lifespan=lifespan,
        # /docs is served below from packaged assets, so it works without internet.
        docs_url=None,
        redoc_url=None,
    )
    app.state.service = service
    full_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        schema = full_openapi()
        if settings.open_access:
            # Without keys no operation checks one; the document should not ask for it.
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    operation.pop("security", None)
            schema.get("components", {}).pop("securitySchemes", None)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.add_middleware(RequestMiddleware, settings=settings, metrics=metrics)
    _install_error_handlers(app)
    @app.post(
        "/qa", response_model=GroundedAnswer,
        responses={**error_responses(*_BODY_ERRORS), 200: _SSE_DOC},
        dependencies=[Authorized], tags=["answers"],
    )
    async def ask(body: QARequest, request: Request, service: ServiceDep) -> Response:
        """Answer a question from the corpus: only Verified, cited claims are rendered."""
        return await _respond(
            request, service, "ask",
            lambda on_claim: service.engine.ask(
                body.query, filters=body.filters.given() if body.filters else None,
                mode=body.mode, on_claim=on_claim,
            ),
        )

    @app.post(
        "/qa/verify", response_model=GroundedAnswer,
        responses={**error_responses(*_BODY_ERRORS), 200: _SSE_DOC}, dependencies=[Authorized],
        tags=["answers"],
    )
    async def verify(body: VerifyRequest, request: Request, service: ServiceDep) -> Response:
        """Type every claim of an answer against the given evidence texts or the corpus."""
        return await _respond(
            request, service, "verify",
            lambda on_claim: service.engine.verify(
                body.answer, body.evidence, on_claim=on_claim
            ),
        )

    @app.post(
        "/documents", response_model=IngestResponse, status_code=201,
        responses=error_responses(*_BODY_ERRORS, notes=_SAME_SOURCE),
        dependencies=[Authorized], tags=["documents"],
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

    @app.get(
        "/documents", response_model=DocumentPage, responses=error_responses(*_ENGINE_ERRORS),
        dependencies=[Authorized], tags=["documents"],
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

    @app.get(
        "/documents/{doc_id}", response_model=DocumentDetail,
        responses=error_responses(404, *_ENGINE_ERRORS, notes=_NOT_FOUND),
        dependencies=[Authorized], tags=["documents"],
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

    @app.delete(
        "/documents/{doc_id}", status_code=204,
        responses=error_responses(404, *_ENGINE_ERRORS, notes=_NOT_FOUND),
        dependencies=[Authorized], tags=["documents"],
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

    @app.get(
        "/traces/{trace_id}", responses=error_responses(404, *_ENGINE_ERRORS, notes=_NOT_FOUND),
        dependencies=[Authorized], tags=["traces"],
    )
    async def get_trace(trace_id: IdParam, service: ServiceDep) -> dict[str, Any]:
        """A run's full trace: draft, belief graph with every view's result, evidence."""
        trace = await service.runner.call(lambda: service.engine.trace(trace_id))
        if trace is None:
            raise HTTPException(404, f"no trace {trace_id!r}")
        return trace

    @app.get("/healthz", response_model=Health, tags=["service"])
    async def healthz(service: ServiceDep) -> Health:
        """Liveness: answers at once, even while engine work is queued."""
        return Health(status="ok", version=__version__, pending=service.runner.pending)

    @app.get(
        "/metrics", dependencies=[Authorized], tags=["service"],
        responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
                   **error_responses(401)},
        response_class=Response,
    )
    async def prometheus(service: ServiceDep) -> Response:
        """Prometheus metrics of this process."""
        return Response(service.metrics.exposition(), media_type=METRICS_CONTENT_TYPE)

    @app.get(
        "/evals", response_model=list[EvalRunSummary], dependencies=[Authorized],
        responses=error_responses(401), tags=["evaluation"],
    )
    async def list_eval_runs(service: ServiceDep) -> list[EvalRunSummary]:
        """Evaluation runs found under the eval directory, newest first."""
        return evals.list_runs(service.settings.eval_dir)

    @app.get(
        "/evals/{run}", response_model=EvalRunDetail, dependencies=[Authorized],
        responses=error_responses(401, 404, 422, notes=_NOT_FOUND), tags=["evaluation"],
    )
    async def get_eval_run(run: IdParam, service: ServiceDep) -> EvalRunDetail:
        """One run: headline figures, config, report and the names of its plots."""
        try:
            return evals.load_run(service.settings.eval_dir, run)
        except evals.EvalRunError as error:
            raise HTTPException(404, str(error)) from None

    @app.get(
        "/evals/{run}/files/{name}", dependencies=[Authorized], response_class=FileResponse,
        responses={200: {"content": {"image/png": {}}},
                   **error_responses(401, 404, 422, notes={404: "No such run or plot."})},
        tags=["evaluation"],
    )
    async def get_eval_plot(run: IdParam, name: IdParam, service: ServiceDep) -> FileResponse:
        """A plot of a run (PNG)."""
        try:
            path = evals.plot_file(service.settings.eval_dir, run, name)
        except evals.EvalRunError as error:
            raise HTTPException(404, str(error)) from None
        return FileResponse(path, media_type="image/png")

    app.include_router(chat_router(), dependencies=[Authorized])

    @app.get("/", include_in_schema=False)
    async def viewer() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    @app.get("/traces/{trace_id}/view", include_in_schema=False)
    async def trace_viewer(trace_id: str) -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    @app.get("/docs", include_in_schema=False)
    async def api_docs() -> FileResponse:
        return FileResponse(STATIC_DIR / "docs.html", media_type="text/html")

    # Before /static, which would otherwise take these paths.
    app.mount(SWAGGER_PREFIX, StaticFiles(directory=str(swagger_ui_path)), name="swagger-ui")
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
