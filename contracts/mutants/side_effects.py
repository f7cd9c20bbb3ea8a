"""Mutants that break the side-effects contract: the reference, plus one process-wide change a call leaves behind.

Each is what a real helper does when a line meant for the call's own scope runs at
function scope: a warnings filter without ``catch_warnings``, a default dtype or grad mode
set and never restored, an early return that skips the restore.
"""

from __future__ import annotations

import os
import random
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
