"""What happens around every request: the Host check, the body cap and timeout, security
headers, a request id, cancelling the work of a client that left, and one log line and
metrics sample once the request ends."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

from fastapi.responses import JSONResponse
from starlette.datastructures import MutableHeaders

from veritype.errors import InputError
from veritype.server._errors import (
    BodyTimeoutError,
    BodyTooLargeError,
    error_response,
    is_openai,
)
from veritype.server.logs import ACCESS_LOGGER
from veritype.server.metrics import ServiceMetrics
from veritype.server.models import ErrorBody, FieldProblem
from veritype.server.settings import ServerSettings

ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]

# Scripts, styles and images only from this service, no frames: the viewer and /docs need no
# more (Swagger UI's icons are data: URLs; the viewer shows plots it fetched with the API key
# as blob: URLs), and markup injected through a stored text could load nothing from elsewhere.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)
# Nothing of the service needs a device or a powerful feature, and no link needs to tell the
# next site where it came from (a viewer URL can hold a trace id).
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"
SECURITY_HEADERS = (
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("referrer-policy", "no-referrer"),
    ("permissions-policy", PERMISSIONS_POLICY),
)
# What the log and metrics record for a request whose client left before its response
# (nginx's "client closed request").
CLIENT_CLOSED_REQUEST = 499


def _header_values(scope: Mapping[str, Any], name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope["headers"] if key.lower() == name]


def declared_length(scope: Mapping[str, Any]) -> int | None:
    """The body size the Content-Length header declares (``None`` without one); a list of
    equal values counts as one. :class:`InputError` when it is not a byte count."""
    values = {part.strip() for value in _header_values(scope, b"content-length")
              for part in value.split(",")}
    if not values:
        return None
    if len(values) > 1 or not all(value.isascii() and value.isdigit() for value in values):
        raise InputError(f"{', '.join(sorted(values))!r} is not a byte count")
    return int(values.pop())


def _has_body(scope: Mapping[str, Any]) -> bool:
    lengths = _header_values(scope, b"content-length")
    if _header_values(scope, b"transfer-encoding"):
        return True
    return bool(lengths) and any(part.strip() not in ("", "0") for part in lengths[0].split(","))


class ClientWatch:
    """The client's side of one request. Once its body is in, the next message from the client
    can only be ``http.disconnect``: a reader waits for it and calls ``on_leave`` if it comes
    before the response is complete, so the work of a client that left stops at once, for
    plain and streamed responses alike."""

    def __init__(
        self, receive: Callable[[], Awaitable[Any]], *, has_body: bool,
        on_leave: Callable[[], None],
    ) -> None:
        self._receive = receive
        self._on_leave = on_leave
        self._unread: list[Any] = []
        self._reader: asyncio.Task[Any] | None = None
        self.left = False
        self.responded = False
        if not has_body:
            self._start()

    def _start(self) -> None:
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> Any:
        while True:
            message = await self._receive()
            if message["type"] == "http.disconnect":
                if not self.responded:
                    self.left = True
                    self._on_leave()
                return message
            # The empty body of a request without one, kept for the handler that asks.
            self._unread.append(message)

    async def receive(self) -> Any:
        """What the handler reads: its body, then (from the reader) the disconnect."""
        if self._unread:
            return self._unread.pop(0)
        if self._reader is not None:
            return await asyncio.shield(self._reader)
        message = await self._receive()
        if message["type"] == "http.request" and not message.get("more_body", False):
            self._start()
        return message

    def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()


class RequestMiddleware:
    """Refuses requests for foreign Host names, bodies over the cap and bodies that do not
    arrive within the body timeout, adds the security headers to every response, cancels
    the handler of a client that left, and logs and counts each request once it ends."""

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
        openai_shape = is_openai(scope["path"])
        hosts = _header_values(scope, b"host")
        host = hosts[0] if hosts else None
        if not self.settings.allows_host(host):
            message = (f"the Host header {host!r} does not name this service"
                       if host else "the request has no Host header")
            problem = FieldProblem(field="host", problem="is not a name this service answers to "
                                   "(the server's --allowed-host adds names)")
            return error_response(400, "host_not_allowed", message, [problem],
                                  openai_shape=openai_shape)
        try:
            declared = declared_length(scope)
        except InputError as unreadable:
            problem = FieldProblem(field="content-length", problem=str(unreadable))
            return error_response(400, "bad_request", "the Content-Length header cannot be "
                                  "read", [problem], openai_shape=openai_shape)
        if declared is not None and declared > self.max_body_bytes:
            too_large = str(BodyTooLargeError(self.max_body_bytes).detail)
            return error_response(413, "body_too_large", too_large,
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
        body_complete = False
        body_due = asyncio.get_running_loop().time() + self.settings.body_timeout

        async def limited_receive() -> Any:
            nonlocal received, body_complete
            if body_complete:
                # Past the body only a disconnect can come, whenever the client leaves.
                return await receive()
            try:
                # A timeout in this task, not a task of its own (as wait_for makes): a body
                # already in is returned without a pause, so ClientWatch's reader keeps the
                # empty body of a request without one before the handler asks for it.
                async with asyncio.timeout_at(body_due):
                    message = await receive()
            except TimeoutError:
                raise BodyTimeoutError(self.settings.body_timeout) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise BodyTooLargeError(self.max_body_bytes)
                body_complete = not message.get("more_body", False)
            return message

        handler: asyncio.Future[None] | None = None

        def cancel_handler() -> None:
            if handler is not None:
                handler.cancel()

        watch = ClientWatch(limited_receive, has_body=_has_body(scope), on_leave=cancel_handler)

        async def tracking_send(message: Any) -> None:
            nonlocal status, responded
            if message["type"] == "http.response.start":
                status = message["status"]
                responded = True
                headers = MutableHeaders(scope=message)
                headers.append("x-request-id", request_id)
                for name, value in SECURITY_HEADERS:
                    headers.setdefault(name, value)
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                watch.responded = True
            await send(message)

        try:
            refused = self.refusal(scope)
            if refused is not None:
                await refused(scope, receive, tracking_send)
            else:
                handler = asyncio.ensure_future(self.app(scope, watch.receive, tracking_send))
                try:
                    await handler
                except asyncio.CancelledError:
                    current = asyncio.current_task()
                    if not watch.left or (current is not None and current.cancelling()):
                        raise
                    # The client left; its work was cancelled and nobody reads an answer.
                    status = CLIENT_CLOSED_REQUEST
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
            watch.close()
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
