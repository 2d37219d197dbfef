"""The web pages: the trace viewer, the API docs, and the static files they load."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

STATIC_DIR = Path(__file__).parent / "static"
SWAGGER_PREFIX = "/static/swagger-ui"


def pages_router() -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/")
    async def viewer() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    @router.get("/traces/{trace_id}/view")
    async def trace_viewer(trace_id: str) -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    @router.get("/docs")
    async def api_docs() -> FileResponse:
        return FileResponse(STATIC_DIR / "docs.html", media_type="text/html")

    return router


def mount_static_files(app: FastAPI) -> None:
    """Serve the viewer's files and the packaged Swagger UI (so /docs works offline)."""
    # Before /static, which would otherwise take these paths.
    app.mount(SWAGGER_PREFIX, StaticFiles(directory=str(swagger_ui_path)), name="swagger-ui")
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
