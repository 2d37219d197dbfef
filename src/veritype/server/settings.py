"""How the HTTP service is configured: bind address, API keys, limits and folders."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import ClassVar

from pydantic import Field, field_validator

from veritype.errors import ConfigurationError
from veritype.settings import Settings

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
ANY_HOST = "*"


class ExposureError(ConfigurationError):
    """A configuration that would expose an open service beyond this machine."""


class ServerSettings(Settings):
    """Everything the app needs besides the engine.

    Field limits (query, answer, evidence sizes) are part of the request models and so of
    the OpenAPI document; these are the limits of the service as a whole. ``VERITYPE_API_KEYS``
    (comma-separated) and ``VERITYPE_EVAL_DIR`` set ``api_keys`` and ``eval_dir``.
    """

    env_fields: ClassVar[tuple[str, ...]] = ("api_keys", "eval_dir")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    api_keys: tuple[str, ...] = ()
    eval_dir: Path = Path("eval-runs")
    max_body_bytes: int = Field(default=1_000_000, ge=1)
    # A client that declares a body and never sends it all would hold its connection (and
    # the server's memory for what came) for as long as it stays open.
    body_timeout: float = Field(
        default=10.0, gt=0, description="Seconds a request's whole body may take to arrive.")
    request_timeout: float = Field(default=120.0, gt=0)
    max_pending: int = Field(default=16, ge=1)
    # A page on another site can reach a loopback service through a name of its own that
    # it re-points at 127.0.0.1 (DNS rebinding); such requests carry that name as Host.
    allowed_hosts: tuple[str, ...] = Field(
        default=(),
        description="Host names requests may carry besides the loopback names and a specific "
        "bind address; '*' accepts any (unsafe without API keys).",
    )

    @field_validator("allowed_hosts")
    @classmethod
    def _host_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        cleaned = tuple(ANY_HOST if name.strip() == ANY_HOST else host_name(name)
                        for name in names)
        for name in cleaned:
            if not name or any(char.isspace() or char in "/@?#[]" for char in name):
                raise ConfigurationError(f"{name!r} is not a host name")
        return cleaned

    @property
    def open_access(self) -> bool:
        return not self.api_keys

    @property
    def any_host(self) -> bool:
        return ANY_HOST in self.allowed_hosts

    def allows_host(self, header: str | None) -> bool:
        """Whether a request whose Host header is ``header`` is for this service: a loopback
        name, the bind address when it is a specific one, or an allowed name; any port."""
        if self.any_host:
            return True
        if not header:
            return False
        name = host_name(header)
        if is_loopback(name) or name in self.allowed_hosts:
            return True
        return not is_unspecified(self.host) and name == host_name(self.host)


def host_name(host: str) -> str:
    """The name in a Host header value: lower case, without port, brackets or final dot.
    A value that is not ``name``, ``name:port`` or ``[address]:port`` comes back whole."""
    value = host.strip().lower()
    name, port = value, ""
    if value.startswith("["):
        inside, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return value
        name, port = inside, rest[1:]
    elif value.count(":") == 1:
        name, _, port = value.partition(":")
    if port and not (port.isascii() and port.isdigit()):
        return value
    return name.rstrip(".")


def is_unspecified(host: str) -> bool:
    """Whether ``host`` binds every address (0.0.0.0, ::), so names no address of its own."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return not host


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the service on this machine."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(settings: ServerSettings) -> None:
    """Refuse an open service (no API keys) bound to anything but loopback."""
    if settings.open_access and not is_loopback(settings.host):
        raise ExposureError(
            f"refusing to serve without API keys on {settings.host!r}, which is not a loopback "
            "address: set VERITYPE_API_KEYS (comma-separated) or bind --host 127.0.0.1"
        )
