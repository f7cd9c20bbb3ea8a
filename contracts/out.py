"""Contract ``out``: the very ``out`` is returned, exactly its elements are written, any other shape is refused.

``out`` of every layout (contiguous, every other element of a larger buffer, an offset view,
transposed) is written exactly: the storage around a view stays as it was. A shape that
differs from the data's, broadcastable ones included (``[7]`` into ``(4,)``), raises
``ValueError`` and leaves ``out`` untouched: ``Tensor.copy_``'s broadcasting is never used.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import call_valid, expect_raise, raw_storage, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.oracle import assert_same_values, expected_tensor, resolve_dtype
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, accepted, require_device, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import fail
from h2d_contracts.strategies import errors

from .input_untouched import out_bytes_outside
from .values import SIZE_DTYPES

__all__ = [
    "OUT_DENSE_TABLE",
    "WRONG_OUT_SHAPES",
    "WriteLog",
    "check_out_equal",
    "check_out_seen_by_autograd",
    "check_out_shape_rejected",
    "check_out_written_exactly",
    "shaped_data",
]


@check("out")
def check_out_written_exactly(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """out: returns the very ``out``; writes exactly its elements (the storage around a view is untouched)."""
    target.require("out", "out")
    out = kwargs["out"]
    call = target.describe_call(data, kwargs)
    before = raw_storage(out)
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    version = None if out.is_inference() else out._version  # inference tensors track no version
    result = call_valid("out", target, data, kwargs)
    if result is not out:
        fail(
            "out",
            "return value is not the out object",
            got=f"a different tensor (id {id(result)})",
            expected=f"out (id {id(out)})",
            call=call,
        )
    if version is not None and out.numel() and out._version == version:
        # written around autograd (out.data.copy_, a numpy view): a tensor saved for backward would then be
        # used with the new values silently, where PyTorch promises an error (the version counter's purpose)
        fail(
            "out",
            "out was written without advancing its version counter (autograd cannot see the write)",
            got=f"out._version {out._version} after the call",
            expected=f"more than {version}",
            call=call,
        )
    synchronize(out.device)
    assert_same_values(out, expected, contract="out", call=call)
    # out's own elements were checked just above (NaN payloads forgiven, as everywhere);
    # every other byte of its storage must be as before.
    diff = out_bytes_outside(out, before, raw_storage(out))
    if diff:
        fail(
            "out",
            "bytes outside out's own elements changed",
            got=f"{diff} bytes differ",
            expected="only out's elements written",
            call=call,
        )


@check("out")
def check_out_equal(target: Target, data: Any, kwargs: dict[str, Any], expected: torch.Tensor) -> None:
    """out, against a literal: :func:`check_out_written_exactly`, and then ``out`` holds exactly ``expected`` (a documented outcome)."""
    check_out_written_exactly(target, data, kwargs)
    assert_same_values(
        kwargs["out"],
        expected,
        contract="out",
        call=target.describe_call(data, kwargs) + "  # against the documented outcome",
    )


class WriteLog(torch.Tensor):
    """A tensor subclass that records the in-place ops called on it (an engine's instrumented buffer)."""

    writes: list[str]

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = getattr(func, "__name__", "")
        log = getattr(args[0], "writes", None) if args and isinstance(args[0], WriteLog) else None
        if log is not None and name.endswith("_") and not name.startswith("_"):
            log.append(name)  # a tensor the target made from out (empty_like) is a WriteLog without a log
        return super().__torch_function__(func, types, args, kwargs or {})  # type: ignore[no-untyped-call]


@check("out")
def check_out_seen_by_autograd(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """out: the write is one autograd and a tensor subclass see.

    ``kwargs["out"]`` (a floating dtype, grad enabled) is saved for backward by
    ``(w * out).sum()`` before the call; after it, ``backward()`` must raise PyTorch's
    "modified by an inplace operation" RuntimeError (a write through ``out.data`` or a numpy
    view does not bump the version counter, and the old graph silently uses the new
    values). Then the same call into a :class:`WriteLog` view of ``out`` must reach it
    through one of its in-place methods (``copy_``...): a subclass's hooks are honoured.
    """
    target.require("out", "out")
    out = kwargs["out"]
    call = target.describe_call(data, kwargs)
    with torch.enable_grad():
        w = torch.ones((), dtype=out.dtype, device=out.device, requires_grad=True)
        saved = (w * out).sum()
    call_valid("out", target, data, kwargs)
    try:
        saved.backward()
    except RuntimeError as exc:
        if "modified by an inplace operation" not in str(exc):
            raise
    else:
        fail(
            "out",
            "a backward that saved out ran after the call wrote out (autograd did not see the write)",
            got="backward() returned",
            expected="RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation",
            call=call,
        )
    logged = cast(WriteLog, out.as_subclass(WriteLog))
    logged.writes = []
    result = call_valid("out", target, data, {**kwargs, "out": logged})
    if result is not logged or not logged.writes:
        fail(
            "out",
            "a tensor subclass passed as out was not written through its own in-place methods",
            got=f"in-place calls {logged.writes}, {'the same object' if result is logged else 'another object'} returned",
            expected="the subclass's copy_ (or another in-place method) called, and out returned",
            call=call + "  # out as a torch.Tensor subclass",
        )


@prop("out", table=True)
def prop_out_autograd_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """out: a float out saved for backward, and a tensor subclass as out, for a list, an ndarray and a tensor: the write is seen."""
    require_device(target, device, "out")
    target.require("out", "out")
    del overrides
    rows = Rows("out autograd table")
    for kind in ("list", "ndarray", "tensor"):
        for shape, layout in (
            ((4,), "contiguous"),
            ((5,), "every other"),
            ((2, 3), "transposed"),
            ((300,), "contiguous"),
        ):
            if layout == "every other":
                out = torch.zeros(2 * shape[0] + 1, dtype=torch.float32, device=device)[1::2]
            elif layout == "transposed":
                out = torch.zeros(shape[::-1], dtype=torch.float32, device=device).t()
            else:
                out = torch.zeros(shape, dtype=torch.float32, device=device)
            rows.row(check_out_seen_by_autograd, target, shaped_data(kind, shape), {"out": out})
    rows.finish()


@check("out")
def check_out_shape_rejected(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """out: any shape mismatch, broadcastable ones included, raises ``ValueError`` and leaves ``out`` untouched."""
    target.require("out", "out")
    expect_raise(
        "out",
        target,
        data,
        kwargs,
        errors.SHAPE_MISMATCH,
        f"out.shape={tuple(kwargs['out'].shape)} vs data shape {tuple(np.shape(data)) if not isinstance(data, torch.Tensor) else tuple(data.shape)}",
    )


@prop("out")
def prop_out_written(target: Target, device: torch.device, **overrides: Any) -> None:
    """out: returns out itself, writes exactly its elements, contiguous or not."""
    require_device(target, device, "out")
    target.require("out", "out")

    def body(data: st.DataObject) -> None:
        call = data.draw(hs.h2d_calls(device, inputs=target.inputs, requires=target.requires, out=True), label="call")
        check_out_written_exactly(target, call.data, call.kwargs)

    run_given(body, overrides)


#: Dense inputs of out's dtype (pinned where pinning exists: then nothing needs converting or
#: staging, the zero-copy path) written into out of every layout. A target that returned a
#: new tensor, or ignored out, for exactly these inputs passed every random draw in the
#: GPU mutation run: such a draw is rare.
OUT_DENSE_TABLE = tuple(
    (shape, layout, out_kind)
    for shape, layouts in (
        ((6,), ("contiguous", "offset")),
        ((3, 5), ("contiguous", "transposed")),
        ((2, 3, 4), ("transposed",)),
        ((2, 3, 4, 5), ("channels_last", "transposed")),
    )
    for layout in layouts
    for out_kind in hs.OUT_KINDS
)


@prop("out")
def prop_out_dense_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """out: dense tensors (pinned where pinning exists) of out's dtype, into out of every layout: out itself, written exactly."""
    require_device(target, device, "out")
    target.require("out", "out")
    pinned = hs.pinning_available()
    for i, (shape, layout, out_kind) in enumerate(OUT_DENSE_TABLE):
        dtype = (torch.float32, torch.int64)[i % 2]
        values = torch.arange(math.prod(shape), dtype=dtype).view(shape) - 7
        data = hs.tensor_in_layout(values, layout, pinned=pinned)
        out = hs.out_in_layout(shape, dtype, device, out_kind)
        kwargs: dict[str, Any] = {"out": out, "device": device} if i % 3 == 0 else {"out": out}
        check_out_written_exactly(target, data, kwargs)


@prop("out")
def prop_out_shape_rejected(target: Target, device: torch.device, **overrides: Any) -> None:
    """out: any shape mismatch (broadcastable included) raises ValueError and leaves out untouched."""
    require_device(target, device, "out")
    target.require("out", "out")

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(device, inputs=target.inputs, requires=target.requires, out=True, dtype=False), label="call"
        )
        shape = tuple(call.kwargs["out"].shape)
        wrong = data.draw(hs.wrong_shapes(shape), label="out shape")
        out = data.draw(hs.out_buffers(wrong, call.kwargs["out"].dtype, device), label="wrong out")
        check_out_shape_rejected(target, call.data, {**call.kwargs, "out": out})

    run_given(body, overrides)


#: (data shape, wrong out shape): inner-dimension mismatches a broadcast would fill,
#: same-numel reshapes a flat copy would accept, truncations and growths, scalars.
WRONG_OUT_SHAPES: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((2, 1), (2, 3)),
    ((1, 3), (2, 3)),
    ((3,), (2, 3)),
    ((3,), (1, 3)),
    ((1,), (4,)),
    ((), (1,)),
    ((), (3,)),
    ((1, 3), (3,)),
    ((2, 3), (3, 2)),
    ((6,), (2, 3)),
    ((2, 3), (6,)),
    ((4,), (3,)),
    ((3,), (4,)),
    ((2, 0), (0,)),
    ((0,), (2, 0)),
    ((2, 2, 1), (2, 2, 5)),
)


def shaped_data(kind: str, shape: tuple[int, ...]) -> Any:
    values = np.arange(1, int(np.prod(shape, dtype=np.int64)) + 1, dtype=np.int64).reshape(shape)
    if kind == "list":
        return values.tolist()  # a 0-d array's tolist() is a Python int: the scalar case
    return values if kind == "ndarray" else torch.from_numpy(values.copy())


@prop("out")
def prop_out_shape_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """out: a table of wrong out shapes ([[1], [2]] into (2, 3), same-numel reshapes, scalars) x list, ndarray, tensor x contiguous/strided out."""
    require_device(target, device, "out")
    target.require("out", "out")
    del overrides  # deterministic: every row every run
    rows = Rows("out shape table")
    for data_shape, out_shape in WRONG_OUT_SHAPES:
        for kind in ("list", "ndarray", "tensor"):
            for strided in (False, True):
                n = int(np.prod(out_shape, dtype=np.int64))
                base = torch.full((2 * n + 1,), 77, dtype=torch.int64, device=device)
                out = base[1::2].view(out_shape) if strided and n else base[1 : 1 + n].view(out_shape)
                rows.row(check_out_shape_rejected, target, shaped_data(kind, data_shape), {"out": out})
    rows.finish()


#: The out layouts of the size ladder: a fresh contiguous tensor, every other element of a
#: wider one, and a transposed (dense, column-major) 2-D tensor.
SIZE_OUT_LAYOUTS = ("contiguous", "strided", "transposed")


def _out_like(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device, layout: str) -> torch.Tensor:
    """A zeroed ``out`` of ``shape`` in ``layout`` (see :data:`SIZE_OUT_LAYOUTS`)."""
    if layout == "strided":
        return torch.zeros((*shape[:-1], 2 * shape[-1]), dtype=dtype, device=device)[..., ::2]
    if layout == "transposed" and len(shape) == 2:
        return torch.zeros(shape[::-1], dtype=dtype, device=device).t()
    return torch.zeros(shape, dtype=dtype, device=device)


@prop("out", table=True, ladder=True)
def prop_out_sizes(target: Target, device: torch.device, **overrides: Any) -> None:
    """out: data of 1 to 2**20 elements (one rung an octave, strategies.ladder) into out of every layout, written exactly (a table).

    ndarrays and tensors to 2**20 elements, lists to 2**17; the data 1-D, or 2-D (3
    columns) where the size divides by 3, so a transposed out is a dense non-contiguous
    tensor; int32, float32 and, rotating, the other dtypes of the size ladder. An out
    written as if flat, or reshaped, past some size passes every small test.
    """
    require_device(target, device, "out")
    target.require("out", "out")
    sparse = overrides.pop("ladder", "full") == "sparse"
    del overrides  # deterministic: every row every run
    kinds = accepted(target, ["list", "ndarray", "tensor"], "out")
    rows = Rows("out size ladder")
    for k, kind in enumerate(kinds):
        for n in hs.ladder(rotation=k, top=17 if kind == "list" else hs.MAX_EXPONENT, sparse=sparse):
            for j, layout in enumerate(SIZE_OUT_LAYOUTS):
                if sparse and (j + n + k) % len(SIZE_OUT_LAYOUTS):
                    continue  # one layout a rung, rotating
                dtype = (torch.int32, torch.float32, SIZE_DTYPES[(n + j) % len(SIZE_DTYPES)])[(n + j) % 3]
                if kind == "ndarray" and dtype not in hs.NUMPY_OF:
                    dtype = torch.int32
                shape = (n // 3, 3) if n % 3 == 0 else (n,)
                source = hs.bulk_values(n, dtype, offset=n, shape=shape)
                data: Any = source.tolist() if kind == "list" else source.numpy() if kind == "ndarray" else source
                kwargs: dict[str, Any] = {"out": _out_like(shape, dtype, device, layout)}
                if kind == "list" and "dtype" in target.requires:
                    kwargs["dtype"] = dtype
                rows.row(check_out_written_exactly, target, data, kwargs)
    rows.finish()
