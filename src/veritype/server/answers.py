"""Answering and verifying: one GroundedAnswer as JSON, or its claims streamed as server-sent
events as soon as each is typed."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable

from fastapi import APIRouter, Request, Response
from fastapi.responses import StreamingResponse

from veritype.answer import ClaimReport, GroundedAnswer
from veritype.server._errors import answered_error
from veritype.server.logs import ACCESS_LOGGER
from veritype.server.models import BODY_ERRORS, ErrorBody, QARequest, VerifyRequest, error_responses
from veritype.server.runner import Finished
from veritype.server.service import (
    Answered,
    Authorized,
    ClaimCallback,
    Service,
    ServiceDep,
    outcome_fields,
)

SSE_MEDIA_TYPE = "text/event-stream"

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


def _sse(event: str, data: str) -> str:
    lines = "".join(f"data: {line}\n" for line in data.splitlines() or [""])
    return f"event: {event}\n{lines}\n"


def _error_event(error: BaseException) -> str:
    answer = answered_error(error)
    if answer is None:
        body = ErrorBody(error="internal_error", message="the engine failed on this request")
    else:
        body = ErrorBody(error=answer[1], message=str(error))
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
            if answered_error(error) is None:
                logging.getLogger(ACCESS_LOGGER).exception("streamed request failed")
            yield _error_event(error)

    return StreamingResponse(
        events(),
        media_type=SSE_MEDIA_TYPE,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def answers_router() -> APIRouter:
    router = APIRouter(dependencies=[Authorized], tags=["answers"])
    responses = {**error_responses(*BODY_ERRORS), 200: _SSE_DOC}

    @router.post("/qa", response_model=GroundedAnswer, responses=responses)
    async def ask(body: QARequest, request: Request, service: ServiceDep) -> Response:
        """Answer a question from the corpus: only Verified, cited claims are rendered."""
        return await _respond(
            request, service, "ask",
            lambda on_claim: service.engine.ask(
                body.query, filters=body.filters.given() if body.filters else None,
                mode=body.mode, on_claim=on_claim,
            ),
        )

    @router.post("/qa/verify", response_model=GroundedAnswer, responses=responses)
    async def verify(body: VerifyRequest, request: Request, service: ServiceDep) -> Response:
        """Type every claim of an answer against the given evidence texts or the corpus."""
        return await _respond(
            request, service, "verify",
            lambda on_claim: service.engine.verify(
                body.answer, body.evidence, on_claim=on_claim
            ),
        )

    return router
