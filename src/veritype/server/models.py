"""Request and response models of the HTTP API; their limits are published in OpenAPI."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from veritype.answer import GroundedAnswer

MAX_QUERY_CHARS = 2_000
MAX_ANSWER_CHARS = 20_000
MAX_EVIDENCE_TEXTS = 50
MAX_EVIDENCE_CHARS = 100_000
MAX_FILTERS = 20
MAX_DOCUMENTS = 100
MAX_DOCUMENT_CHARS = 500_000

Mode = Literal["brief", "detailed"]
FilterKey = Annotated[str, StringConstraints(min_length=1, max_length=100)]
FilterValue = Annotated[str, StringConstraints(max_length=1_000)]
EvidenceText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_EVIDENCE_CHARS)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or only whitespace")
    return value


class QARequest(_Request):
    """A question to answer from the corpus."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="The question.")
    filters: dict[FilterKey, FilterValue] | None = Field(
        default=None, max_length=MAX_FILTERS, description="Metadata filters for retrieval."
    )
    mode: Mode | None = Field(default=None, description="Answer length; default from config.")

    _query_not_blank = field_validator("query")(_not_blank)


class VerifyRequest(_Request):
    """An answer to verify, against the given evidence texts or, without them, the corpus."""

    answer: str = Field(min_length=1, max_length=MAX_ANSWER_CHARS)
    evidence: list[EvidenceText] | None = Field(
        default=None,
        max_length=MAX_EVIDENCE_TEXTS,
        description="Evidence texts; omit to retrieve evidence from the corpus for each claim.",
    )

    _answer_not_blank = field_validator("answer")(_not_blank)

    @field_validator("evidence")
    @classmethod
    def _evidence_not_blank(cls, texts: list[str] | None) -> list[str] | None:
        if texts is not None:
            for index, text in enumerate(texts):
                if not text.strip():
                    raise ValueError(f"evidence text {index} is empty or only whitespace")
        return texts


class DocumentIn(_Request):
    """One text to ingest. ``source`` names it uniquely: re-posting a source replaces it."""

    text: str = Field(min_length=1, max_length=MAX_DOCUMENT_CHARS)
    title: str = Field(default="", max_length=500)
    source: str | None = Field(
        default=None,
        min_length=1,
        max_length=1_000,
        description="Unique name; default: derived from the text, so identical texts merge.",
    )

    _text_not_blank = field_validator("text")(_not_blank)


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


class OpenAIErrorBody(BaseModel):
    """Errors under ``/v1``, in the shape OpenAI clients read."""

    error: OpenAIError


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


class TextPart(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str = Field(min_length=1, max_length=50)
    content: str | list[TextPart] | None = None


class ChatRequest(BaseModel):
    """The OpenAI chat-completions request; fields veritype does not use are accepted."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=200)
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False


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
