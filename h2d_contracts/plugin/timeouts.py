"""A hanging target ends the test, not the run: pytest-timeout's timer with an exception Hypothesis cannot swallow.

pytest-timeout's own ``signal`` method raises pytest's ``Failed``, which Hypothesis takes
for a falsifying example: it then replays the hanging call to shrink it, with no timer
left, and the run never ends. Here the signal raises
:class:`~h2d_contracts.contracts.TargetTimeout` (a ``BaseException``) naming the test, its
budget, the kit's call in flight and where the target was; the report counts the test as
"timed out" (never as a contract violation). A second, thread timer ``HARD_GRACE_S`` later
dumps every thread's stack, writes the report so far (when this process holds it) and
exits the process: under ``pytest -n`` xdist reports the test as crashed and starts a
fresh worker, so the rest of the run still completes.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading
from typing import Any

import pytest

from h2d_contracts.contracts import TargetTimeout
from h2d_contracts.harness.checks import current_call as call_in_flight

from .state import item_state, run_state

__all__ = ["DEFAULT_TIMEOUT_S", "HARD_GRACE_S", "TimeoutHooks", "hangs", "stop_if_hung"]

#: Per-test limit when neither --timeout, PYTEST_TIMEOUT nor a ``timeout`` ini value is given.
#: The slowest test of a passing run is a GPU mutant hunt (a few minutes of 100 ms busy
#: streams); CPU tests take seconds. A machine too loaded to finish a test in this time gets a
#: "timed out" naming the test and this budget, not a violation.
DEFAULT_TIMEOUT_S = 300.0
#: After the signal, how long a test may still run before the process dumps its stacks and
#: exits (a hang inside a C call that never returns to Python, e.g. a CUDA synchronize).
HARD_GRACE_S = float(os.environ.get("H2D_HARD_GRACE_S", "30"))
_HANGS: list[str] = []  # node ids of this process's tests that ran past their limit


def hangs() -> list[str]:
    """Node ids of this process's tests that ran past their limit."""
    return _HANGS


class TimeoutHooks:
    """pytest-timeout's timer hook (optional: called only when pytest-timeout is loaded)."""

    @staticmethod
    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
        if (
            not run_state(item.config).active
            or settings.method != "signal"
            or threading.current_thread() is not threading.main_thread()
        ):
            return None  # pytest-timeout's thread method: it dumps stacks and exits by itself

        def on_alarm(signum: int, frame: Any) -> None:
            call = call_in_flight()
            where = (
                f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}" if frame is not None else "?"
            )
            raise TargetTimeout(
                f"timed out: {item.nodeid} ran past its {settings.timeout:g} s budget (--timeout) and was cut off"
                f"\n  call in flight: {call or '(no check was running: see where)'}\n  where: {where}",
                call,
            )

        hard = threading.Timer(settings.timeout + HARD_GRACE_S, _hard_exit, args=(item, settings.timeout))
        hard.daemon = True
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, settings.timeout)
        hard.start()

        def cancel() -> None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            hard.cancel()

        item.cancel_timeout = cancel  # type: ignore[attr-defined] # pytest-timeout's pytest_timeout_cancel_timer calls it
        return True


def _hard_exit(item: pytest.Item, timeout: float) -> None:
    """The test did not return after its signal: stacks to stderr, the report so far, then exit (see the module docstring)."""
    message = (
        f"timed out: {item.nodeid} did not return {HARD_GRACE_S:g} s after its {timeout:g} s budget (a hang the signal could not interrupt): process ended"
        f"; call in flight: {call_in_flight(thread=threading.main_thread().ident) or '(none of the kit checks)'}"
    )
    capman = item.config.pluginmanager.getplugin("capturemanager")
    if capman is not None:  # as pytest-timeout's thread method: else the capture swallows what follows
        capman.suspend_global_capture(in_=True)
    sys.stderr.write(f"\n+++ h2d-contracts: {message}\n")
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    state = run_state(item.config)
    if state.report is not None and item.config.getoption("--h2d-report"):
        state.report.add(
            item_state(item).canonical or item.nodeid,
            "call",
            "failed",
            {"h2d_errors": [message], "h2d_timeout": message},
            message,
            None,
        )
        state.report.meta["cut_off"] = message
        state.report.write(item.config.getoption("--h2d-report"))
    sys.stderr.flush()
    os._exit(3)


def stop_if_hung(item: pytest.Item) -> None:
    """Fail a test at once when this process already had ``--h2d-max-hangs`` tests cut off (the target looks hung)."""
    limit = item.config.getoption("--h2d-max-hangs")
    if limit and len(_HANGS) >= limit:
        pytest.fail(
            f"not run: {len(_HANGS)} tests of this process already ran past --timeout ({', '.join(_HANGS)}); "
            f"the target looks hung, so the rest fail at once (--h2d-max-hangs={limit})",
            pytrace=False,
        )
