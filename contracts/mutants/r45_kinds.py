"""Mutants for the kind the outside round r45 found missing on the CPU (the contract check added for it must kill this).

The reference with one realistic change of the kind.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils


class _DeferredUva(U.UvaBuffer):
    """``UvaBuffer`` that builds anyway without UVA ("fail late, where the view is used"): pinned only where it can be,
    no device view."""

    def __init__(self, size: Any, dtype: torch.dtype) -> None:
        if U.uva_available():
            super().__init__(size, dtype)
            return
        shape, dtype = U._shape(size), U._dtype(dtype)
        self.cpu = torch.zeros(shape, dtype=dtype, device="cpu")
        self.np = self.cpu.numpy()
        self._uva = None  # type: ignore[assignment]


@mutant(killed_by=("uva",), by=("prop_uva_rows",))
def uva_buffer_built_without_uva() -> Target:
    """``UvaBuffer`` on a host without UVA builds a pageable buffer with no device view instead of raising
    ``RuntimeError`` as vLLM's does: the engine learns of it only when a kernel reads ``uva()``."""
    return reference_target("uva_buffer_built_without_uva", buffer_utils=_utils(UvaBuffer=_DeferredUva))
