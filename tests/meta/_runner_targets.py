"""Targets for tests/meta/test_runner_bounds.py: a run against them must still end with a report.

``--h2d-impl tests.meta._runner_targets:corrupts_multi_mb`` and ``...:sleeps`` (importable from
the kit's root, where the suite runs).
"""

from __future__ import annotations

import signal
import time

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.contracts import Target

#: How long ``sleeps`` sleeps per call: far past any per-test limit.
SLEEP_S = 600.0


def corrupts_multi_mb() -> Target:
    """The reference, but inputs of 1 Mi elements or more lose their last element (silent truncation at multi-MB sizes)."""

    def fn(data, device=None, dtype=None, out=None):
        result = h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
        if result.numel() >= 1 << 20:
            result.view(-1)[-1] = 0
        return result

    return Target(name="runner:corrupts_multi_mb", async_tensor_h2d=fn, capabilities=frozenset({"out", "cuda"}))


def sleeps() -> Target:
    """Hangs: every call sleeps SLEEP_S seconds (a deadlocked or stalled implementation)."""

    def fn(data, device=None, dtype=None, out=None):
        time.sleep(SLEEP_S)
        return torch.zeros(0)

    return Target(name="runner:sleeps", async_tensor_h2d=fn, capabilities=frozenset({"out", "cuda"}))


def hangs_in_c() -> Target:
    """Hangs where a signal cannot reach it: SIGALRM blocked, then a sleep (as a wait inside a C call that never returns)."""

    def fn(data, device=None, dtype=None, out=None):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(SLEEP_S)
        return torch.zeros(0)

    return Target(name="runner:hangs_in_c", async_tensor_h2d=fn, capabilities=frozenset({"out", "cuda"}))
