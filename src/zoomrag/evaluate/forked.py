"""Independent jobs on two cores: half of them in a forked process, the rest here.

The probe's kinds of document are measured independently, in pure Python, after the embedding
has freed both cores; one process would leave one core idle while ``zoomrag index`` finishes.
A forked child shares the parent's memory (trees, hits, measures), so nothing is pickled on the
way in; only the results come back. The child must not use anything the parent holds open
(store connections, model threads): the jobs given here read memory only, and the child leaves
with ``os._exit`` (multiprocessing's fork start), so no finalizer closes what the parent shares.

Anything that goes wrong on the child's side (no fork on this platform, an error, a result
that does not pickle, no answer within the time limit) runs its jobs here instead: the results
are the same either way, only the time differs.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

#: Seconds the child may take beyond what the parent's half took before its jobs run here.
SLACK = 60.0


def run_split(jobs: Sequence[Callable[[], T]]) -> list[T]:
    """``[job() for job in jobs]``, the first half computed in a forked process when there are
    two jobs or more and two cores or more."""
    if len(jobs) < 2 or (os.cpu_count() or 1) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [job() for job in jobs]
    half = len(jobs) // 2
    mine, theirs = jobs[half:], jobs[:half]
    ctx = multiprocessing.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(theirs, writer), daemon=True)
    try:
        with _tokenizers_quiet():
            child.start()
    except (OSError, AssertionError):  # no process left, or this one is a daemon (no children)
        reader.close()
        return [job() for job in jobs]
    finally:
        writer.close()
    try:
        own = [job() for job in mine]
        found = _received(reader, SLACK)
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        reader.close()
    if found is None:
        found = [job() for job in theirs]
    return [*found, *own]


def _child(jobs: Sequence[Callable[[], Any]], writer: Any) -> None:
    try:
        writer.send(("ok", [job() for job in jobs]))
    except BaseException:  # noqa: BLE001 - the parent runs these jobs itself
        try:
            writer.send(("failed", None))
        except BaseException:  # noqa: BLE001 - a broken pipe: the parent sees no answer
            pass
    finally:
        writer.close()


def _received(reader: Any, timeout: float) -> list[Any] | None:
    try:
        if not reader.poll(timeout):
            return None
        status, value = reader.recv()
    except (EOFError, OSError):  # the child died
        return None
    return value if status == "ok" else None


@contextmanager
def _tokenizers_quiet() -> Iterator[None]:
    """The ``tokenizers`` library warns on stderr when a process forks after it used threads;
    the child tokenizes on one thread anyway, which this setting, read at the fork, tells it."""
    old = os.environ.get("TOKENIZERS_PARALLELISM")
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    try:
        yield
    finally:
        if old is None:
            del os.environ["TOKENIZERS_PARALLELISM"]
        else:
            os.environ["TOKENIZERS_PARALLELISM"] = old
