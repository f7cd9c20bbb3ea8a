"""Tests of the reference's own internals (not contracts): the chunked, pipelined staging path.

The pipelined path only runs on CUDA for payloads >= PIPELINE_MIN_BYTES; here a target
with tiny chunk and threshold sizes drives it with ordinary Hypothesis inputs, so every
layout, dtype, ``out`` kind and chunk boundary is covered by the values, out, staging
and snapshot contracts.
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
        return R._async_h2d(data, device, dtype, out, chunk_bytes=step, min_bytes=0)

    return Target(
        name=f"reference(chunk_bytes={chunk_bytes}, min_bytes=0)",
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
    """async_tensor_h2d_pipelined: a >= PIPELINE_MIN_BYTES pageable tensor goes through one pinned DMA per chunk."""
    from h2d_contracts.contracts.gpu import memcpy_kinds

    n = R.PIPELINE_MIN_BYTES // 4
    data = torch.arange(n, dtype=torch.int32)
    names, result = memcpy_kinds(lambda: h2d_impl.async_tensor_h2d_pipelined(data, cuda_device))
    h2d = [x for x in names if "HtoD" in x]
    assert len(h2d) == R.PIPELINE_MIN_BYTES // R.CHUNK_BYTES, h2d
    assert set(h2d) == {"Memcpy HtoD (Pinned -> Device)"}
    assert torch.equal(result.cpu(), data)
