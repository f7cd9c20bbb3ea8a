"""b26 pool_pinned_zero_copy (GPU only) -- ``buffer_utils.UvaBufferPool.copy_to_uva``.

What changed: an "optimisation" after the shape checks: a contiguous, already pinned tensor
of the pool's dtype is not copied into the next slot; its own UVA view is returned
(as ``async_tensor_h2d`` DMAs a pinned input from its own memory)::

    if (isinstance(x, torch.Tensor) and x.dtype == self.dtype and x.is_contiguous()
            and uva_available() and x.is_pinned()):
        self._curr = nxt
        return uva_view(x)

Realistic: engines hand the pool persistent pinned staging tensors; skipping one host copy
per step looks free. But the pool's slot exists precisely so that readers see the step's
rows after the caller refills its tensor: now every queued reader of step k reads the
caller's tensor when its kernel runs (step k + 1's rows, or garbage after a free).

Why GPU only: needs a pinned tensor and UVA; on a CPU-only host neither exists, the branch
is never taken, and every public call behaves as the control's (repro.py).

Promise broken (buffer_utils ``UvaBufferPool``: "``copy_to_uva(x)`` writes ``x`` into the
next slot ... A reader of that view sees its data until ``max_concurrency`` more calls
have come"; README ``pool``: "readers retired ``max_concurrency`` steps later see their own
step's data").

Smallest GPU input: ``p = UvaBufferPool(4, torch.int32)``; ``x = torch.arange(4,
dtype=torch.int32).pin_memory()``; ``v = p.copy_to_uva(x)``; ``x.fill_(9)``; ``v.cpu()``:
reference ``[0, 1, 2, 3]``; bug ``[9, 9, 9, 9]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def copy_to_uva(self, x):
    if isinstance(x, torch.Tensor):  # noqa: F821
        if x.device.type != "cpu":
            raise TypeError(f"x must be on the host, got a tensor on {x.device}")
        shape = tuple(x.shape)
    elif isinstance(x, (np.ndarray, list)):  # noqa: F821
        shape = np.shape(x)  # noqa: F821
    else:
        raise TypeError(f"x must be a tensor, ndarray or list, got {type(x).__name__}")
    if len(shape) != len(self._shape) or tuple(shape[1:]) != self._shape[1:]:
        raise ValueError(f"x has shape {tuple(shape)}; a slot holds rows of shape {self._shape[1:]}")
    n = shape[0]
    nxt = (self._curr + 1) % self.max_concurrency
    if (
        isinstance(x, torch.Tensor)  # noqa: F821
        and x.dtype == self.dtype
        and x.is_contiguous()
        and uva_available()  # noqa: F821
        and x.is_pinned()
    ):
        self._curr = nxt
        return uva_view(x)  # noqa: F821
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np  # noqa: F821
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b26")
    return make_target(
        "b26_pool_pinned_zero_copy",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b26", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
