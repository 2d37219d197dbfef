"""Waiting for a ``veritype serve`` process the test started."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx


def wait_until_healthy(process: subprocess.Popen[bytes], url: str, log: Path,
                       seconds: float = 60) -> None:
    """Poll ``url``'s /healthz until it answers 200; fail with the log when the process exits
    first or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        assert process.poll() is None, log.read_text()
        try:
            if httpx.get(url + "/healthz").status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"{url} never became healthy"
        time.sleep(0.2)
