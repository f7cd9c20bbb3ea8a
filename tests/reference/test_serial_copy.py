"""The reference's single-threaded host copy (``h2d_impl.h2d._serial_copy``), checked against torch's ``copy_``.

Small payloads are staged without an OpenMP region (one other busy thread made every
parallel host copy take about 8 ms on the H200 host, measured by bench/omp_contention.py; see docs/performance.md).
The route is numpy's ``copyto`` where its cast is C's, or torch copies below the parallel
grain. Either way the bytes must be exactly those of ``dst.copy_(src)``, for every dtype
pair and every layout the reference stages. The table below compares them bit for bit;
a copy that drops a piece or rounds differently fails it (shown by the broken variants
at the end).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from h2d_contracts.h2d_impl import SUPPORTED_DTYPES
from h2d_contracts.h2d_impl import h2d as ref

GRAIN = ref._TORCH_GRAIN
DTYPES = sorted(SUPPORTED_DTYPES, key=str)


def _source(dtype: torch.dtype, shape: tuple[int, ...], layout: str) -> torch.Tensor:
    """Values every dtype holds exactly, with fractions and a third for the float sources (rounding and truncation)."""
    n = 1
    for s in shape:
        n *= s
    base = torch.arange(n, dtype=torch.float64).reshape(shape)
    if dtype == torch.bool:
        vals = (base.remainder(3) == 0).to(dtype)
    elif dtype.is_floating_point or dtype.is_complex:
        # 1/3 rounds in every narrower float; 1 + 2**-11 + 2**-40 rounds to float16 differently
        # directly (numpy) and through float32 (torch): 1 + 2**-10 against 1.0
        base.view(-1)[0] = 1.0 + 2.0**-11 + 2.0**-40 - 1.0 / 3.0
        vals = (base.remainder(97) + 1.0 / 3.0).to(dtype)
    else:
        vals = base.remainder(100).to(dtype)
    if layout == "contiguous":
        return vals
    if layout == "transposed":
        return vals.t().contiguous().t() if vals.dim() == 2 else vals
    if layout == "strided":  # every other element of a wider buffer
        wide = torch.zeros((*shape[:-1], 2 * shape[-1]), dtype=dtype)
        wide[..., ::2] = vals
        return wide[..., ::2]
    if layout == "expanded":
        return vals[..., :1].expand(shape)
    raise AssertionError(layout)


CASES = [
    ((40_000,), "contiguous"),
    ((40_000,), "strided"),
    ((200, 300), "transposed"),
    ((200, 300), "strided"),
    ((3, 40_000), "contiguous"),
    ((300, 200), "expanded"),
    ((GRAIN,), "contiguous"),
    ((GRAIN - 1,), "strided"),
    ((GRAIN + 1,), "contiguous"),
    ((2 * GRAIN + 1,), "strided"),
]  # one-element last pieces


def _same_bytes(a: torch.Tensor, b: torch.Tensor) -> bool:
    return (
        a.dtype == b.dtype
        and a.shape == b.shape
        and torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))
    )


def _check(copy, src_dtype, dst_dtype, shape, layout) -> bool:
    src = _source(src_dtype, shape, layout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex -> real: torch warns once for both
        want = torch.empty(shape, dtype=dst_dtype).copy_(src)
        got = copy(torch.zeros(shape, dtype=dst_dtype), src)  # zeros, not empty: a skipped element must show
    return _same_bytes(got, want)


@pytest.mark.parametrize("src_dtype", DTYPES, ids=str)
def test_serial_copy_equals_copy_for_every_dtype_pair(src_dtype):
    bad = [
        (str(dst), shape, layout)
        for dst in DTYPES
        for shape, layout in CASES
        if not _check(ref._serial_copy, src_dtype, dst, shape, layout)
    ]
    assert not bad, f"_serial_copy differs from copy_ from {src_dtype}: {bad[:5]}"


def test_conj_and_neg_views_take_the_torch_route():
    z = torch.complex(torch.arange(40_000.0), torch.ones(40_000))
    for src in (z.conj(), (-z).conj()):
        want = torch.empty(40_000, dtype=torch.complex64).copy_(src)
        got = ref._serial_copy(torch.empty(40_000, dtype=torch.complex64), src)
        assert _same_bytes(got, want)
    neg = torch._neg_view(torch.arange(40_000, dtype=torch.float32))
    assert _same_bytes(ref._serial_copy(torch.empty(40_000), neg), torch.empty(40_000).copy_(neg))


class _CopySizes(TorchFunctionMode):
    """Records the element count of every ``Tensor.copy_`` destination."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.copy_:
            self.sizes.append(args[0].numel())
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize(
    ("src_dtype", "dst_dtype"),
    [
        (torch.bfloat16, torch.float32),
        (torch.float64, torch.float16),
        (torch.complex128, torch.complex64),
        (torch.int32, torch.int32),
    ],
    ids=str,
)
def test_no_torch_copy_reaches_the_parallel_grain(src_dtype, dst_dtype):
    for shape, layout in CASES:
        src = _source(src_dtype, shape, layout)
        with _CopySizes() as mode:
            ref._serial_copy(torch.empty(shape, dtype=dst_dtype), src)
        assert all(n <= GRAIN for n in mode.sizes), (shape, layout, max(mode.sizes))


