"""Prometheus metrics of one app instance (its own registry, so apps never share series)."""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from veritype.answer import GroundedAnswer

CONTENT_TYPE = CONTENT_TYPE_LATEST


class ServiceMetrics:
    """Requests by route and status, latency, claims by type, answers and abstentions."""

    def __init__(self, pending: Callable[[], float]) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "veritype_http_requests", "HTTP requests served.", ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "veritype_http_request_seconds", "Time to the end of the response.", ["route"],
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
            registry=self.registry,
        )
        self.claims = Counter(
            "veritype_claims", "Claims typed, by evidence type.", ["type"],
            registry=self.registry,
        )
        self.answers = Counter(
            "veritype_answers", "Answers produced, by outcome.", ["kind", "outcome"],
            registry=self.registry,
        )
        self.pending = Gauge(
            "veritype_pending_jobs", "Engine jobs queued or running.", registry=self.registry
        )
        self.pending.set_function(pending)

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(route).observe(seconds)

    def observe_answer(self, kind: str, answer: GroundedAnswer) -> None:
        for claim in answer.claims:
            self.claims.labels(claim.type.value).inc()
        self.answers.labels(kind, "abstained" if answer.abstained else "answered").inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
