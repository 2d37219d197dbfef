"""Cancelling work that runs under a deadline in another thread, as a server cancels a
request whose client went away."""

import threading
import time
from collections.abc import Callable

from veritype.deadline import Deadline, DeadlineExceededError, running_under


def cancelled_while(work: Callable[[], object], *, after: float, wait: float
                    ) -> tuple[list[str], float]:
    """Run ``work`` under a deadline in a thread, cancel it ``after`` seconds and wait up to
    ``wait`` seconds for the thread: the messages of the deadline errors it raised, and the
    seconds from the cancel to its end."""
    deadline = Deadline()
    errors: list[str] = []
    finished: list[float] = []

    def run() -> None:
        with running_under(deadline):
            try:
                work()
            except DeadlineExceededError as error:
                errors.append(str(error))
        finished.append(time.monotonic())

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(after)
    deadline.cancel()
    cancelled = time.monotonic()
    worker.join(timeout=wait)
    return errors, (finished[0] if finished else time.monotonic()) - cancelled
