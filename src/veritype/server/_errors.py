"""How the service answers errors: one JSON body for every status, in the OpenAI shape under
``/v1``, and one mapping from veritype's error tree to statuses."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match, Mount

from veritype.errors import ConfigurationError, DeadlineError, InputError, VeritypeError
from veritype.server.models import (
    ID_PATTERN,
    OPENAI_PREFIX,
    ErrorBody,
    FieldProblem,
    OpenAIError,
    OpenAIErrorBody,
)
from veritype.server.runner import SaturatedError


class BodyTooLargeError(HTTPException):
    """A body over the cap, found while reading it; an HTTP exception, so that it ends the
    request as a 413 wherever the reading stops."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than the limit of {limit:,} bytes")


class BodyTimeoutError(HTTPException):
    """A body that did not arrive within the body timeout: a 408 that closes the connection,
    since the rest of the body may still come and cannot start the next request."""

    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"the request body did not arrive within {seconds:g} s",
                         headers={"Connection": "close"})


def answered_error(error: BaseException) -> tuple[int, str] | None:
    """The status and code the service answers ``error`` with, its message telling the client
    what went wrong; ``None`` for a failure of the service itself (500, the message hidden)."""
    if isinstance(error, SaturatedError):
        return 429, "too_many_requests"
    if isinstance(error, DeadlineError):
        return 504, "deadline_exceeded"
    if isinstance(error, InputError | ConfigurationError):
        return 422, "unprocessable"
    return None


def is_openai(path: str) -> bool:
    return path.startswith(OPENAI_PREFIX + "/")


def error_response(
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


def note_error(request: Request, problems: list[str]) -> None:
    """Add the request's problems to what its log line records."""
    fields = getattr(request.state, "log_fields", None) or {}
    request.state.log_fields = {**fields, "errors": problems}


_STATUS_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 408: "request_timeout", 413: "body_too_large",
    415: "unsupported_media_type", 422: "invalid_request", 429: "too_many_requests",
    504: "deadline_exceeded",
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


async def _invalid_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    fields = [FieldProblem(field=_field_name(e), problem=_problem(e)) for e in errors]
    note_error(request, [f"{f.field}: {f.problem}" for f in fields])
    if any(e.get("type") == "json_invalid" for e in errors):
        return error_response(400, "malformed_json", "the request body is not valid JSON",
                              fields, openai_shape=is_openai(request.url.path))
    summary = "; ".join(f"{f.field}: {f.problem}" for f in fields)
    return error_response(422, "invalid_request", summary, fields,
                          openai_shape=is_openai(request.url.path))


def deepest_nesting(text: str) -> tuple[int, int]:
    """How deep ``text``'s JSON arrays and objects nest, and the character where that depth is
    first reached (strings skipped)."""
    depth = deepest = at = 0
    in_string = escaped = False
    for position, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, position
        elif char in "]}":
            depth -= 1
    return deepest, at


async def _unparsed_body(request: Request, cause: BaseException | None) -> FieldProblem | None:
    """What keeps a body that is no JSON error of its own from parsing: bytes that are not
    UTF-8, or nesting too deep for the parser."""
    if isinstance(cause, UnicodeDecodeError):
        return FieldProblem(field="body", problem=f"not valid UTF-8 at byte {cause.start}: "
                            f"{cause.reason}")
    if isinstance(cause, RecursionError):
        depth, at = deepest_nesting((await request.body()).decode("utf-8", "replace"))
        return FieldProblem(field="body", problem=f"not valid JSON at character {at}: nested "
                            f"{depth:,} levels deep, too deep to parse")
    return None


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    message = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
    code = _STATUS_CODES.get(exc.status_code, "error")
    headers = dict(exc.headers or {})
    fields: list[FieldProblem] = []
    unparsed = await _unparsed_body(request, exc.__cause__) if exc.status_code == 400 else None
    if unparsed is not None:
        note_error(request, [f"{unparsed.field}: {unparsed.problem}"])
        return error_response(400, "malformed_json", "the request body is not valid JSON",
                              [unparsed], openai_shape=is_openai(request.url.path))
    note_error(request, [message])
    if exc.status_code == 405:
        # Starlette names the methods of the first route of the path only.
        headers["Allow"] = _allowed_methods(request)
        message = f"{request.method} is not allowed here; allowed: {headers['Allow']}"
    elif isinstance(exc, BodyTooLargeError | BodyTimeoutError):
        fields = [FieldProblem(field="body", problem=message)]
    return error_response(exc.status_code, code, message, fields, headers=headers,
                          openai_shape=is_openai(request.url.path))


async def _veritype_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, VeritypeError)
    answer = answered_error(exc)
    if answer is None:
        # A failure: the request middleware answers 500 and the server logs the exception.
        raise exc
    status, code = answer
    note_error(request, [str(exc)])
    message, headers = str(exc), {}
    if isinstance(exc, SaturatedError):
        message, headers = f"{exc}; retry later", {"Retry-After": str(exc.retry_after)}
    return error_response(status, code, message, headers=headers,
                          openai_shape=is_openai(request.url.path))


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(VeritypeError, _veritype_error)
