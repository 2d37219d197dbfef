"""How the HTTP service is configured: bind address, API keys, limits and folders."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


class ExposureError(ValueError):
    """A configuration that would expose an open service beyond this machine."""


class ServerSettings(BaseModel):
    """Everything the app needs besides the engine.

    Field limits (query, answer, evidence sizes) are part of the request models and so of
    the OpenAPI document; these are the limits of the service as a whole.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    api_keys: tuple[str, ...] = ()
    eval_dir: Path = Path("eval-runs")
    max_body_bytes: int = Field(default=1_000_000, ge=1)
    request_timeout: float = Field(default=120.0, gt=0)
    max_pending: int = Field(default=16, ge=1)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> ServerSettings:
        """Settings from ``VERITYPE_API_KEYS`` and ``VERITYPE_EVAL_DIR``; arguments win."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        keys = parse_api_keys(env.get("VERITYPE_API_KEYS", ""))
        if keys:
            values["api_keys"] = keys
        if env.get("VERITYPE_EVAL_DIR"):
            values["eval_dir"] = Path(env["VERITYPE_EVAL_DIR"])
        values.update({name: value for name, value in overrides.items() if value is not None})
        return cls.model_validate(values)

    @property
    def open_access(self) -> bool:
        return not self.api_keys


def parse_api_keys(raw: str) -> tuple[str, ...]:
    """Comma-separated keys, blanks and surrounding spaces dropped."""
    return tuple(key.strip() for key in raw.split(",") if key.strip())


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
