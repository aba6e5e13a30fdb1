"""Independent jobs split over two processes: the same results as running them in order, the
child's half done here whenever the child cannot do it."""

from __future__ import annotations

import os
import threading

import pytest

from zoomrag.evaluate.forked import run_split

pytestmark = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: nothing is forked")


def test_the_first_half_runs_in_another_process_and_the_order_is_kept():
    here = os.getpid()
    got = run_split([lambda i=i: (i, os.getpid()) for i in range(5)])
    assert [i for i, _ in got] == [0, 1, 2, 3, 4]
    assert {pid for _, pid in got[:2]} != {here} and {pid for _, pid in got[2:]} == {here}


def test_one_job_runs_here():
    assert run_split([os.getpid]) == [os.getpid()]


def test_a_job_that_fails_in_the_child_is_run_here():
    here = os.getpid()

    def only_here() -> str:
        if os.getpid() != here:
            raise RuntimeError("not in the child")
        return "done"

    assert run_split([only_here, lambda: "mine"]) == ["done", "mine"]


def test_a_result_that_does_not_pickle_is_computed_here():
    lock = threading.Lock()  # cannot be sent back from the child
    got = run_split([lambda: lock, lambda: "mine"])
    assert got[0] is lock and got[1] == "mine"


def test_an_error_here_is_raised_and_the_child_is_stopped():
    def fails() -> None:
        raise ValueError("bad job")

    with pytest.raises(ValueError, match="bad job"):
        run_split([lambda: 1, fails])


def _in_a_daemon(out) -> None:
    out.send(run_split([lambda: 1, lambda: 2, lambda: 3]))


def test_a_daemon_process_which_may_not_fork_runs_every_job_itself():
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_in_a_daemon, args=(writer,), daemon=True)
    p.start()
    assert reader.poll(30) and reader.recv() == [1, 2, 3]
    p.join()
    assert p.exitcode == 0
