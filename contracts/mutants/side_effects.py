"""Mutants that break the side-effects contract: the reference, plus one process-wide change a call leaves behind.

Each is what a real helper does when a line meant for the call's own scope runs at
function scope: a warnings filter without ``catch_warnings``, a default dtype or grad mode
set and never restored, an early return that skips the restore.
"""

from __future__ import annotations

import logging
import os
import random
import sys
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import ReferenceBuffer, mutant, reference_target


def _leaking(name: str, leak: Callable[[], object]) -> Target:
    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        leak()
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target(name, fn)


@mutant(killed_by=("side-effects",))
def warnings_filter_left_behind() -> Target:
    """``warnings.simplefilter("ignore", UserWarning)`` at function scope (meant to hide torch's read-only-array warning,
    no ``catch_warnings``): after one call every UserWarning of the process, the engine's own included, is gone."""
    return _leaking("warnings_filter_left_behind", lambda: warnings.simplefilter("ignore", UserWarning))


def _float64_default() -> None:
    torch.set_default_dtype(torch.float64)  # "to build float lists exactly", never restored


@mutant(killed_by=("side-effects",))
def default_dtype_left_float64() -> Target:
    """``torch.set_default_dtype(torch.float64)`` to build float lists exactly, never restored: every later
    ``torch.tensor([0.5])`` of the engine is float64."""
    return _leaking("default_dtype_left_float64", _float64_default)


@mutant(killed_by=("side-effects",))
def grad_mode_left_off() -> Target:
    """``torch.set_grad_enabled(False)`` for the copy ("no autograd here"), never restored: the engine's later training
    or scoring code silently records no graph."""
    return _leaking("grad_mode_left_off", lambda: torch.set_grad_enabled(False))


@mutant(killed_by=("side-effects",))
def numpy_errors_ignored() -> Target:
    """``np.seterr(all="ignore")`` to silence a cast warning, at function scope: the engine's numpy overflows and
    invalid operations stop warning."""
    return _leaking("numpy_errors_ignored", lambda: np.seterr(all="ignore"))


@mutant(killed_by=("side-effects",))
def torch_threads_pinned_to_one() -> Target:
    """``torch.set_num_threads(1)`` to keep a small host copy off the OpenMP pool, never restored: every later host op of
    the engine runs on one thread."""
    return _leaking("torch_threads_pinned_to_one", lambda: torch.set_num_threads(1))


@mutant(killed_by=("side-effects",))
def torch_random_state_consumed() -> Target:
    """a random staging-slot choice drawn from torch's global generator (``torch.randint``): every call moves the
    engine's random stream, so sampling is no longer reproducible from its seed."""
    return _leaking("torch_random_state_consumed", lambda: torch.randint(0, 4, (1,)))


@mutant(killed_by=("side-effects",))
def numpy_random_state_consumed() -> Target:
    """a jittered retry delay drawn from numpy's global generator (``np.random.random()``): numpy's random stream moves
    on every call."""
    return _leaking("numpy_random_state_consumed", lambda: np.random.random())


@mutant(killed_by=("side-effects",))
def python_random_state_consumed() -> Target:
    """a random pool slot chosen with Python's ``random.randrange``: the process's random stream moves on every call."""
    return _leaking("python_random_state_consumed", lambda: random.randrange(4))


def _meta_default_device() -> None:
    torch.set_default_device("cpu")  # "make sure host tensors land on the host": sets a global default device


@mutant(killed_by=("side-effects",))
def default_device_set() -> Target:
    """``torch.set_default_device("cpu")`` "to be sure host tensors land on the host": a process-wide default
    device that the engine never asked for (and factory calls then run through a device-mode wrapper)."""
    return _leaking("default_device_set", _meta_default_device)


@mutant(killed_by=("side-effects",))
def deterministic_algorithms_switched_on() -> Target:
    """``torch.use_deterministic_algorithms(True)`` for a reproducible copy: every later nondeterministic kernel of
    the engine raises."""
    return _leaking("deterministic_algorithms_switched_on", lambda: torch.use_deterministic_algorithms(True))


@mutant(killed_by=("side-effects",))
def numpy_print_options_changed() -> Target:
    """``np.set_printoptions(threshold=...)`` left from a debugging session: the engine's logged arrays print
    differently."""
    return _leaking("numpy_print_options_changed", lambda: np.set_printoptions(threshold=10))


