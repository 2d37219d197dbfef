"""Joining or starting the Ray cluster the Ray engines run on."""

from __future__ import annotations

import socket
from collections.abc import Callable

RAY_NEEDS_EXTRA = 'the ray engine needs the ray extra: pip install "veritype[ray]"'
# How long a cluster's address may take to answer: Ray itself retries for minutes.
PROBE_SECONDS = 5.0
# How many workers a Ray engine starts unless told.
RAY_WORKERS = 2


def connect(
    address: str | None,
    workers: int,
    cpus_per_worker: float,
    error: Callable[[str], Exception],
) -> None:
    """Join the cluster at ``address`` ("auto": one started with ``ray start``), or with
    ``None`` start a local one sized for the workers. Problems raise ``error(message)``."""
    try:
        import ray
    except ImportError:
        raise error(RAY_NEEDS_EXTRA) from None
    if workers < 1 or cpus_per_worker <= 0:
        raise error("workers must be >= 1 and cpus_per_worker > 0")
    # Checked even when Ray is running already: an address given is never silently ignored.
    unreachable = None if address is None else _unreachable(address)
    if unreachable:
        raise error(f"cannot reach the Ray cluster at {address!r}: {unreachable}")
    if ray.is_initialized():
        return
    if address is None:
        ray.init(num_cpus=max(2, int(workers * cpus_per_worker + 0.999)),
                 include_dashboard=False, log_to_driver=False)
        return
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    except ConnectionError as failure:
        raise error(f"cannot join the Ray cluster at {address!r}: {failure}") from None


def _unreachable(address: str) -> str | None:
    """Why nothing answers at a ``host:port`` (or ``ray://host:port``) address, or ``None``;
    other addresses ("auto") Ray resolves, and reports, itself."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return None
    try:
        socket.create_connection((host, int(port)), timeout=PROBE_SECONDS).close()
    except OSError as failure:
        return failure.strerror or str(failure) or type(failure).__name__
    return None
