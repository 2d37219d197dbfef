"""Whether the service is up, and its Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Response

from veritype import __version__
from veritype.server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from veritype.server.models import Health, error_responses
from veritype.server.service import Authorized, ServiceDep


def monitoring_router() -> APIRouter:
    router = APIRouter(tags=["service"])

    @router.get("/healthz", response_model=Health)
    async def healthz(service: ServiceDep) -> Health:
        """Liveness: answers at once, even while engine work is queued."""
        return Health(status="ok", version=__version__, pending=service.runner.pending)

    @router.get(
        "/metrics", dependencies=[Authorized],
        responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
                   **error_responses(401)},
        response_class=Response,
    )
    async def prometheus(service: ServiceDep) -> Response:
        """Prometheus metrics of this process."""
        return Response(service.metrics.exposition(), media_type=METRICS_CONTENT_TYPE)

    return router