@mutant(killed_by=("side-effects",))
def matmul_precision_lowered() -> Target:
    """``torch.set_float32_matmul_precision("medium")`` copied from an example into the helper: the engine's float32
    matmuls lose precision (TF32) process-wide."""
    return _leaking("matmul_precision_lowered", lambda: torch.set_float32_matmul_precision("medium"))


def _environ() -> None:
    os.environ["OMP_NUM_THREADS"] = "1"


@mutant(killed_by=("side-effects",))
def environment_variable_set() -> Target:
    """``os.environ["OMP_NUM_THREADS"] = "1"`` set by the helper: child processes the engine starts later inherit it."""
    return _leaking("environment_variable_set", _environ)


class _GradOffBuffer(ReferenceBuffer):
    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        torch.set_grad_enabled(False)
        return super().copy_to_gpu(n)


@mutant(killed_by=("side-effects",), by=("prop_buffer_side_effects",))
def buffer_copy_leaves_grad_off() -> Target:
    """``CpuGpuBuffer.copy_to_gpu`` turns grad mode off for its copy and never turns it back on."""
    return reference_target("buffer_copy_leaves_grad_off", buffer_cls=_GradOffBuffer)


# --- process-wide state past the first list (issue 30, item 1: "name what else a helper could touch") ---


@mutant(killed_by=("side-effects",))
def flush_denormal_left_on() -> Target:
    """``torch.set_flush_denormal(True)`` "so subnormal staging values cost no slow path", never restored: the CPU's
    flush-to-zero flags stay set for the thread, and the engine's own float math turns every subnormal into zero."""
    return _leaking("flush_denormal_left_on", lambda: torch.set_flush_denormal(True))


def _deep_lists() -> None:
    if sys.getrecursionlimit() < 10_000:
        sys.setrecursionlimit(10_000)  # "deeply nested lists are walked recursively"


@mutant(killed_by=("side-effects",))
def recursion_limit_raised() -> Target:
    """``sys.setrecursionlimit(10_000)`` so that deeply nested lists can be walked recursively, never restored: the
    engine's runaway recursion now overflows the C stack (a crash) instead of raising RecursionError."""
    return _leaking("recursion_limit_raised", _deep_lists)


@mutant(killed_by=("side-effects",))
def torch_logger_silenced() -> Target:
    """``logging.getLogger("torch").setLevel(logging.ERROR)`` to hide torch's warnings about non-writable arrays: the
    engine's torch logging below ERROR is gone for the rest of the process."""
    return _leaking("torch_logger_silenced", lambda: logging.getLogger("torch").setLevel(logging.ERROR))


_ORIGINAL_ASCONTIGUOUS = np.ascontiguousarray


def _patch_numpy() -> None:
    # "a faster ascontiguousarray for our arrays": rebinds numpy's function for the whole process
    if np.ascontiguousarray is _ORIGINAL_ASCONTIGUOUS:
        np.ascontiguousarray = lambda a, dtype=None, *, like=None: _ORIGINAL_ASCONTIGUOUS(a, dtype=dtype)


@mutant(killed_by=("side-effects",))
def numpy_function_monkeypatched() -> Target:
    """``np.ascontiguousarray`` rebound to a wrapper on the first call ("a fast path for our arrays"): every later
    caller in the process gets the wrapper (and loses its ``like=`` argument). Hunted in a fresh process, as every
    side-effects mutant is (tests/meta/test_mutants.py), so no later test inherits the patch."""
    return _leaking("numpy_function_monkeypatched", _patch_numpy)


@mutant(killed_by=("side-effects",))
def cudnn_autotuning_reset() -> Target:
    """``torch.backends.cudnn.benchmark = False`` "so the copy is deterministic", at function scope: an engine that
    turned cuDNN's autotuning on loses it after the first call (seen only from a process that had it on)."""

    def reset() -> None:
        torch.backends.cudnn.benchmark = False

    return _leaking("cudnn_autotuning_reset", reset)


def _linger() -> None:
    # a "prefetch" worker started per call and left running past it (its queue is never closed)
    threading.Thread(target=time.sleep, args=(0.5,), name="h2d-prefetch", daemon=True).start()


@mutant(killed_by=("side-effects",))
def worker_thread_left_running() -> Target:
    """A prefetch thread started by every call and left running after it returns: threads pile up in a serving
    process at one per call."""
    return _leaking("worker_thread_left_running", _linger)
