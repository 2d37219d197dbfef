"""An OpenAI-compatible chat endpoint: the last user message is the query, the reply is the
rendered Verified answer (or the reason for abstaining), and the full GroundedAnswer rides
along in the extra top-level field ``veritype``."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.exceptions import RequestValidationError
from fastapi.responses import StreamingResponse

from veritype.answer import GroundedAnswer
from veritype.server._errors import answered_error
from veritype.server.logs import SERVER_LOGGER
from veritype.server.models import (
    CHAT_MODELS,
    MAX_QUERY_CHARS,
    OPENAI_PREFIX,
    ChatChoice,
    ChatCompletion,
    ChatMessage,
    ChatRequest,
    ChatResponseMessage,
    ChatUsage,
    ModelCard,
    ModelList,
    OpenAIError,
    OpenAIErrorBody,
    error_responses,
)
from veritype.server.runner import Finished
from veritype.server.service import ServiceDep

_STARTED = int(time.time())


def reply_text(grounded: GroundedAnswer) -> str:
    """What a chat client shows: the Verified answer, or why there is none."""
    if grounded.abstained:
        return grounded.abstention_reason or "Not enough evidence to answer."
    return grounded.answer


def _text(message: ChatMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(part.text or "" for part in message.content or [] if part.type == "text")


def _invalid(location: tuple[Any, ...], problem: str) -> RequestValidationError:
    return RequestValidationError([{"loc": location, "msg": problem, "type": "value_error"}])


def _lone_surrogate(text: str) -> int:
    """The position of the first lone surrogate in ``text`` (-1 if none): JSON's escapes can
    write one, Python keeps it, and no tokenizer can read it."""
    for position, char in enumerate(text):
        if "\ud800" <= char <= "\udfff":
            return position
    return -1


def check_messages(messages: list[ChatMessage]) -> None:
    """A 422 naming the first message text (or text part) that holds a NUL character or a
    lone surrogate, or the first message with role user that has no text."""
    for index, message in enumerate(messages):
        content = ("body", "messages", index, "content")
        texts: list[tuple[tuple[Any, ...], str | None]] = (
            [(content, message.content)]
            if isinstance(message.content, str) else
            [((*content, number, "text"), part.text)
             for number, part in enumerate(message.content or [])]
        )
        for location, text in texts:
            if text is None:
                continue
            position = text.find("\0")
            if position >= 0:
                raise _invalid(location, f"contains a NUL character at position {position}")
            position = _lone_surrogate(text)
            if position >= 0:
                raise _invalid(location, f"contains a lone surrogate (U+{ord(text[position]):04X})"
                               f" at position {position}, which is not Unicode text")
        if message.role == "user" and not _text(message).strip():
            raise _invalid(content, "a message with role 'user' must have text")


def last_user_query(messages: list[ChatMessage]) -> str:
    """The text of the last user message (:func:`check_messages` saw that it has some); a
    clear 422 if there is none or it is too long."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            text = _text(messages[index])
            if len(text) > MAX_QUERY_CHARS:
                raise _invalid(
                    ("body", "messages", index, "content"),
                    f"the last user message is {len(text):,} characters; the limit is "
                    f"{MAX_QUERY_CHARS:,}",
                )
            return text
    raise _invalid(("body", "messages"), "there is no message with role 'user'")


def _words(text: str) -> int:
    return len(text.split())


def _chunk(
    completion_id: str,
    model: str,
    delta: dict[str, str],
    *,
    finish_reason: str | None = None,
    grounded: GroundedAnswer | None = None,
) -> str:
    """One ``chat.completion.chunk`` event; the last one also carries the GroundedAnswer."""
    body: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    if grounded is not None:
        body["veritype"] = grounded.model_dump(mode="json")
    return "data: " + json.dumps(body, ensure_ascii=False) + "\n\n"


def chat_router() -> APIRouter:
    router = APIRouter(prefix=OPENAI_PREFIX, tags=["openai"])

    @router.get("/models", response_model=ModelList,
                responses=error_responses(401, model=OpenAIErrorBody))
    async def list_models() -> ModelList:
        """The model names the chat endpoint accepts (each an answer mode)."""
        return ModelList(
            object="list",
            data=[ModelCard(id=name, object="model", created=_STARTED, owned_by="veritype")
                  for name in CHAT_MODELS],
        )

    @router.post(
        "/chat/completions",
        response_model=ChatCompletion,
        responses={
            200: {"content": {"text/event-stream": {"schema": {
                "type": "object",
                "required": ["data"],
                "properties": {"data": {
                    "type": "string",
                    "description": "A `chat.completion.chunk` as JSON; `[DONE]` at the end.",
                }},
            }}},
                  "description": "A chat completion, or with `stream: true` its chunks."},
            **error_responses(400, 401, 404, 408, 413, 422, 429, 504, model=OpenAIErrorBody,
                              notes={404: "Unknown model."}),
        },
    )
    async def complete(body: ChatRequest, service: ServiceDep) -> Any:
        """Answer the last user message; only Verified, cited claims reach the reply."""
        if body.model not in CHAT_MODELS:
            raise HTTPException(
                404, f"unknown model {body.model!r}; known: {', '.join(CHAT_MODELS)}"
            )
        mode = CHAT_MODELS[body.model]
        check_messages(body.messages)
        query = last_user_query(body.messages)
        prompt_words = _words(query)
        completion_id = "chatcmpl-" + uuid.uuid4().hex

        if not body.stream:
            answered = await service.answer("chat", lambda: service.engine.ask(query, mode=mode))
            text = reply_text(answered.grounded)
            return ChatCompletion(
                id=completion_id,
                object="chat.completion",
                created=int(time.time()),
                model=body.model,
                choices=[ChatChoice(
                    index=0,
                    message=ChatResponseMessage(role="assistant", content=text),
                    finish_reason="stop",
                )],
                usage=ChatUsage(prompt_tokens=prompt_words, completion_tokens=_words(text),
                                total_tokens=prompt_words + _words(text)),
                veritype=answered.grounded,
            )

        items = service.stream_answer(
            "chat", lambda on_claim: service.engine.ask(query, mode=mode, on_claim=on_claim)
        )

        async def chunks() -> AsyncIterator[str]:
            yield _chunk(completion_id, body.model, {"role": "assistant", "content": ""})
            try:
                async for item in items:
                    if isinstance(item, Finished):
                        grounded = item.result.grounded
                        yield _chunk(completion_id, body.model, {"content": reply_text(grounded)})
                        yield _chunk(completion_id, body.model, {}, finish_reason="stop",
                                     grounded=grounded)
            except Exception as error:
                answer = answered_error(error)
                if answer is None:
                    logging.getLogger(SERVER_LOGGER).exception("a streamed chat request failed")
                    code, message = "internal_error", "the engine failed"
                else:
                    code, message = answer[1], str(error)
                error_body = OpenAIErrorBody(
                    error=OpenAIError(message=message, type=code, code=code)
                )
                yield "data: " + error_body.model_dump_json() + "\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(chunks(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    return router
