"""The HTTP service and web trace viewer (needs the ``serve`` extra)."""

from veritype.server.app import create_app
from veritype.server.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]
