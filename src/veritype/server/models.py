"""Request and response models of the HTTP API; their limits are published in OpenAPI.

Each rule a validator applies is also stated in the schema (a ``pattern`` where length limits
do not say it), so that a request valid by the OpenAPI document is one the service accepts.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated, Any, Literal

from fastapi import Path
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool

from veritype.answer import GroundedAnswer
from veritype.errors import InputError

MAX_QUERY_CHARS = 2_000
MAX_ANSWER_CHARS = 20_000
MAX_EVIDENCE_TEXTS = 50
MAX_EVIDENCE_CHARS = 100_000
MAX_DOCUMENTS = 100
MAX_DOCUMENT_CHARS = 500_000
MAX_ID_CHARS = 200

# The characters str.isspace() accepts, as a regex class body in \uXXXX escapes, which
# ECMAScript (OpenAPI), Python and pydantic's Rust regex read alike; \s differs among them.
WHITESPACE_CLASS = (r"\u0009-\u000d\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029"
                    r"\u202f\u205f\u3000")
# Text with a character that is not whitespace, and no NUL anywhere: PostgreSQL cannot keep
# a NUL, and a blank text has nothing to answer or check.
TEXT_PATTERN = rf"^[^\u0000]*[^\u0000{WHITESPACE_CLASS}][^\u0000]*$"
NO_NUL_PATTERN = r"^[^\u0000]*$"
# A document's text may hold control characters (ingest turns each into a space), but once
# they are spaces something else must remain.
DOCUMENT_TEXT_PATTERN = rf"[^\u0000-\u0020\u007f{WHITESPACE_CLASS}]"
# Ids in paths: no control characters (C0, DEL, C1), which no id or run name holds.
ID_PATTERN = r"^[^\u0000-\u001f\u007f-\u009f]+$"
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATE_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
                        r"([Zz]|[+-][0-9]{2}:[0-9]{2})")

Mode = Literal["brief", "detailed"]


def _no_nul(text: str) -> str:
    position = text.find("\0")
    if position >= 0:
        raise InputError(f"contains a NUL character at position {position}")
    return text


def _checked_text(text: str) -> str:
    _no_nul(text)
    if not text.strip():
        raise InputError("must not be empty or only whitespace")
    return text


def _document_text(text: str) -> str:
    if not _CONTROL.sub(" ", text).strip():
        raise InputError("must not be empty or only whitespace and control characters")
    return text


def _iso_date(text: str) -> str:
    """An RFC 3339 date or date-time, as ``datetime.fromisoformat`` reads it (the engine's
    filter does); a value with no time zone is not one."""
    try:
        if _DATE.fullmatch(text):
            return date.fromisoformat(text).isoformat()
        if _DATE_TIME.fullmatch(text):
            return datetime.fromisoformat(text.upper()).isoformat()
    except ValueError:
        pass
    raise InputError("must be an ISO date like 2026-01-31 or a date-time like "
                     "2026-01-31T09:30:00Z")


def _text_field(max_length: int, description: str | None = None) -> Any:
    return Field(min_length=1, max_length=max_length, description=description,
                 json_schema_extra={"pattern": TEXT_PATTERN})


Text = Annotated[str, AfterValidator(_checked_text)]
EvidenceText = Annotated[str, _text_field(MAX_EVIDENCE_CHARS), AfterValidator(_checked_text)]
FilterText = Annotated[
    str,
    Field(max_length=1_000, json_schema_extra={"pattern": NO_NUL_PATTERN}),
    AfterValidator(_no_nul),
]
IsoDate = Annotated[
    str,
    Field(json_schema_extra={"anyOf": [{"format": "date"}, {"format": "date-time"}]}),
    AfterValidator(_iso_date),
]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Filters(_Request):
    """Metadata filters: a document passes when it matches every filter given."""

    source: FilterText | None = Field(
        default=None, description="Part of the source, in any case.")
    title: FilterText | None = Field(default=None, description="Part of the title, in any case.")
    added_after: IsoDate | None = Field(
        default=None, description="Only documents added at or after this moment (a date is "
        "its midnight, UTC).")
    added_before: IsoDate | None = Field(
        default=None, description="Only documents added before this moment.")

    def given(self) -> dict[str, str]:
        return self.model_dump(exclude_none=True)


class QARequest(_Request):
    """A question to answer from the corpus."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"query": "When was the Eiffel Tower completed?", "mode": "brief"}]})

    query: Text = _text_field(MAX_QUERY_CHARS, "The question.")
    filters: Filters | None = Field(default=None, description="Metadata filters for retrieval.")
    mode: Mode | None = Field(default=None, description="Answer length; default from config.")


