"""The engine runner: one worker thread, a deadline per job, a cap on queued work."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from veritype.deadline import checkpoint, commit_point
from veritype.errors import DeadlineError
from veritype.server.runner import EngineRunner, Finished, SaturatedError

pytestmark = pytest.mark.needs_serve


def test_work_runs_in_order_on_one_thread() -> None:
    runner = EngineRunner(max_pending=4, timeout=5)

    async def main() -> list[str]:
        return list(await asyncio.gather(
            *(runner.call(lambda: threading.current_thread().name) for _ in range(3))))

    names = asyncio.run(main())
    runner.shutdown()
    assert len(set(names)) == 1 and names[0].startswith("veritype-engine")


def test_work_queued_past_its_deadline_never_runs() -> None:
    runner = EngineRunner(max_pending=4, timeout=0.05)
    release = threading.Event()
    ran: list[str] = []

    async def main() -> None:
        blocker = runner.submit(lambda: release.wait(5))
        with pytest.raises(DeadlineError):
            await runner.call(lambda: ran.append("late"))
        release.set()
        assert await asyncio.wrap_future(blocker.future) is True

    asyncio.run(main())
    runner.shutdown()
    assert ran == [] and runner.pending == 0


def test_a_full_queue_is_refused_with_a_retry_hint() -> None:
    runner = EngineRunner(max_pending=1, timeout=5)
    release = threading.Event()
    job = runner.submit(lambda: release.wait(5))
    with pytest.raises(SaturatedError) as refused:
        runner.submit(lambda: None)
    assert refused.value.retry_after >= 1
    release.set()
    assert job.future.result(timeout=5) is True
    runner.shutdown()
    assert runner.pending == 0


def test_a_stream_yields_items_then_the_result() -> None:
    runner = EngineRunner(max_pending=2, timeout=5)

    def work(emit: object) -> str:
        for number in range(3):
            emit(number)  # type: ignore[operator]
        return "done"

    async def main() -> list[object]:
        return [item async for item in runner.stream(work)]

    items = asyncio.run(main())
    runner.shutdown()
    assert items[:3] == [0, 1, 2]
    assert isinstance(items[3], Finished) and items[3].result == "done"


def test_work_past_its_commit_point_finishes_and_is_answered() -> None:
    """An ingest that has started writing is not reported as failed: its request waits for it
    and gets its result, though the deadline passed meanwhile."""
    runner = EngineRunner(max_pending=2, timeout=0.1)

    def write() -> str:
        commit_point("storing")
        time.sleep(0.4)
        checkpoint("after storing")  # past the commit point the deadline no longer stops it
        return "stored"

    async def main() -> str:
        return await runner.call(write)

    assert asyncio.run(main()) == "stored"
    runner.shutdown()


def test_work_before_its_commit_point_stops_at_the_deadline() -> None:
    runner = EngineRunner(max_pending=2, timeout=0.1)
    stored: list[str] = []

    def write() -> None:
        time.sleep(0.3)
        commit_point("storing")
        stored.append("stored")

    async def main() -> None:
        with pytest.raises(DeadlineError):
            await runner.call(write)

    asyncio.run(main())
    runner.shutdown()
    assert stored == [] and runner.pending == 0
