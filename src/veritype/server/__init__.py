"""The HTTP service and web trace viewer (needs the ``serve`` extra).

The names below load on first use, so that the command line, which registers ``serve``
from this package, runs on a core install without FastAPI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from veritype.server.app import create_app
    from veritype.server.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from veritype.server.app import create_app

        return create_app
    if name == "ServerSettings":
        from veritype.server.settings import ServerSettings

        return ServerSettings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
