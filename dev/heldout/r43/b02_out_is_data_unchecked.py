"""b02 (CPU): ``out`` is not validated at all when it is the ``data`` tensor itself.

Where: h2d.py, ``_prepare``.
Change: ``if out is not None: _check_out(out)`` -> ``if out is not None and out is not data: _check_out(out)``.
Why plausible: ``out is data`` is the documented in-place refresh; the developer reasons that a tensor
already accepted as ``data`` needs no second round of checks (and saves the overlap walk on the hot
in-place path).
Promise broken: async_tensor_h2d docstring, Raises: "ValueError: ... ``out`` requiring grad or with
overlapping memory"; README bad-input: "the documented exception, a message naming the argument";
docs/reference.md: "never assert ... A failed call writes nothing".
Smallest input:
    t = torch.ones(3, requires_grad=True)
    async_tensor_h2d(t, device="cpu", out=t)
Reference: ValueError "out requires grad; ...". Bug: RuntimeError "a leaf Variable that requires grad is
being used in an in-place operation." (an inference tensor used outside inference mode likewise gets
torch's RuntimeError instead of the ValueError).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full

TAG = "b02"


def _prepare(data, device, dtype, out, *, cpu_only):
    check_dtype_arg(dtype)
    if out is not None and out is not data:  # BUG: was `if out is not None:`
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
        where = f"device={target}" if out is None else f"out.device={target}"
        raise ValueError(f"the CPU-platform variant only targets host memory, got {where}")
    if target.type not in ("cpu", "cuda"):
        raise ValueError(f"out.device={target} is not supported: the target must be 'cpu' or a CUDA device")
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


def _fork():
    return fork(TAG, h2d={"_prepare": _prepare})


def target() -> Target:
    return fork_target_full("b02_out_is_data_unchecked", _fork())
