"""The engine's own tests, using its ``strategies``/``contracts`` modules and the kit's strategies side by side."""

from __future__ import annotations

import torch
from hypothesis import given
from tinyengine import CpuGpuBuffer, async_tensor_h2d
from tinyengine.h2d import default_device

from contracts import assert_int64_on
from h2d_contracts.strategies import host_data
from strategies import token_ids


@given(token_ids)
def test_token_ids_reach_the_device_as_int64(ids: list[int]) -> None:
    device = default_device()
    result = async_tensor_h2d(ids, device=device)
    assert_int64_on(device, result)
    assert result.tolist() == ids


@given(host_data(kinds=("tensor",)))
def test_host_tensors_keep_shape_and_dtype(data: torch.Tensor) -> None:
    result = async_tensor_h2d(data, device=default_device())
    assert (result.shape, result.dtype) == (data.shape, data.dtype)


def test_buffer_copies_the_first_rows() -> None:
    device = default_device()
    buf = CpuGpuBuffer(8, dtype=torch.int32, device=device, pin_memory=False)
    buf.np[:3] = [1, 2, 3]
    assert buf.copy_to_gpu(3).tolist() == [1, 2, 3]
