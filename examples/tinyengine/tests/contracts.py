"""The engine's own checks: a module named ``contracts``, next to the kit's ``h2d_contracts.contracts``."""

from __future__ import annotations

import torch


def assert_int64_on(device: torch.device, tensor: torch.Tensor) -> None:
    """Token ids reach the device as int64."""
    if tensor.device != device or tensor.dtype != torch.int64:
        raise AssertionError(f"expected int64 on {device}, got {tensor.dtype} on {tensor.device}")
