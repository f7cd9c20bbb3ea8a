"""b06 (CPU-visible, h2d.py ``_prepare``): the "``out`` is ``data``" exemption from the overlap refusal widened to "same start address".

What changed: ``not (isinstance(data, torch.Tensor) and out is data)`` became
``not (isinstance(data, torch.Tensor) and out.data_ptr() == data.data_ptr())``.

Why an engineer would write it: "refreshing a tensor in place should also work when the
caller passes another view object of the same tensor (``x`` and ``x[:]``, ``x.view(...)``)";
comparing addresses looks like the general form of ``is``. But two views that start at the
same byte can cover different bytes: ``base[0:4]`` and ``base[0:8:2]`` both start at
``base``. torch's ``copy_`` does not detect that partial overlap: it reads elements that it
has already overwritten.

Promise broken: ``out`` must not overlap ``data``'s bytes ("disjoint slices of one buffer are
fine; ``out`` that *is* ``data`` is allowed"), refused with ``ValueError``, nothing written
(docs/reference.md "`out`", docstring "Refused: ... host memory overlapping ``data``'s bytes";
contracts.md bad-input ``out-aliases-data``). With the bug the call returns a wrong ``out``
and has written the caller's ``data`` (input-untouched).

Smallest input: ``base = torch.arange(8.0); async_tensor_h2d(base[0:4], out=base[0:8:2])``.
Reference: ``ValueError: out shares memory with data``, ``base`` unchanged.
Bug: returns ``tensor([0., 1., 1., 3.])`` (the data was ``[0, 1, 2, 3]``), ``base`` rewritten.
"""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.contracts import Target

from ._common import Fork, buffer_utils_ns, fork, make_target


def _prepare(
    data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool
) -> tuple[torch.Tensor, torch.dtype, torch.device]:
    """Validate every argument and return (source, target dtype, target device)."""
    check_dtype_arg(dtype)  # noqa: F821
    if out is not None:
        _check_out(out)  # noqa: F821
    if device is None and out is None:
        raise TypeError("a target is required: pass device=... or out=... (got neither)")
    target: torch.device = _resolve_device(device) if device is not None else None  # type: ignore[assignment]  # noqa: F821
    if out is not None:
        out_device = out.device  # a CUDA tensor's device always carries its index
        if target is not None and target != out_device:
            raise ValueError(f"device={target} disagrees with out.device={out_device}")
        target = out_device
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        dtype = out.dtype
    if cpu_only and target.type != "cpu":
        raise ValueError(f"the CPU-platform variant only targets host memory, got device {target}")
    if target.type not in ("cpu", "cuda"):
        raise ValueError(f"out.device={target} is not supported: the target must be 'cpu' or a CUDA device")
    source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)  # noqa: F821
    dtype = own_dtype if dtype is None else dtype
    if out is not None and tuple(out.shape) != tuple(source.shape):
        raise ValueError(
            f"out.shape={tuple(out.shape)} but data has shape {tuple(source.shape)}; "
            "out is never broadcast or truncated"
        )
    if (
        out is not None
        # BUG: "out is data" generalised to "out starts where data starts": views of one buffer with
        # the same first byte but other strides (base[0:4] vs base[0:8:2]) partially overlap
        and not (isinstance(data, torch.Tensor) and out.data_ptr() == data.data_ptr())
        and _shares_memory(source, out)  # noqa: F821
    ):
        raise ValueError("out shares memory with data; copy data first or pass another out")
    check_representable(source, dtype)  # noqa: F821
    if dtype is torch.bool and (source.is_neg() or source.is_conj()):
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def _fork() -> Fork:
    return fork("b06", h2d={"_prepare": _prepare})


def target() -> Target:
    f = _fork()
    return make_target(
        "b06_out_data_same_address_exempt",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
