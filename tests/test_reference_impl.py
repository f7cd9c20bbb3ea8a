"""Tests of the reference's own internals on a GPU (not contracts): the chunked staging path and the staging pool.

The chunked path only runs on CUDA for payloads over SMALL_MAX_BYTES; here a target with
tiny chunk and threshold sizes drives it with ordinary Hypothesis inputs, so every layout,
dtype, ``out`` kind and chunk boundary is covered by the values, out, staging and
snapshot contracts. The pool's policy is tested on the CPU with a simulated clock
(tests/test_staging_pool.py); here its events are real.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.contracts import Target
from h2d_contracts.contracts import properties as P
from h2d_contracts.h2d_impl import h2d as R

pytestmark = pytest.mark.gpu


#: At most this many chunks per call: the values contract's 4-16 MiB payloads at 7-byte
#: chunks were millions of pinned blocks and DMAs per call, and the H200 run of fc47aca
#: never finished test_chunked_staging_keeps_contracts[values-7] (nor [snapshot-7]).
MAX_CHUNKS = 64


def _payload_bytes(data) -> int:
    """Bytes of ``data`` as the host sees it (lists: 8 per element), 0 if it has no regular shape."""
    if isinstance(data, torch.Tensor):
        return data.numel() * data.element_size()
    if isinstance(data, np.ndarray):
        return data.nbytes
    try:
        return 8 * int(np.asarray(data, dtype=object).size)
    except (ValueError, TypeError):
        return 0


def _tiny_chunks_target(chunk_bytes: int) -> Target:
    """The reference with ``chunk_bytes``-sized chunks for small payloads (odd chunk boundaries) and at most MAX_CHUNKS per call."""

    def call(data, device=None, dtype=None, out=None):
        step = max(chunk_bytes, _payload_bytes(data) // MAX_CHUNKS)
        return R._async_h2d(data, device, dtype, out, chunk_bytes=step, small_max=0)

    return Target(
        name=f"reference(chunk_bytes={chunk_bytes}, small_max=0)",
        async_tensor_h2d=call,
        capabilities=frozenset({"out", "cuda"}),
        pin_memory_available=h2d_impl.pin_memory_available,
    )


@pytest.mark.parametrize("chunk_bytes", [7])
@pytest.mark.parametrize("contract", ["values", "out", "staging", "snapshot"])
def test_chunked_staging_keeps_contracts(cuda_device, chunk_bytes, contract):
    target = _tiny_chunks_target(chunk_bytes)
    for prop in P.PROPERTIES[contract]:
        if prop in (P.prop_pinned_hazard, P.prop_buffer_hazard, P.prop_pinned_not_restaged):
            continue  # about zero-copy inputs and buffers: not the chunked path
        prop(target, cuda_device, max_examples=15)


def test_large_payload_is_chunked(cuda_device):
    """A 16 MiB pageable tensor goes through one pinned DMA per 4 MiB chunk, and back-to-back calls reuse the chunks."""
    from h2d_contracts.contracts.gpu import memcpy_kinds
    from h2d_contracts.h2d_impl import _staging

    nbytes = 16 << 20
    data = torch.arange(nbytes // 4, dtype=torch.int32)
    names, result = memcpy_kinds(lambda: h2d_impl.async_tensor_h2d(data, cuda_device))
    h2d = [x for x in names if "HtoD" in x]
    assert len(h2d) == nbytes // _staging.CHUNK_BYTES, h2d
    assert set(h2d) == {"Memcpy HtoD (Pinned -> Device)"}
    assert torch.equal(result.cpu(), data)
    torch.cuda.synchronize(cuda_device)
    pool = _staging.pool_for(torch.device(cuda_device), _staging.CHUNK_BYTES, True, small=False)
    for _ in range(20):  # 320 MiB back to back on an idle stream: chunks come back as their copies finish
        h2d_impl.async_tensor_h2d(data, cuda_device)
    torch.cuda.synchronize(cuda_device)
    bound = min(max(_staging.MIN_DEPTH_BYTES, nbytes), _staging.MAX_RETAINED_BYTES)
    assert pool.stats()["retained_bytes"] <= max(bound, nbytes), f"the pool grew past max(MIN_DEPTH_BYTES, payload) on an idle stream: {pool.stats()}"


def test_pinned_view_with_gaps_is_gathered_on_the_device(cuda_device):
    """A pinned column slice of the target dtype: one pinned DMA of its span, no pinned allocation, exact values."""
    from h2d_contracts.contracts.gpu import memcpy_kinds

    base = torch.arange(512 * 1024, dtype=torch.float32).view(512, 1024).pin_memory()
    view = base[:, 3:700:2]
    for out in (None, torch.empty(view.shape, dtype=torch.float32, device=cuda_device)):
        h2d_impl.async_tensor_h2d(view, cuda_device, out=out)  # warm-up
        torch.cuda.synchronize(cuda_device)
        before = torch.cuda.host_memory_stats().get("allocations.allocated", 0)
        names, result = memcpy_kinds(lambda: h2d_impl.async_tensor_h2d(view, cuda_device, out=out))
        assert torch.cuda.host_memory_stats().get("allocations.allocated", 0) == before
        assert [x for x in names if "HtoD" in x] == ["Memcpy HtoD (Pinned -> Device)"], names
        assert torch.equal(result.cpu(), view) and (out is None or result is out)
