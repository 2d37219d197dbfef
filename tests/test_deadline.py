"""Deadlines stop work at checkpoints: when time runs out or the work is cancelled."""

from __future__ import annotations

import threading
import time

import pytest

from veritype.deadline import (
    Deadline,
    DeadlineExceededError,
    checked,
    checkpoint,
    commit_point,
    running_under,
)


def test_a_checkpoint_outside_a_deadline_does_nothing() -> None:
    checkpoint("anything")


def test_a_passed_deadline_stops_at_the_next_checkpoint() -> None:
    with running_under(Deadline(0.01)):
        checkpoint("the first stage")
        time.sleep(0.02)
        with pytest.raises(DeadlineExceededError, match="deadline passed before the second stage"):
            checkpoint("the second stage")
    checkpoint("after the deadline's block")


def test_cancelling_from_another_thread_stops_the_work() -> None:
    deadline = Deadline()
    stages: list[int] = []
    errors: list[DeadlineExceededError] = []

    def work() -> None:
        with running_under(deadline):
            try:
                for stage in range(1000):
                    checkpoint(f"stage {stage}")
                    stages.append(stage)
                    time.sleep(0.005)
            except DeadlineExceededError as error:
                errors.append(error)

    worker = threading.Thread(target=work)
    worker.start()
    time.sleep(0.05)
    deadline.cancel()
    worker.join(timeout=2)
    assert not worker.is_alive()
    assert len(errors) == 1 and "cancelled" in str(errors[0])
    assert 0 < len(stages) < 1000


def test_a_checked_loop_stops_before_the_item_after_a_cancel() -> None:
    deadline = Deadline()
    seen: list[int] = []

    def loop() -> None:
        for item in checked(range(10), "the next item"):
            seen.append(item)
            if item == 3:
                deadline.cancel()

    with running_under(deadline), pytest.raises(DeadlineExceededError,
                                                match="cancelled before the next item"):
        loop()
    assert seen == [0, 1, 2, 3]
    assert list(checked(range(3), "the next item")) == [0, 1, 2]  # no deadline, no stop


def test_a_deadline_belongs_to_its_own_thread() -> None:
    seen: list[str] = []

    def other() -> None:
        checkpoint("another thread's stage")
        seen.append("ran")

    with running_under(Deadline(0.0)):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert seen == ["ran"]



def test_a_commit_point_checks_once_more_then_lets_the_work_finish() -> None:
    deadline = Deadline(10)
    with running_under(deadline):
        commit_point("storing")
        assert deadline.cancel() is False  # too late: the work will finish
        checkpoint("after storing")
    assert deadline.committed


def test_a_cancelled_deadline_stops_at_its_commit_point() -> None:
    deadline = Deadline(10)
    assert deadline.cancel() is True
    with running_under(deadline), pytest.raises(DeadlineExceededError, match="before storing"):
        commit_point("storing")
    assert not deadline.committed
