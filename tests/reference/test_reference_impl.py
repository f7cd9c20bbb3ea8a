"""Tests of the reference's own internals on a GPU (not contracts): the pooled-block path and the staging pools.

The pooled-block path only runs on CUDA for payloads over SMALL_MAX_BYTES; here a target
with tiny blocks and no small path drives it with ordinary Hypothesis inputs, so every
layout, dtype and ``out`` kind is covered by the values, out, staging and snapshot
contracts. The pools' policy is tested on the CPU with a simulated clock
(tests/reference/test_staging_pool.py); here their events are real.
"""

from __future__ import annotations

import pytest
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.contracts import Target
from h2d_contracts.contracts import gpu as G
from h2d_contracts.h2d_impl import h2d as R
from h2d_contracts.harness.registry import PROPERTIES

pytestmark = pytest.mark.gpu


def _small_blocks_target(min_block: int) -> Target:
    """The reference with no small-payload path and blocks from ``min_block`` bytes: every payload takes a pooled block."""

    def call(data, device=None, dtype=None, out=None):
        return R._async_h2d(data, device, dtype, out, min_block=min_block, small_max=0)

    return Target(
        name=f"reference(min_block={min_block}, small_max=0)",
        async_tensor_h2d=call,
        capabilities=frozenset({"out", "cuda"}),
        pin_memory_available=h2d_impl.pin_memory_available,
    )


@pytest.mark.parametrize("min_block", [8])
@pytest.mark.parametrize("contract", ["values", "out", "staging", "snapshot"])
def test_pooled_blocks_keep_contracts(cuda_device, min_block, contract):
    target = _small_blocks_target(min_block)
    for prop in PROPERTIES[contract]:
        if prop in (
            G.prop_pinned_hazard,
            G.prop_buffer_hazard,
            G.prop_pinned_not_restaged,
            G.prop_snapshot_converted_pinned,
        ):
            continue  # about zero-copy inputs and buffers: not the pooled path
        prop(target, cuda_device, max_examples=15)


def test_large_payload_one_pooled_block(cuda_device):
    """A 16 MiB pageable tensor: one pinned DMA from a 16 MiB pooled block; back-to-back calls keep the pool bounded."""
    from h2d_contracts.contracts.gpu import memcpy_kinds
    from h2d_contracts.h2d_impl import _staging

    nbytes = 16 << 20
    data = torch.arange(nbytes // 4, dtype=torch.int32)
    names, result = memcpy_kinds(lambda: h2d_impl.async_tensor_h2d(data, cuda_device))
    assert [x for x in names if "HtoD" in x] == ["Memcpy HtoD (Pinned -> Device)"], names
    assert torch.equal(result.cpu(), data)
    torch.cuda.synchronize(cuda_device)
    pool = _staging.pool_for(torch.device(cuda_device), nbytes, True, small=False)
    for _ in range(20):  # 320 MiB back to back on an idle stream: blocks come back as their copies finish
        h2d_impl.async_tensor_h2d(data, cuda_device)
    torch.cuda.synchronize(cuda_device)
    bound = max(_staging.MIN_DEPTH_BYTES, pool._depth_blocks() * nbytes)
    assert pool.stats()["retained_bytes"] <= bound, (
        f"the pool grew past max(MIN_DEPTH_BYTES, its depth in blocks) on an idle stream: {pool.stats()}"
    )


def test_pinned_view_with_gaps_is_gathered_on_the_device(cuda_device):
    """A pinned column slice of the target dtype: one pinned DMA of its span, no pinned allocation, exact values."""
    from h2d_contracts.contracts.gpu import memcpy_kinds

    base = torch.arange(512 * 1024, dtype=torch.float32).view(512, 1024).pin_memory()
    view = base[:, 3:700:2]
    for out in (None, torch.empty(view.shape, dtype=torch.float32, device=cuda_device)):
        h2d_impl.async_tensor_h2d(view, cuda_device, out=out)  # warm-up
        torch.cuda.synchronize(cuda_device)
        before = torch.cuda.host_memory_stats().get("allocations.allocated", 0)
        names, result = memcpy_kinds(lambda view=view, out=out: h2d_impl.async_tensor_h2d(view, cuda_device, out=out))
        assert torch.cuda.host_memory_stats().get("allocations.allocated", 0) == before
        assert [x for x in names if "HtoD" in x] == ["Memcpy HtoD (Pinned -> Device)"], names
        assert torch.equal(result.cpu(), view) and (out is None or result is out)
