"""b11 (CPU): ``out.device`` is no longer checked to be the host or a CUDA device.

The change: in ``h2d._prepare``, the check ``if target.type not in ("cpu", "cuda"): raise
ValueError(...)`` was deleted.

Why an engineer writes it: it looks like dead code: ``_resolve_device`` already refuses
every device that is not ``cpu`` or CUDA, and the ``device``/``out.device`` agreement check
runs just above it. But when only ``out`` is given, the target *is* ``out.device``, which
``_resolve_device`` never saw.

What breaks: an ``out`` on a device the helper does not support must raise
``ValueError`` naming it (bad-input kind ``out-on-meta``; docs/contracts.md):
``async_tensor_h2d([1.0], out=torch.empty(1, device="meta"))`` returns the meta ``out``
(its ``copy_`` is a no-op) instead of raising; nothing was copied anywhere.
"""

from __future__ import annotations

from ._common import fork, fork_target


def _prepare(data, device, dtype, out, *, cpu_only):
    check_dtype_arg(dtype)
    if out is not None:
        _check_out(out)
    if device is None and out is None:
        raise TypeError("a target is required: pass device=... or out=... (got neither)")
    target = _resolve_device(device) if device is not None else None
    if out is not None:
        out_device = out.device
        if target is not None and target != out_device:
            raise ValueError(f"device={target} disagrees with out.device={out_device}")
        target = out_device
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        dtype = out.dtype
    if cpu_only and target.type != "cpu":
        raise ValueError(f"the CPU-platform variant only targets host memory, got device {target}")
    # BUG: deleted as dead code: `if target.type not in ("cpu", "cuda"): raise ValueError(...)` (out.device is unchecked)
    source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)
    dtype = own_dtype if dtype is None else dtype
    if out is not None and tuple(out.shape) != tuple(source.shape):
        raise ValueError(
            f"out.shape={tuple(out.shape)} but data has shape {tuple(source.shape)}; "
            "out is never broadcast or truncated"
        )
    if out is not None and not (isinstance(data, torch.Tensor) and out is data) and _shares_memory(source, out):
        raise ValueError("out shares memory with data; copy data first or pass another out")
    check_representable(source, dtype)
    if dtype is torch.bool and (source.is_neg() or source.is_conj()):
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def target():
    return fork_target("b11-out-device-unchecked", fork("b11", h2d={"_prepare": _prepare}))