def test_host_copy_is_serial_up_to_the_bound_and_parallel_beyond():
    limit = ref.SERIAL_COPY_MAX_BYTES // 2  # bfloat16 elements: the torch route, visible to the mode
    for n, serial in ((limit, True), (limit + 1, False)):
        src = torch.ones(n, dtype=torch.bfloat16)
        with _CopySizes() as mode:
            ref._host_copy(torch.empty(n, dtype=torch.bfloat16), src)
        assert (max(mode.sizes) <= GRAIN) == serial, (n, max(mode.sizes))


def _drops_last_piece(dst, src):
    """A broken variant: pieces stepped one row too far, the tail never copied."""
    if dst.numel() < GRAIN:
        return dst.copy_(src)
    step = GRAIN - 1
    for i in range(0, dst.shape[0] - step, step):
        dst[i : i + step].copy_(src[i : i + step])
    return dst


def _rounds_through_numpy(dst, src):
    """A broken variant: every conversion by numpy (float64 -> float16 rounds directly, torch through float32)."""
    dst.copy_(torch.from_numpy(src.numpy().astype(torch.empty((), dtype=dst.dtype).numpy().dtype)))
    return dst


def test_the_table_catches_broken_copies():
    assert not _check(_drops_last_piece, torch.int64, torch.int32, (40_000,), "contiguous")
    # float64 values whose float16 rounding differs between one rounding and two
    src = torch.tensor([1.0 + 2.0**-11 + 2.0**-40] * GRAIN, dtype=torch.float64)
    want = torch.empty(GRAIN, dtype=torch.float16).copy_(src)
    assert _same_bytes(ref._serial_copy(torch.empty(GRAIN, dtype=torch.float16), src), want)
    assert not _same_bytes(_rounds_through_numpy(torch.empty(GRAIN, dtype=torch.float16), src), want)


def test_the_bound_counts_the_wider_side():
    """A 2 MiB float64 source into a 256 KiB bool staging is a large copy: one parallel copy_, not serial work."""
    n = ref.SERIAL_COPY_MAX_BYTES
    src = torch.linspace(0, 1, n, dtype=torch.float64)
    with _CopySizes() as mode:
        ref._host_copy(torch.empty(n, dtype=torch.bool), src)
    assert mode.sizes == [n]


# Regressions found by the outside review of this copy: each
# compared through the public entry point with torch's copy_.
from h2d_contracts import h2d_impl  # noqa: E402


@pytest.mark.parametrize("n", [GRAIN, GRAIN + 1, 2 * GRAIN + 1, 65_535])
def test_review_neg_view_into_float16_keeps_its_sign(n):
    data = torch.complex(torch.zeros(n), torch.full((n,), 1.5)).conj().imag  # a float32 view with the neg bit: -1.5
    got = h2d_impl.async_tensor_h2d(data, device="cpu", dtype=torch.float16)
    assert _same_bytes(got, torch.empty(n, dtype=torch.float16).copy_(data))
    assert (got == -1.5).all()
    # the sign of the imaginary zero too: Tensor.to's (-1.5+0j, numpy's too), the values contract's oracle; torch's
    # copy_ negates after converting (-1.5-0j), and drops the sign of a torch._neg_view into float16 (held-out round r51)
    got = h2d_impl.async_tensor_h2d(data, device="cpu", dtype=torch.complex64)
    assert _same_bytes(got, data.to(torch.complex64))
    neg = torch._neg_view(torch.full((n,), 1.5))
    assert _same_bytes(h2d_impl.async_tensor_h2d(neg, device="cpu", dtype=torch.float16), neg.to(torch.float16))


