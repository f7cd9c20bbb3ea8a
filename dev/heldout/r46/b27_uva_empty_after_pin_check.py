"""b27 (GPU-only): the UVA view's empty-tensor case comes after the pinned-memory check.

Where: ``buffer_utils.uva_view`` (every ``UvaBuffer``, so every UVA pool slot and every
``StagedWriteTensor(..., uva_instead_of_gpu=True)``). The reference handles an empty
tensor first (no bytes to map: an empty device tensor of that shape), because torch
reports an empty pinned tensor as not pinned. The bug moves that case below the
validation ("validate first, then special cases"), so an empty ``.cpu`` is refused as
"not pinned".

Why realistic: a tidy reordering of guards; on a GPU host, zero-row buffers are normal
(pools that start empty and grow, tables for ``max_num_reqs == 0`` paths, a
``FusedStagedWriter(device, 0)``'s pools in vLLM), and they now fail at construction.

On a CPU-only host ``uva_view`` refuses first for lack of UVA (``RuntimeError``), as does
``UvaBuffer``, and pools use ``NonUvaBuffer``: every call behaves as the control. On one
CUDA GPU: ``UvaBuffer(0, torch.int32)`` (or ``UvaBufferPool((0, 4), torch.int32)``,
``StagedWriteTensor((0, 4), torch.int32, "cuda:0", uva_instead_of_gpu=True)``): the
reference builds it (``uva()`` is an empty CUDA tensor); the bug raises ``ValueError: cpu
must be a pinned host tensor (a UVA view maps pinned memory)``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def uva_view(cpu):
    """A CUDA tensor over the same pinned host memory as ``cpu`` (same shape and dtype); kernels read it when they run."""
    if not uva_available():
        raise RuntimeError("UVA is not available: needs a CUDA device and pinned host memory")
    if cpu.device.type != "cpu" or not cpu.is_pinned():
        raise ValueError("cpu must be a pinned host tensor (a UVA view maps pinned memory)")
    if not cpu.is_contiguous():
        raise ValueError("cpu must be contiguous")
    if cpu.numel() == 0:  # BUG: moved here from before the pinned check (torch reports empty pinned as not pinned)
        return torch.empty(cpu.shape, dtype=cpu.dtype, device=f"cuda:{torch.cuda.current_device()}")
    raw = torch.as_tensor(_Interface(cpu), device=f"cuda:{torch.cuda.current_device()}")
    return raw.view(cpu.dtype).view(cpu.shape)


def target() -> Target:
    f = fork("b27")
    return make_target(
        "b27_uva_empty_after_pin_check",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b27", names={"uva_view": uva_view}),
    )
