"""The HTTP service: question answering, verification, documents, traces, evaluation runs,
an OpenAI-compatible endpoint and the web trace viewer, in one FastAPI app."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from veritype import __version__
from veritype.server._errors import install_error_handlers
from veritype.server._middleware import RequestMiddleware
from veritype.server.answers import answers_router
from veritype.server.chat import chat_router
from veritype.server.documents import documents_router
from veritype.server.evals import evals_router
from veritype.server.logs import SERVER_LOGGER
from veritype.server.monitoring import monitoring_router
from veritype.server.pages import mount_static_files, pages_router
from veritype.server.service import AnswerEngine, Authorized, Service
from veritype.server.settings import ServerSettings, is_unspecified


def _warn_of_exposure(settings: ServerSettings) -> None:
    log = logging.getLogger(SERVER_LOGGER)
    if settings.open_access:
        log.warning(
            "no API keys are set (VERITYPE_API_KEYS): the API is open to anyone who can "
            "reach %s", settings.host,
        )
        if settings.any_host:
            log.warning("--allowed-host '*' turns the Host check off: any web page this "
                        "machine's browser opens can reach the open API (DNS rebinding)")
    if is_unspecified(settings.host) and not settings.allowed_hosts:
        log.warning("bound to every address of %s, but only requests for localhost or a "
                    "loopback address are answered: name the host clients use with "
                    "--allowed-host", settings.host)


def create_app(
    engine: AnswerEngine, settings: ServerSettings | None = None, *, close_engine: bool = False
) -> FastAPI:
    """The service over ``engine``; with ``close_engine`` the app closes it on shutdown,
    else the caller owns it."""
    settings = settings or ServerSettings()
    service = Service(engine, settings, owns_engine=close_engine)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        _warn_of_exposure(settings)
        yield
        service.close()

    app = FastAPI(
        title="veritype",
        version=__version__,
        description="Every claim of an answer typed Verified, Uncertain or Unsupported against "
        "evidence; only Verified, cited claims are rendered.\n\nEvery request must name this "
        "service in its Host header (a loopback name or address, or one the server allows); "
        "any other gets 400. A request body may be at most "
        f"{settings.max_body_bytes:,} bytes (413) and must arrive within "
        f"{settings.body_timeout:g} s (408).",
        lifespan=lifespan,
        # /docs is served from packaged assets, so it works without internet.
        docs_url=None,
        redoc_url=None,
    )
    app.state.service = service
    full_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        schema = full_openapi()
        if settings.open_access:
            # Without keys no operation checks one; the document should not ask for it.
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    operation.pop("security", None)
            schema.get("components", {}).pop("securitySchemes", None)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.add_middleware(RequestMiddleware, settings=settings, metrics=service.metrics)
    install_error_handlers(app)
    # Requests match routes in this order; the static mounts last, as they take every path
    # below them.
    app.include_router(answers_router())
    app.include_router(documents_router())
    app.include_router(monitoring_router())
    app.include_router(evals_router())
    app.include_router(chat_router(), dependencies=[Authorized])
    app.include_router(pages_router())
    mount_static_files(app)
    return app