@pytest.mark.parametrize("n", [3, GRAIN + 1])
def test_zerotensor_converts_and_a_complex_one_is_refused(n):
    """A ZeroTensor (no storage) into an integer dtype gives zeros, past the grain too; a complex one into a real
    dtype is refused as any complex tensor is (the range check reads no values of it, its type rules still hold)."""
    got = h2d_impl.async_tensor_h2d(torch._efficientzerotensor(n), device="cpu", dtype=torch.int32)
    assert torch.equal(got, torch.zeros(n, dtype=torch.int32))
    for dtype in (torch.float32, torch.int32):
        with pytest.raises(TypeError, match="complex"):
            h2d_impl.async_tensor_h2d(torch._efficientzerotensor(n, dtype=torch.complex64), device="cpu", dtype=dtype)


def test_review_out_goes_through_copy_and_autograd_sees_the_write():
    w = torch.ones(40_000, requires_grad=True)
    out = torch.zeros(40_000)
    loss = (w * out).sum()
    version = out._version
    h2d_impl.async_tensor_h2d(torch.full((40_000,), 5.0), device="cpu", out=out)
    assert out._version > version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_review_bool_bytes_other_than_0_and_1_are_read_as_true():
    data = np.full(40_000, 2, np.uint8).view(np.bool_)
    for dtype in (None, torch.int32, torch.float32):
        got = h2d_impl.async_tensor_h2d(data, device="cpu", dtype=dtype)
        want = torch.empty(40_000, dtype=dtype or torch.bool).copy_(torch.from_numpy(data))
        assert _same_bytes(got, want), dtype


def test_review_signalling_nan_warns_nothing():
    snan = np.full(GRAIN + 8, 0x7F800001, np.uint32).view(np.float32)
    for dtype in (torch.bool, torch.float64):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = h2d_impl.async_tensor_h2d(snan, device="cpu", dtype=dtype)
        assert _same_bytes(got, torch.empty(GRAIN + 8, dtype=dtype).copy_(torch.from_numpy(snan))), dtype


def test_review_zero_tensor_source():
    data = torch._efficientzerotensor(40_000, dtype=torch.int32)
    assert _same_bytes(h2d_impl.async_tensor_h2d(data, device="cpu"), torch.zeros(40_000, dtype=torch.int32))


class _ComputeOps(TorchDispatchMode):
    """Every aten op that computes (views and ``empty`` excluded), with the most elements it touched."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[tuple[str, int]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if not func.is_view and func.overloadpacket is not torch.ops.aten.empty:
            sizes = [a.numel() for a in args if isinstance(a, torch.Tensor)] + (
                [out.numel()] if isinstance(out, torch.Tensor) else []
            )
            self.ops.append((str(func), max(sizes, default=0)))
        return out


SMALL_CALLS = {  # 40,000 elements, the wider side at most 256 KiB: no OpenMP region anywhere in the call
    "ndarray float32 -> int32": (lambda: np.arange(40_000, dtype=np.float32), torch.int32),
    "tensor int32 -> int16": (lambda: torch.arange(40_000, dtype=torch.int32) % 100, torch.int16),
    "tensor float16 -> int16": (lambda: torch.arange(40_000, dtype=torch.float16) % 100, torch.int16),
    "ndarray int32, own dtype": (lambda: np.arange(40_000, dtype=np.int32), None),
    "tensor bfloat16 -> float32": (lambda: torch.arange(40_000, dtype=torch.bfloat16), torch.float32),
    "ndarray uint8 -> float32": (lambda: np.arange(40_000, dtype=np.uint8), torch.float32),
    "list of bools": (lambda: [i % 3 == 0 for i in range(40_000)], None),
}


@pytest.mark.parametrize("name", list(SMALL_CALLS))
def test_a_small_host_call_runs_no_parallel_op(name):
    """Validation (check_representable) and staging of a small payload stay below torch's parallel grain."""
    make, dtype = SMALL_CALLS[name]
    data = make()
    with _ComputeOps() as mode:
        h2d_impl.async_tensor_h2d(data, device="cpu", dtype=dtype)
    assert [op for op in mode.ops if op[1] > GRAIN] == []
