"""Joining or starting the Ray cluster the Ray engines run on."""

from __future__ import annotations

from collections.abc import Callable

RAY_NEEDS_EXTRA = 'the ray engine needs the ray extra: pip install "veritype[ray]"'


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
    if ray.is_initialized():
        return
    if address is None:
        ray.init(num_cpus=max(2, int(workers * cpus_per_worker + 0.999)),
                 include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
