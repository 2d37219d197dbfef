"""Worker processes: every worker starts before work is handed out, results come back by
index, and no worker outlives a parent killed outright."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from veritype._pool import WorkerPool

# A parent that starts two workers, prints their process ids and waits to be killed.
PARENT = """
import os, sys, time
from veritype._pool import WorkerPool
pool = WorkerPool(2, os.getpid, (), divmod)
print(" ".join(str(pid) for pid in pool._executor._processes), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped) is gone for our purpose.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ", 1)[1][0] != "Z"


def test_each_worker_starts_once_and_results_come_back_by_index() -> None:
    pool = WorkerPool(2, os.getpid, (), divmod)
    try:
        items = list(range(1, 11))
        results = dict(pool.run(items))
    finally:
        pool.close()
    assert sorted(results) == list(range(10))
    # divmod(state, item): the state is the worker's process id, built once per worker.
    workers = {results[i][0] * item + results[i][1] for i, item in enumerate(items)}
    assert len(workers) <= 2 and os.getpid() not in workers


def test_workers_end_when_their_parent_is_killed_outright() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    workers = [int(pid) for pid in parent.stdout.readline().split()]
    assert len(workers) == 2 and all(_alive(pid) for pid in workers)
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=30)
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in workers)