class VerifyRequest(_Request):
    """An answer to verify, against the given evidence texts or, without them, the corpus."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "answer": "The Eiffel Tower was completed in 1889. It is 500 metres tall.",
        "evidence": ["The Eiffel Tower was completed in 1889. The tower is 330 metres tall."],
    }]})

    answer: Text = _text_field(MAX_ANSWER_CHARS)
    evidence: list[EvidenceText] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_EVIDENCE_TEXTS,
        description="Evidence texts; omit to retrieve evidence from the corpus for each claim.",
    )


class DocumentIn(_Request):
    """One text to ingest. ``source`` names it uniquely: re-posting a source replaces it.
    Control characters (NUL among them) in the text, title and source become spaces."""

    text: Annotated[str, AfterValidator(_document_text)] = Field(
        min_length=1, max_length=MAX_DOCUMENT_CHARS,
        json_schema_extra={"pattern": DOCUMENT_TEXT_PATTERN},
    )
    title: str = Field(default="", max_length=500)
    source: str | None = Field(
        default=None,
        min_length=1,
        max_length=1_000,
        description="Unique name; default: derived from the text, so identical texts merge.",
    )


class DocumentsIn(_Request):
    documents: list[DocumentIn] = Field(min_length=1, max_length=MAX_DOCUMENTS)


class StoredDocument(BaseModel):
    doc_id: str
    title: str
    source: str


class IngestResponse(BaseModel):
    """What an ingest did, and the ids of the posted documents in request order."""

    documents: list[StoredDocument]
    added: int
    replaced: int
    unchanged: int
    chunks: int
    seconds: float


class DocumentSummary(BaseModel):
    doc_id: str
    title: str
    source: str
    media_type: str
    chars: int
    chunks: int
    added_at: float


class DocumentPage(BaseModel):
    total: int
    offset: int
    limit: int
    items: list[DocumentSummary]


class ChunkInfo(BaseModel):
    """A chunk of a document by offsets; ``index`` names the chunking it belongs to."""

    chunk_id: str
    index: str
    start: int
    end: int


class DocumentDetail(DocumentSummary):
    """A document's text and metadata, with the offsets of its chunks for highlighting."""

    text: str
    origin: str
    chunk_spans: list[ChunkInfo]


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    pending: int = Field(description="Engine jobs queued or running.")


class FieldProblem(BaseModel):
    field: str = Field(description="Where the problem is, e.g. `query` or `evidence.3`.")
    problem: str


class ErrorBody(BaseModel):
    """Every error response: a code, a sentence, and for bad input each field's problem."""

    error: str
    message: str
    fields: list[FieldProblem] = Field(default_factory=list)


class OpenAIError(BaseModel):
    message: str
    type: str
    code: str
    param: str | None = None
    fields: list[FieldProblem] = Field(default_factory=list)


# Where the OpenAI-compatible endpoint lives.
OPENAI_PREFIX = "/v1"


class OpenAIErrorBody(BaseModel):
    """Errors under ``/v1``, in the shape OpenAI clients read."""

    error: OpenAIError


_ERROR_DESCRIPTIONS = {
    400: "The body is not valid JSON; each problem names `body` and the character position.",
    401: "Missing or invalid API key.",
    404: "Not found.",
    408: "The request body did not arrive within the service's body timeout; the connection "
         "is closed.",
    413: "The request body is larger than the service's byte limit.",
    422: "Invalid field values; each problem names its field.",
    429: "Too many requests queued; retry after the Retry-After seconds.",
    504: "The request did not finish within its deadline.",
}
_ERROR_HEADERS = {
    401: {"WWW-Authenticate": {"description": "`Bearer`.", "schema": {"type": "string"}}},
    429: {"Retry-After": {"description": "Seconds to wait before retrying.",
                          "schema": {"type": "integer", "minimum": 1}}},
}


