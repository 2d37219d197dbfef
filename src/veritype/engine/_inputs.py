"""What a request to the engine may hold: checked queries, answers, evidence, filters, and
the typed request the verification core runs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from veritype.answer import ClaimReport
from veritype.errors import InputError
from veritype.evidence import Chunk, Document, EvidencePack

if TYPE_CHECKING:
    from veritype.generation import Draft
    from veritype.store import DocumentRecord

MAX_QUERY_CHARS = 2000
MAX_ANSWER_CHARS = 20000
FILTERS = ("source", "title", "added_after", "added_before")


@dataclass
class VerificationRequest:
    """One run of the verification core: the text to check and where its evidence comes from.

    ``fixed`` evidence (``verify`` with texts) replaces retrieval; otherwise each claim's
    evidence is retrieved from the corpus under ``filters``, with ``context`` (the chunks the
    draft was written from) as the fallback. ``draft`` is the generator's draft for ``ask``.
    """

    kind: Literal["ask", "verify"]
    text: str
    mode: str
    query: str | None = None
    fixed: EvidencePack | None = None
    context: Sequence[Chunk] = ()
    filters: Mapping[str, str] | None = None
    timings: dict[str, float] = field(default_factory=dict)
    on_claim: Callable[[ClaimReport], None] | None = None
    draft: Draft | None = None


def checked_query(query: object) -> str:
    """``query`` stripped; :class:`InputError` when it is not text, empty or too long."""
    return checked_text("query", query, MAX_QUERY_CHARS)


def checked_text(field_name: str, text: object, limit: int) -> str:
    if not isinstance(text, str):
        raise InputError(f"{field_name}: expected text, got {type(text).__name__}")
    if not text.strip():
        raise InputError(f"{field_name}: must not be empty")
    if len(text) > limit:
        raise InputError(
            f"{field_name}: {len(text)} characters, more than the limit of {limit}"
        )
    check_no_nul(field_name, text)
    return text.strip()


def check_no_nul(field_name: str, text: str) -> None:
    position = text.find("\0")
    if position >= 0:
        raise InputError(f"{field_name}: contains a NUL character at position {position}")


def checked_mode(mode: str) -> str:
    if mode not in ("brief", "detailed"):
        raise InputError(f"mode: must be 'brief' or 'detailed', got {mode!r}")
    return mode


def fixed_evidence(evidence: Sequence[str]) -> EvidencePack:
    """The evidence texts given to ``verify`` as one pack, one document each."""
    for index, text in enumerate(evidence):
        check_no_nul(f"evidence.{index}", text)
    texts = [text for text in evidence if text.strip()]
    if not texts:
        raise InputError("evidence: give at least one non-empty evidence text")
    return EvidencePack.from_documents(
        [
            Document(doc_id=f"evidence-{i + 1}", text=text, title=f"evidence {i + 1}")
            for i, text in enumerate(texts)
        ]
    )


def check_filters(filters: Mapping[str, str]) -> None:
    for key, value in filters.items():
        check_no_nul("filters", key)
        check_no_nul(f"filters.{key}", value)
        if key not in FILTERS:
            raise InputError(f"filters: unknown filter {key!r}; known: {', '.join(FILTERS)}")
        if key in ("added_after", "added_before"):
            timestamp(key, value)


def passes_filters(record: DocumentRecord | None, filters: Mapping[str, str]) -> bool:
    """Whether a stored document matches every filter (sources and titles by substring)."""
    if record is None:
        return False
    for key, wanted in filters.items():
        if key == "source" and wanted.lower() not in record.source.lower():
            return False
        if key == "title" and wanted.lower() not in record.document.title.lower():
            return False
        if key in ("added_after", "added_before"):
            limit = timestamp(key, wanted)
            if (key == "added_after") != (record.added_at >= limit):
                return False
    return True


def timestamp(key: str, value: str) -> float:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InputError(
            f"filters: {key} must be an ISO date like 2026-01-31, got {value!r}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()
