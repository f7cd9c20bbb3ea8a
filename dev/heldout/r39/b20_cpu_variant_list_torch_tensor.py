"""b20 (CPU-visible, h2d.py ``async_tensor_h2d_cpu``): the CPU-platform variant builds its result from a list with ``torch.tensor(data, dtype=dtype)``, whose own range check refuses floats the reference truncates (``127.5`` into int8, ``-0.5`` into uint8) with a bare RuntimeError.

What changed: before ``return _stage(source, dtype, pin=False)``, the variant gained
``if isinstance(data, list): return torch.tensor(data, dtype=dtype, device="cpu")``.

Why an engineer would write it: the CPU worker has no staging and no pinned memory, and
for a list ``torch.tensor`` builds the result in one C++ pass, skipping the numpy array,
the view and the copy (validation has already run, so the values are known good). The
results agree for every value but the edge of an integer dtype: ``torch.tensor`` checks
the float *before* truncating and refuses ``127.5`` for int8, which the reference (like C,
numpy and ``Tensor.to``) truncates to 127; it raises ``RuntimeError`` naming no argument.

Promise broken: docs/reference.md "Integer targets: a float goes into an integer dtype as
C, numpy and ``Tensor.to`` convert it: truncated toward zero (... ``127.5`` into int8 is
127, ``-0.5`` into uint8 is 0) ... ``torch.tensor(list, dtype=int8)`` alone refuses
``127.5``: an engine that builds lists with it fails these valid calls";
``async_tensor_h2d_cpu`` docstring: "same signature, dtype resolution, validation and
exceptions as :func:`async_tensor_h2d`"; docs/contracts.md cpu-path: "The CPU-platform
variant and the main function, both aimed at the host, agree".

Smallest input: ``async_tensor_h2d_cpu([127.5], dtype=torch.int8, device='cpu')`` (also
``[-0.5]`` into uint8; tuples, arrays, tensors and ``out=`` calls are unaffected).

Reference result: ``tensor([127], dtype=torch.int8)``.
Bug result: ``RuntimeError: value cannot be converted to type int8 without overflow``.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


def async_tensor_h2d_cpu(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """CPU-platform variant of :func:`async_tensor_h2d` (host memory is the "device")."""
    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)
    if out is not None:
        return out.copy_(source)
    if isinstance(data, list):  # BUG: added "lists in one C++ pass on the CPU worker"; torch.tensor range-checks floats before truncating
        return torch.tensor(data, dtype=dtype, device="cpu")
    return _stage(source, dtype, pin=False)


def target() -> Target:
    f = fork("b20", h2d={"async_tensor_h2d_cpu": async_tensor_h2d_cpu})
    return make_target(
        "b20_cpu_variant_list_torch_tensor",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
