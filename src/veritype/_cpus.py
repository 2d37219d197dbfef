"""How many CPUs this process may run on."""

from __future__ import annotations

import os


def default_threads() -> int:
    """The CPUs this process may run on (the affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)
