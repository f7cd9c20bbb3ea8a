"""b24 (GPU-only, _staging.py ``_Chunk.tensor``): a staging chunk's per-dtype view is cached in the caller's inference mode.

What changed: the ``with torch.inference_mode(False):`` around the cached per-dtype view
(``typed = self.views[dtype] = self.block[:whole].view(dtype)``) was removed.

Why an engineer would write it: "a view records no autograd history, and the chunk itself is
already allocated outside inference mode (``_alloc``), so the context manager is noise on the
hottest line of the small path". But a *view* made under ``torch.inference_mode()`` is an
inference tensor even when its base is not, and this view is cached for the life of the
chunk: if the first call that stages a given dtype in a chunk runs under the caller's
``torch.inference_mode()``, every later call outside the mode that stages that dtype in the
same chunk writes (``copy_``) into a view of an inference tensor and fails.

Observable (CUDA only: the pools stage CUDA targets only; host targets never touch a chunk):
with a fresh target, ``with torch.inference_mode(): async_tensor_h2d([1], device="cuda")``,
then ``async_tensor_h2d([2], device="cuda")`` outside it.
Reference: ``tensor([1], device='cuda:0')`` then ``tensor([2], device='cuda:0')``.
Bug: the second call raises ``RuntimeError: Inplace update to inference tensor outside
InferenceMode is not allowed``, and so does every later int64 small call outside the mode
until the 1 MiB chunk is full (a large-payload block likewise, for every reuse).

Promise broken: docs/reference.md "Calling contexts": "``torch.inference_mode()``: the same
values" and the other contexts unaffected; contracts.md: the host contracts draw one calling
context per example (none, ``no_grad``, ``inference_mode``, a default device), so consecutive
calls mix modes; the reference's own comment on pooled blocks ("kept across calls: never a
view made in inference mode").

Mechanism check on a CPU-only host: ``r38/gpu_sim.py`` drives the same pool through the
device-generic path with a host target.
"""

from __future__ import annotations

import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import Fork, buffer_utils_ns, fork, make_target, rebind


def tensor(self, shape: torch.Size, dtype: torch.dtype, start: int = 0) -> torch.Tensor:
    """A contiguous ``dtype`` tensor of ``shape`` in this chunk, from byte ``start`` (a multiple of the itemsize)."""
    typed = self.views.get(dtype)
    if typed is None:
        whole = self.block.numel() - self.block.numel() % dtype.itemsize  # tests use odd chunk sizes
        # BUG: no `with torch.inference_mode(False):` -- made under the caller's inference_mode, the cached
        # view is an inference tensor, and later calls outside the mode cannot copy_ into it
        typed = self.views[dtype] = self.block[:whole].view(dtype)
    return typed.as_strided(shape, _contiguous_strides(shape), start // dtype.itemsize)  # noqa: F821


class BuggyChunk(_staging._Chunk):
    __slots__ = ()
    tensor = rebind(tensor, _staging)


class BuggyStagingPool(_staging.StagingPool):
    # the reference's _alloc, building the changed chunk class
    _alloc = rebind(_staging.StagingPool._alloc, _staging, _Chunk=BuggyChunk)


def _fork() -> Fork:
    return fork("b24", _staging={"StagingPool": BuggyStagingPool})


def target() -> Target:
    f = _fork()
    return make_target(
        "b24_chunk_view_in_caller_mode",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
