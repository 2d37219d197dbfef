"""What every route shares: the engine, its runner, settings, metrics and API-key checks."""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

from fastapi import Depends, HTTPException, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from veritype.answer import ClaimReport, GroundedAnswer
from veritype.graph import Status
from veritype.ingest.corpus import Corpus
from veritype.ingest.pipeline import IngestReport
from veritype.server.metrics import ServiceMetrics
from veritype.server.runner import EngineRunner, Finished
from veritype.server.settings import ServerSettings

ClaimCallback = Callable[[ClaimReport], None]


class AnswerEngine(Protocol):
    """The part of ``veritype.engine.Engine`` the service uses."""

    corpus: Corpus

    def ask(
        self,
        query: str,
        *,
        filters: Mapping[str, str] | None = None,
        mode: str | None = None,
        on_claim: ClaimCallback | None = None,
    ) -> GroundedAnswer: ...

    def verify(
        self,
        answer: str,
        evidence: Sequence[str] | None = None,
        *,
        on_claim: ClaimCallback | None = None,
    ) -> GroundedAnswer: ...

    def ingest_texts(
        self,
        texts: Sequence[str],
        *,
        titles: Sequence[str] | None = None,
        sources: Sequence[str] | None = None,
    ) -> IngestReport: ...

    def trace(self, trace_id: str) -> dict[str, Any] | None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Answered:
    """A grounded answer and how many evidence chunks it was checked against."""

    grounded: GroundedAnswer
    evidence_count: int


class Service:
    """The engine and what serves it: one worker that runs its calls, the settings and the
    metrics. With ``owns_engine`` closing the service closes the engine too."""

    def __init__(
        self, engine: AnswerEngine, settings: ServerSettings, *, owns_engine: bool = False
    ) -> None:
        self.engine = engine
        self.settings = settings
        self.runner = EngineRunner(
            max_pending=settings.max_pending, timeout=settings.request_timeout
        )
        self.metrics = ServiceMetrics(pending=lambda: float(self.runner.pending))
        self._owns_engine = owns_engine

    def close(self) -> None:
        """Finish the queued work, then close the engine if the service owns it."""
        self.runner.shutdown()
        if self._owns_engine:
            self.engine.close()

    def answered(self, grounded: GroundedAnswer) -> Answered:
        """Runs on the worker, right after the engine: reads the evidence count off the trace."""
        trace = self.engine.trace(grounded.trace_id)
        evidence = trace.get("evidence") if trace else None
        count = len(evidence) if isinstance(evidence, list) else len(grounded.references)
        return Answered(grounded, count)

    async def answer(self, kind: str, work: Callable[[], GroundedAnswer]) -> Answered:
        answered = await self.runner.call(lambda: self.answered(work()))
        self.metrics.observe_answer(kind, answered.grounded)
        return answered

    def stream_answer(
        self, kind: str, work: Callable[[ClaimCallback], GroundedAnswer]
    ) -> AsyncIterator[ClaimReport | Finished[Answered]]:
        """Claims as they are typed, then the answer; the job is queued before returning."""
        def run(emit: ClaimCallback) -> Answered:
            return self.answered(work(emit))

        source: AsyncIterator[ClaimReport | Finished[Answered]] = self.runner.stream(run)

        async def observed() -> AsyncIterator[ClaimReport | Finished[Answered]]:
            async for item in source:
                if isinstance(item, Finished):
                    self.metrics.observe_answer(kind, item.result.grounded)
                yield item

        return observed()


def get_service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


ServiceDep = Annotated[Service, Depends(get_service)]

_bearer = HTTPBearer(auto_error=False, description="An API key as a bearer token.")
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False, description="An API key.")


def require_api_key(
    service: Annotated[Service, Depends(get_service)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    api_key: Annotated[str | None, Depends(_api_key)],
) -> None:
    """Without configured keys the service is open (it then only binds to loopback)."""
    keys = service.settings.api_keys
    if not keys:
        return
    offered = api_key if api_key is not None else bearer.credentials if bearer else None
    if offered is None:
        raise HTTPException(
            status_code=401,
            detail="an API key is required: send `Authorization: Bearer <key>` or `X-API-Key`",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if not any(hmac.compare_digest(offered.encode(), key.encode()) for key in keys):
        raise HTTPException(
            status_code=401, detail="the API key is not valid",
            headers={"WWW-Authenticate": "Bearer"},
        )


Authorized = Depends(require_api_key)


def outcome_fields(answered: Answered) -> dict[str, Any]:
    """What the request log records about an answer."""
    grounded = answered.grounded
    claims = {"verified": 0, "uncertain": 0, "unsupported": 0}
    for claim in grounded.claims:
        claims[claim.type.value] += 1
    return {
        "query_id": grounded.trace_id,
        "evidence": answered.evidence_count,
        "claims": claims,
        "contradicted": sum(claim.status is Status.CONTRADICTED for claim in grounded.claims),
        "failures": grounded.limitations,
        "confidence": grounded.confidence.value,
        "abstained": grounded.abstained,
        "abstention_reason": grounded.abstention_reason,
    }
