"""A target that loses the CUDA context ends its process's tests at once, named once, instead of failing them one by one.

When a kernel faults (an illegal memory access by a staged write past its tensor, a fused
apply handed a short pointer table), CUDA's error is sticky: every later CUDA call of the
process raises the same ``AcceleratorError``, so every later test of that process fails
with "could not complete: ... an illegal memory access was encountered", each looking like
a finding of its own, and none of them reproduces in a fresh process (measured on an H200
with vLLM 0.27.1 and 0.29.0's Model Runner V2 utilities: 15 such problems from one fault;
docs/records/gpu/README.md). Here, after each test the process's CUDA context is probed (only
where CUDA is initialised: never on a CPU-only host):

- the test during which the context was lost fails, or keeps its own failure, with the
  error added: "[device lost] after this test's calls ...";
- under ``pytest -n`` the worker ends itself before its next test (:func:`exit_worker_if_lost`):
  xdist starts a fresh worker, and the controller (:func:`handle_crashed_worker`) has the
  test the worker was given next run there, in a fresh CUDA context, with the rest;
- without xdist every later test of the process fails at once as "not run: this process's
  CUDA context was lost in <test> (<error>)", as ``--h2d-max-hangs`` does for a hung target.

The probe is
:func:`harness.device.context_error` (a module attribute, so the meta-tests simulate a loss on
a CPU host: ``tests/meta/_simulated_device_loss.py``).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

from h2d_contracts.harness import device as _device

__all__ = [
    "EXIT_STATUS",
    "check_after_test",
    "exit_worker_if_lost",
    "handle_crashed_worker",
    "lost",
    "renamed",
    "stop_if_device_lost",
]

#: The exit status of a worker that ended itself after losing its CUDA context (the hard timeout's is 3).
EXIT_STATUS = 4

_LOST: list[tuple[str, str]] = []  # (node id, error) of the test during which this process lost its CUDA context


def check_after_test(item: pytest.Item, failed: bool) -> None:
    """After ``item``'s call: if the context is lost now, record it, and fail ``item`` if it passed (else add a section).

    Raises:
        pytest.fail.Exception: ``item`` passed but left the CUDA context lost.
    """
    if _LOST:
        return
    error = _device.context_error()
    if error is None:
        return
    _LOST.append((item.nodeid, error))
    text = (
        f"[device lost] after this test's calls the CUDA context reports {error}: a call made a kernel fault "
        "(an out-of-bounds access?); CUDA's error is sticky, so every later CUDA call of this process fails"
    )
    if failed:
        item.add_report_section("call", "h2d device", text)
    else:
        pytest.fail(text, pytrace=False)


def stop_if_device_lost(item: pytest.Item) -> None:
    """Fail ``item`` at once when this process already lost its CUDA context in an earlier test.

    Raises:
        pytest.fail.Exception: the context was lost in an earlier test of this process.
    """
    if _LOST:
        nodeid, error = _LOST[0]
        pytest.fail(
            f"not run: this process's CUDA context was lost in {nodeid} ({error}); every CUDA call after it fails, "
            "so the rest of this process's tests fail at once (run this test alone to judge it)",
            pytrace=False,
        )


def lost() -> tuple[str, str] | None:
    """(node id, error) of the test during which this process lost its CUDA context, or None."""
    return _LOST[0] if _LOST else None


def exit_worker_if_lost(item: pytest.Item) -> None:
    """Under xdist, end this worker before ``item`` when an earlier test of it lost the CUDA context.

    Every CUDA call of this process would fail; a fresh worker has a fresh context. The
    earlier test's reports have reached the controller (its protocol completed), so xdist
    takes ``item`` for the crashed one, and :func:`handle_crashed_worker` has it run again
    elsewhere. Without xdist (one process) nothing happens here: :func:`stop_if_device_lost`.
    """
    if not _LOST or not hasattr(item.config, "workerinput"):
        return
    nodeid, error = _LOST[0]
    sys.stderr.write(
        f"\n+++ h2d-contracts: this worker's CUDA context was lost in {nodeid} ({error}); the worker ends so that "
        "its remaining tests run in a fresh process\n"
    )
    sys.stderr.flush()
    os._exit(EXIT_STATUS)


def handle_crashed_worker(crashitem: str, report: Any, sched: Any, lost_in: dict[str, tuple[str, str]]) -> None:
    """On the xdist controller: a worker that ended itself after losing its CUDA context crashed on no test of its own.

    ``lost_in`` maps a worker id (``gw0``) to the (test, error) its reports named as the loss;
    other crashes (a hard timeout's exit, a segfault) are left to xdist. The test xdist blames
    (``crashitem``, the worker's next, not yet run) is scheduled again (``sched.mark_test_pending``)
    and its crash report becomes a ``rerun`` (pytest-xdist's documented pattern for this hook),
    which neither the verdict nor the exit status counts. A scheduler that cannot reschedule
    (``--dist loadscope``) leaves it failed, saying why.
    """
    worker = getattr(getattr(report, "node", None), "gateway", None)
    entry = lost_in.get(getattr(worker, "id", ""))
    if entry is None:
        return
    nodeid, error = entry
    try:
        sched.mark_test_pending(crashitem)
    except NotImplementedError:
        report.longrepr = (
            f"not run: its worker ended after its CUDA context was lost in {nodeid} ({error}), and this xdist "
            "scheduler cannot run the test in another worker (run it alone to judge it)"
        )
        return
    report.outcome = "rerun"


def renamed(item: pytest.Item, exc: BaseException) -> BaseException | None:
    """The failure of ``item`` named by the loss of the CUDA context during it, or None (nothing to rename).

    A property's search names the loss itself (:func:`harness.runner.search_kinds`); a test that
    is not a search (a table of calls, a sequence) fails with whatever its next call raised after
    the fault, "a valid call raised: ... an illegal memory access". Where this process lost its
    context during ``item`` and ``exc`` carries contract violations none of which names the loss,
    they become one violation of the first one's contract whose kind is the loss
    (:func:`harness.runner.device_lost`), the first outcome kept in its message.
    """
    from h2d_contracts.harness.runner import device_lost, violations_in

    if not _LOST or _LOST[0][0] != item.nodeid:
        return None
    found = violations_in(exc)
    if not found or any(str(v).split("] ", 1)[-1].startswith("device lost:") for v in found):
        return None
    return device_lost(exc, found[0].contract, item.name, _LOST[0][1])
