"""counters/runtime/off_loop.py: blocking work leaves the loop for a worker thread and comes back awaited."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from counters.runtime.off_loop import in_thread


def where(label: str, *, suffix: str = "") -> tuple[str, str]:
    """The label given, and the name of the thread this ran on."""
    return label + suffix, threading.current_thread().name


async def test_the_work_runs_off_the_loop_and_its_result_comes_back():
    label, thread = await in_thread(where, "read", suffix="!")
    assert label == "read!"
    assert thread != threading.current_thread().name


async def test_the_pool_given_is_the_pool_used():
    with ThreadPoolExecutor(1, thread_name_prefix="beacon") as threads:
        _, thread = await in_thread(where, "write", threads=threads)
    assert thread.startswith("beacon")


async def test_an_error_in_the_thread_is_raised_to_the_awaiter():
    with pytest.raises(ZeroDivisionError):
        await in_thread(lambda: 1 / 0)
