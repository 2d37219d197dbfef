"""Blocking engine and store work, run off the event loop with a deadline and a queue cap.

All of it runs on one worker thread: the engine serialises its calls anyway, and the
store's connection is then never used by two threads at once. Work that is still queued
when its request gives up is skipped; work already running is cancelled at its next
checkpoint (between engine stages and model batches), so the worker is soon free again.
Work past its commit point (an ingest writing) runs to its end, and its request is answered
with what it did even when the deadline passed meanwhile.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

from veritype.deadline import Deadline, DeadlineExceededError, running_under
from veritype.errors import DeadlineError, VeritypeError

T = TypeVar("T")
Item = TypeVar("Item")


class SaturatedError(VeritypeError):
    """Too much work is queued; the client should retry after ``retry_after`` seconds."""

    def __init__(self, pending: int, retry_after: int) -> None:
        super().__init__(f"the service is busy ({pending} requests queued or running)")
        self.retry_after = retry_after


class JobDeadlineError(DeadlineError):
    """A job did not finish within the request's deadline of ``seconds``."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the request did not finish within {seconds:g} s")
        self.seconds = seconds


class Job(Generic[T]):
    """Submitted work: its future and a way to stop it, queued or running."""

    def __init__(self, future: Future[T], deadline: Deadline) -> None:
        self.future = future
        self._deadline = deadline

    def abandon(self) -> bool:
        """Stop the work; ``False`` when it has passed its commit point and will finish."""
        if not self._deadline.cancel():
            return False
        self.future.cancel()
        return True


class EngineRunner:
    """One worker thread, at most ``max_pending`` queued-or-running jobs, a per-job deadline."""

    def __init__(self, *, max_pending: int, timeout: float) -> None:
        self.max_pending = max_pending
        self.timeout = timeout
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="veritype-engine")
        self._lock = threading.Lock()
        self._pending = 0
        self._mean_seconds = 1.0

    @property
    def pending(self) -> int:
        return self._pending

    def submit(self, work: Callable[[], T]) -> Job[T]:
        """Queue ``work`` or raise ``SaturatedError`` when the queue is full."""
        with self._lock:
            if self._pending >= self.max_pending:
                wait = math.ceil(self._mean_seconds * self._pending)
                raise SaturatedError(self._pending, retry_after=max(1, wait))
            self._pending += 1
        deadline = Deadline(self.timeout)

        def run() -> T:
            if deadline.expired:
                raise JobDeadlineError(self.timeout)
            started = time.perf_counter()
            try:
                with running_under(deadline):
                    return work()
            except DeadlineExceededError:
                raise JobDeadlineError(self.timeout) from None
            finally:
                self._observe(time.perf_counter() - started)

        try:
            future = self._executor.submit(run)
        except RuntimeError:
            self._release()
            raise
        future.add_done_callback(lambda _: self._release())
        return Job(future, deadline)

    async def call(self, work: Callable[[], T]) -> T:
        """Run ``work`` on the worker and wait for it, at most the deadline."""
        job = self.submit(work)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(job.future), self.timeout)
        except TimeoutError:
            if job.abandon():
                raise JobDeadlineError(self.timeout) from None
        except asyncio.CancelledError:
            # The client left (or the server is stopping): nobody waits for the result.
            job.abandon()
            raise
        # Committed: the client is told what the work did, not that it failed.
        return await asyncio.wrap_future(job.future)

    def stream(
        self, work: Callable[[Callable[[Item], None]], T]
    ) -> AsyncIterator[Item | Finished[T]]:
        """Queue ``work(emit)`` now (so a full queue is reported before any response
        starts) and return the items it emits, as they come, then ``Finished(result)``."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Item | _Done] = asyncio.Queue()

        def emit(item: Item) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, item)

        job = self.submit(lambda: work(emit))
        job.future.add_done_callback(lambda _: loop.call_soon_threadsafe(queue.put_nowait, _DONE))
        return self._drain(job, queue)

    async def _drain(
        self, job: Job[T], queue: asyncio.Queue[Item | _Done]
    ) -> AsyncIterator[Item | Finished[T]]:
        deadline = time.monotonic() + self.timeout
        try:
            while True:
                remaining = deadline - time.monotonic()
                try:
                    item = await asyncio.wait_for(queue.get(), max(remaining, 0.0))
                except TimeoutError:
                    raise JobDeadlineError(self.timeout) from None
                if isinstance(item, _Done):
                    yield Finished(job.future.result())
                    return
                yield item
        finally:
            if not job.future.done():
                job.abandon()

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _release(self) -> None:
        with self._lock:
            self._pending -= 1

    def _observe(self, seconds: float) -> None:
        with self._lock:
            self._mean_seconds = 0.8 * self._mean_seconds + 0.2 * seconds


class _Done:
    """Marks the end of a stream."""


_DONE = _Done()


class Finished(Generic[T]):
    """The result of streamed work, after every emitted item."""

    def __init__(self, result: T) -> None:
        self.result = result