def error_responses(
    *statuses: int, notes: dict[int, str] | None = None, model: type[BaseModel] = ErrorBody
) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI entries of the errors an operation can answer with; ``notes`` replace the
    general description of a status."""
    responses: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        entry: dict[str, Any] = {
            "model": model,
            "description": (notes or {}).get(status, _ERROR_DESCRIPTIONS[status]),
        }
        if status in _ERROR_HEADERS:
            entry["headers"] = _ERROR_HEADERS[status]
        responses[status] = entry
    return responses


# The errors of the operations that queue engine or store work, and of those with a body.
ENGINE_ERRORS = (401, 422, 429, 504)
BODY_ERRORS = (400, 401, 408, 413, 422, 429, 504)
NOT_FOUND = {404: "No such document, trace or evaluation run."}
IdParam = Annotated[str, Path(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN)]


class EvalRunSummary(BaseModel):
    run: str
    benchmark: str
    created_at: str
    headline: dict[str, Any]
    plots: list[str]


class EvalRunDetail(EvalRunSummary):
    config: dict[str, Any]
    report_md: str | None
    table_tex: str | None


# Model name → answer mode (None: the engine's configured mode).
CHAT_MODELS: dict[str, str | None] = {
    "veritype": None,
    "veritype-brief": "brief",
    "veritype-detailed": "detailed",
}
# The chat endpoint refuses a NUL or a lone surrogate in any message text, and a user
# message without text, itself, to name the message and part: a validator inside the union
# of content types would be reported once per member.
MessageText = Annotated[str, Field(json_schema_extra={"pattern": NO_NUL_PATTERN})]


def _user_needs_text(schema: dict[str, Any]) -> None:
    """The message schema as two shapes, what the endpoint asks of them: a message with role
    user has text (a string, or a text part, with a character that is not whitespace), any
    other may have none. Each string keeps one pattern: a string under two patterns at once
    is one that schema-driven clients and fuzzers cannot write."""
    properties, required = schema.pop("properties"), schema.pop("required")
    parts = next(kind for kind in properties["content"]["anyOf"] if kind.get("type") == "array")
    text_part = {"type": "object", "required": ["type", "text"],
                 "properties": {"type": {"const": "text"},
                                "text": {"type": "string", "pattern": TEXT_PATTERN}}}
    user = {"type": "object", "required": ["role", "content"], "properties": {
        "role": {"const": "user"},
        "content": {"anyOf": [{"type": "string", "pattern": TEXT_PATTERN},
                              {**parts, "contains": text_part}]},
    }}
    other = {"type": "object", "required": required, "properties": {
        **properties, "role": {**properties["role"], "not": {"const": "user"}}}}
    schema["anyOf"] = [user, other]


class TextPart(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str
    text: MessageText | None = None


class ChatMessage(BaseModel):
    """A message; one with role ``user`` must have text (422 naming it otherwise)."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_user_needs_text)

    role: str = Field(min_length=1, max_length=50)
    content: MessageText | list[TextPart] | None = None


class ChatRequest(BaseModel):
    """The OpenAI chat-completions request; fields veritype does not use are accepted."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [{
        "model": "veritype",
        "messages": [{"role": "user", "content": "When was the Eiffel Tower completed?"}],
    }]})

    model: str = Field(
        min_length=1, max_length=200,
        description="An answer mode; another name gets 404, as from OpenAI.",
        json_schema_extra={"enum": list(CHAT_MODELS)},
    )
    messages: list[ChatMessage] = Field(
        min_length=1, max_length=200,
        description="Every message with role `user` has text; the last one is the question, "
        f"of at most {MAX_QUERY_CHARS:,} characters (422 naming it otherwise).",
        json_schema_extra={"contains": {"type": "object", "required": ["role"],
                                        "properties": {"role": {"const": "user"}}}},
    )
    stream: StrictBool = Field(
        default=False, description="Stream the reply as server-sent events; a JSON boolean.")


class ChatResponseMessage(BaseModel):
    role: Literal["assistant"]
    content: str


class ChatChoice(BaseModel):
    index: int
    message: ChatResponseMessage
    finish_reason: Literal["stop"]


class ChatUsage(BaseModel):
    """Sizes in words: veritype's extractive answers come from no tokenizer."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    """An OpenAI chat completion; ``veritype`` carries the full GroundedAnswer."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[ChatChoice]
    usage: ChatUsage
    veritype: GroundedAnswer


class ModelCard(BaseModel):
    id: str
    object: Literal["model"]
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"]
    data: list[ModelCard]
