"""Mutants for the kinds the outside round r52 found missing (the CPU at 9b1f2f4's suite, the GPU half on one H100).

Round r52 wrote 16 bugs into Model Runner V2's utilities; five returned right values where the suite looked and broke
a promise it did not check: a ``NonUvaBuffer`` twin that is ``.cpu`` itself on a host device, numpy scalars among a
staged write's values refused, a wrong stride table refused naming the pointer table, a CUDA tensor copied back into
a pool slot, and a UVA-backed ``StagedWriteTensor`` whose ``.gpu`` is the pinned host tensor. Each mutant is the
reference with one such change.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils


class _HostTwinAliased(U.NonUvaBuffer):
    """On a host device the twin is ``.cpu`` itself ("no copy between two host tensors")."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self._uva.device.type == "cpu":
            self._uva = self.cpu


@mutant(killed_by=("uva",), by=("prop_uva_rows",))
def nonuva_twin_is_host_buffer() -> Target:
    """``NonUvaBuffer`` on a host device makes ``.cpu`` its own twin: ``uva(n)`` returns a view of the host buffer, and
    the host's next write changes a result that should hold the values at the call."""
    return reference_target("nonuva_twin_is_host_buffer", buffer_utils=_utils(NonUvaBuffer=_HostTwinAliased))


class _PythonNumbersOnly(U.StagedWriteTensor):
    """Values checked as Python ``int``/``float`` only: numpy scalars refused."""

    def stage_write(self, index: Any, start: Any, x: Any) -> None:
        try:
            values = list(x)
        except TypeError:
            values = x  # the reference's refusal of a non-iterable
        if isinstance(values, list) and any(isinstance(v, np.generic) for v in values):
            raise TypeError("x must hold numbers (int or float)")
        super().stage_write(index, start, values)


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_values_python_numbers_only() -> Target:
    """``stage_write`` takes only Python ints and floats among its values: a list of numpy scalars (what iterating a
    numpy array gives) is refused with TypeError, and nothing is written."""
    return reference_target(
        "staged_values_python_numbers_only", buffer_utils=_utils(StagedWriteTensor=_PythonNumbersOnly)
    )


class _StridesNamedPtrs(U.FusedStagedWriter):
    """The stride table's refusal copied from the pointer table's: it names ``output_ptrs``."""

    def apply(self, tensors: Any, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
        try:
            super().apply(tensors, output_ptrs, output_strides)
        except ValueError as exc:
            if "output_strides" in str(exc):
                raise ValueError(
                    "output_ptrs must hold each tensor's .gpu.stride(0), in the order of tensors"
                ) from None
            raise


@mutant(killed_by=("fused-writes",), by=("prop_fused_refused",))
def fused_stride_refusal_names_ptrs() -> Target:
    """``FusedStagedWriter.apply`` refuses a wrong stride table (nothing written) with a message naming
    ``output_ptrs``: the caller is sent to the table that is right."""
    return reference_target("fused_stride_refusal_names_ptrs", buffer_utils=_utils(FusedStagedWriter=_StridesNamedPtrs))


class _DeviceStepsFetched(U.UvaBufferPool):
    """A tensor step on a device is brought to the host first ("``.cpu()`` makes any tensor a host one")."""

    def copy_to_uva(self, x: Any) -> torch.Tensor:
        if isinstance(x, torch.Tensor) and x.device.type != "cpu":
            x = x.cpu()
        return super().copy_to_uva(x)


@mutant(killed_by=("pool",), by=("prop_pool_rows",))
def pool_fetches_device_steps() -> Target:
    """``UvaBufferPool.copy_to_uva`` copies a device tensor back to the host before writing it: a CUDA tensor costs a
    device-to-host copy that waits for the stream, a meta tensor raises torch's NotImplementedError, where the
    reference refuses both with TypeError naming ``x``."""
    return reference_target("pool_fetches_device_steps", buffer_utils=_utils(UvaBufferPool=_DeviceStepsFetched))


class _UvaGpuIsHost(U.StagedWriteTensor):
    """With ``uva_instead_of_gpu`` the pinned host tensor itself serves as ``.gpu`` ("pinned memory is reachable")."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self._uva_buf is not None:
            self.gpu = self._uva_buf.cpu


@mutant(killed_by=("staged-write",), needs="cuda", by=("prop_staged_writes",))
def staged_uva_gpu_is_host() -> Target:
    """A ``StagedWriteTensor(..., uva_instead_of_gpu=True)``'s ``.gpu`` is its pinned host tensor, not the device view
    of it: device code cannot take it, and applies are host writes at the call (GPU only: without UVA the reference
    makes a device tensor)."""
    return reference_target("staged_uva_gpu_is_host", buffer_utils=_utils(StagedWriteTensor=_UvaGpuIsHost))
