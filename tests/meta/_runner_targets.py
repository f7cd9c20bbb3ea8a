"""Targets for tests/meta/test_runner_bounds.py: a run against them must still end with a report.

``--h2d-impl tests.meta._runner_targets:corrupts_multi_mb``, ``...:blocks`` and ``...:sleeps`` (importable from
the kit's root, where the suite runs).
"""

from __future__ import annotations

import os
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


def blocks() -> Target:
    """The reference, but every call ends with a device synchronize ("to be safe"): it waits out all queued work.

    What the non-blocking contract must report in seconds, with a shrunk example and a
    verified reproduction, not by running into ``--timeout``.
    """

    def async_tensor_h2d(data, device=None, dtype=None, out=None):
        result = h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
        if result.device.type == "cuda":
            torch.cuda.synchronize(result.device)
        return result

    return Target(
        name="runner:blocks",
        async_tensor_h2d=async_tensor_h2d,
        capabilities=frozenset({"out", "cuda"}),
        spec="tests.meta._runner_targets:blocks",
    )


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


def several_defects() -> Target:
    """Seven independent defects of different kinds at once (the verdict must report every one in one run).

    An ndarray of the target dtype returned as a view of itself; a tensor of the target dtype
    returned as itself (the same message kind as the first, another input kind); ``out``
    filled by broadcasting; NaN into an integer dtype converted (INT_MIN); ``dtype``
    disagreeing with ``out.dtype`` converted silently; neither device nor out: an ``assert``;
    ``copy_to_gpu(n)`` copying ``n + 1`` rows.
    """
    import numpy as np

    from h2d_contracts.h2d_impl import CpuGpuBuffer

    ref = h2d_impl.async_tensor_h2d

    def fn(data, device=None, dtype=None, out=None):
        assert device is not None or out is not None, "no target"
        if out is None and torch.device(device).type == "cpu":
            if (
                isinstance(data, np.ndarray)
                and data.ndim
                and data.flags.c_contiguous
                and data.dtype.isnative
                and data.dtype.kind in "iuf"
            ):
                t = torch.from_numpy(data)
                if dtype is None or dtype == t.dtype:
                    return t
            if (
                isinstance(data, torch.Tensor)
                and data.is_contiguous()
                and not data.requires_grad
                and (dtype is None or dtype == data.dtype)
            ):
                return data
        if out is not None and dtype is not None and dtype != out.dtype:
            dtype = None
        if dtype is not None and not dtype.is_floating_point and dtype is not torch.bool:
            if (
                isinstance(data, list)
                and data
                and all(isinstance(v, float) for v in data)
                and any(v != v for v in data)
            ):
                return torch.tensor(data).to(dtype).to(device)
        try:
            return ref(data, device=device, dtype=dtype, out=out)
        except ValueError as exc:
            if out is None or "out.shape" not in str(exc):
                raise
            return out.copy_(torch.as_tensor(np.asarray(data)).to(out.dtype))

    class Buffer(CpuGpuBuffer):
        def copy_to_gpu(self, n=None):
            if n is not None and 0 <= n < self.cpu.shape[0]:
                self.gpu[: n + 1].copy_(self.cpu[: n + 1])
                return self.gpu[:n]
            return super().copy_to_gpu(n)

    return Target(
        name="runner:several_defects",
        async_tensor_h2d=fn,
        buffer_cls=Buffer,
        capabilities=frozenset({"out", "buffer", "cuda"}),
        spec="tests.meta._runner_targets:several_defects",
    )


#: What ``loses_device`` leaves behind, read by ``tests/meta/_simulated_device_loss.py`` as the CUDA context's error.
DEVICE_ERROR: list[str] = []


def loses_device() -> Target:
    """The reference, whose third call leaves the (simulated) CUDA context lost, as a kernel fault does on a GPU.

    Its values stay right: on a CPU host nothing faults, so the loss is recorded in
    ``DEVICE_ERROR`` for the simulated probe (``-p tests.meta._simulated_device_loss``).
    """
    calls = []

    def fn(data, device=None, dtype=None, out=None):
        calls.append(1)
        if len(calls) == 3:
            DEVICE_ERROR.append("AcceleratorError: CUDA error: an illegal memory access was encountered")
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return Target(name="runner:loses_device", async_tensor_h2d=fn, capabilities=frozenset({"out", "cuda"}))


def loses_device_then_raises() -> Target:
    """The reference, whose third call loses the (simulated) CUDA context and whose every later call raises CUDA's sticky
    error, as on a GPU after a kernel fault: Hypothesis's replays see calls that cannot complete.

    The calls are counted per process: a fresh xdist worker (a fresh context) starts at none. With
    ``$H2D_META_LOSS_FILE`` set, only the first process to reach its third call loses its context (it creates that
    file), so the tests a fresh worker runs again pass.
    """
    calls = []
    error = "AcceleratorError: CUDA error: an illegal memory access was encountered"
    once = os.environ.get("H2D_META_LOSS_FILE")

    def fn(data, device=None, dtype=None, out=None):
        calls.append(1)
        if len(calls) == 3 and not DEVICE_ERROR:
            try:
                if once:
                    with open(once, "x"):
                        pass
                DEVICE_ERROR.append(error)
            except FileExistsError:
                pass
        if DEVICE_ERROR:
            raise RuntimeError(f"CUDA error: an illegal memory access was encountered (call {len(calls)})")
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return Target(name="runner:loses_device_then_raises", async_tensor_h2d=fn, capabilities=frozenset({"out", "cuda"}))
