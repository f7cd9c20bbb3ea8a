"""Regression corpus: fixed inputs with a defined, documented outcome, replayed by every run.

Each case is one concrete call whose outcome the reference documents (``h2d_impl``
docstrings, README "What the reference promises"); the test asserts exactly that
outcome against the selected target (``--h2d-impl``), on the host and, where CUDA
exists, on the primary GPU, through the kit's own check functions plus a literal
expected value, so a case does not depend on the oracle alone.

Corpus (issue 4, item 4) and the outcome each case pins down:

=====================================================  =====================================================
input                                                  documented outcome
=====================================================  =====================================================
``np.arange(6)[::-1]`` (negative stride)                ``[5, 4, 3, 2, 1, 0]``, int64; also into an int32 ``out``
0-d numpy array ``np.array(3.5, float32)``              shape ``()``, float32, 3.5; 0-d int array -> int64
``[]``                                                  shape ``(0,)``, the default dtype (float32)
``[]`` with ``dtype=torch.int32``                       shape ``(0,)``, int32; into an empty int16 ``out``: int16
``[True, False, True]``                                 torch.bool ``[True, False, True]``
``[1.5, -2.7]``, ``dtype=torch.int32`` / ``int64``      truncated toward zero: ``[1, -2]``
``[1.5, -2.7]`` / ``[-0.5]``, ``dtype=torch.uint8``     ValueError (the value itself is outside [0, 255])
``[2**40]`` into an int32 ``out``, no dtype             ValueError, ``out`` untouched (dtype comes from ``out``)
``float('nan')`` / ``[nan]`` into an integer dtype      ValueError; into an integer ``out``: ``out`` untouched
transposed pinned tensor                                staged: values of the transposed view, input unchanged;
                                                        on CUDA no pageable DMA (skipped where pinning is unavailable)
transposed unpinned tensor                              values of the transposed view, no aliasing
``out`` of shape ``(4,)`` given ``[7]`` / ``7``         ValueError (never broadcast), ``out`` untouched
``CpuGpuBuffer(5, dtype=, device=).copy_to_gpu(0)``     returns ``.gpu[:0]`` (shape ``(0,)``), copies nothing;
                                                        same for ``copy_to_cpu(0)`` and a ``(5, 3)`` buffer
=====================================================  =====================================================

Found by the second new-user trial (end of this module): an ``out`` made under
``torch.inference_mode()`` (ValueError, untouched), an ``out`` of an unsupported dtype
(TypeError), disjoint slices of one buffer as ``data``/``out`` (valid), a structured
array's field (valid), lists mixing numpy scalars with Python numbers (``torch.tensor``'s
dtype), numpy-integer ``n`` (valid) and bool/1-element-tensor ``n`` (TypeError).

Falsifying examples found by fuzz campaigns (``tools/fuzz.sh``) are added at the end
of this module, one test each, with the campaign that found them (reports/fuzz/):

- 16 NaNs (a 4x4 list) into a bfloat16 ``out`` (campaign 20261130T124443Z-reference):
  ``out`` is all NaN and nothing around it is written; the exact call replayed through
  ``check_out_written_exactly`` (a contract false positive on NaN payloads when found).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from h2d_contracts.contracts import errors
from h2d_contracts.contracts import h2d as ch
from h2d_contracts.contracts.buffer import check_copy_to_cpu, check_copy_to_gpu, make_buffer
from h2d_contracts.contracts.oracle import assert_same_values
from h2d_contracts.strategies import pinning_available


def _kwargs(device: torch.device, **extra) -> dict:
    return {"device": device, **extra}


def _applicable(target, device: torch.device) -> None:
    """Skip as "not applicable" (never pass) when the target cannot target ``device``."""
    if not target.supports_device(device):
        target.require("cuda", "regression")


def _expect(result: torch.Tensor, values, dtype: torch.dtype, call: str) -> None:
    """The literal documented outcome: same shape, dtype and bits as ``torch.tensor(values, dtype)``."""
    want = torch.tensor(values, dtype=dtype)
    assert_same_values(result, want, contract="values", call=call)


def _out(shape, dtype, device, fill) -> torch.Tensor:
    return torch.full(shape, fill, dtype=dtype, device=device)


# --------------------------------------------------------------------------- numpy layouts


def test_numpy_negative_stride(target, device):
    """``np.arange(6)[::-1]``: torch cannot view negative strides; the reference copies them (documented: "any strides")."""
    _applicable(target, device)
    data = np.arange(6)[::-1]
    assert data.strides[0] < 0
    result = ch.check_values(target, data, _kwargs(device))
    _expect(result, [5, 4, 3, 2, 1, 0], torch.int64, f"async_tensor_h2d(np.arange(6)[::-1], device='{device}')")
    ch.check_no_alias(target, np.arange(6)[::-1], _kwargs(device))


def test_numpy_negative_stride_into_out(target, device):
    _applicable(target, device)
    target.require("out", "regression")
    out = _out((6,), torch.int32, device, -1)
    ch.check_out_written_exactly(target, np.arange(6)[::-1], {"out": out})
    _expect(out, [5, 4, 3, 2, 1, 0], torch.int32, f"async_tensor_h2d(np.arange(6)[::-1], out=int32 (6,))  # out on {device}")


def test_numpy_zero_dim(target, device):
    """A 0-d array is a scalar of shape ``()`` keeping the array's dtype."""
    _applicable(target, device)
    result = ch.check_values(target, np.array(3.5, dtype=np.float32), _kwargs(device))
    _expect(result, 3.5, torch.float32, f"async_tensor_h2d(np.array(3.5, dtype=np.float32), device='{device}')")
    result = ch.check_values(target, np.array(7), _kwargs(device))
    _expect(result, 7, torch.int64, f"async_tensor_h2d(np.array(7), device='{device}')")


def test_numpy_zero_dim_into_out(target, device):
    _applicable(target, device)
    target.require("out", "regression")
    out = _out((), torch.float64, device, -1.0)
    ch.check_out_written_exactly(target, np.array(3.5, dtype=np.float32), {"out": out})
    _expect(out, 3.5, torch.float64, f"async_tensor_h2d(np.array(3.5, dtype=np.float32), out=float64 ())  # out on {device}")


# --------------------------------------------------------------------------- lists


def test_empty_list_without_dtype(target, device):
    """``[]`` follows ``torch.tensor([])``: shape ``(0,)`` and the default dtype (float32 unless changed)."""
    _applicable(target, device)
    result = ch.check_values(target, [], _kwargs(device))
    assert torch.get_default_dtype() == torch.float32  # the suite never changes it
    _expect(result, [], torch.float32, f"async_tensor_h2d([], device='{device}')")
    ch.check_dtype_resolution(target, [], _kwargs(device))


def test_empty_list_with_dtype(target, device):
    _applicable(target, device)
    result = ch.check_values(target, [], _kwargs(device, dtype=torch.int32))
    _expect(result, [], torch.int32, f"async_tensor_h2d([], dtype=torch.int32, device='{device}')")


def test_empty_list_into_empty_out(target, device):
    _applicable(target, device)
    target.require("out", "regression")
    out = torch.empty((0,), dtype=torch.int16, device=device)
    ch.check_out_written_exactly(target, [], {"out": out})
    _expect(out, [], torch.int16, f"async_tensor_h2d([], out=int16 (0,))  # out on {device}")


def test_list_of_bools(target, device):
    """A list of Python bools infers torch.bool (torch.tensor's rule), not int64."""
    _applicable(target, device)
    result = ch.check_values(target, [True, False, True], _kwargs(device))
    _expect(result, [True, False, True], torch.bool, f"async_tensor_h2d([True, False, True], device='{device}')")


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=str)
def test_floats_truncated_into_integer_dtype(target, device, dtype):
    """In-range floats into an integer dtype are truncated toward zero: ``[1.5, -2.7] -> [1, -2]``."""
    _applicable(target, device)
    result = ch.check_values(target, [1.5, -2.7], _kwargs(device, dtype=dtype))
    _expect(result, [1, -2], dtype, f"async_tensor_h2d([1.5, -2.7], dtype={dtype}, device='{device}')")


@pytest.mark.parametrize("data", [[1.5, -2.7], [-0.5]], ids=["1.5,-2.7", "-0.5"])
def test_negative_float_into_uint8_rejected(target, device, data):
    """A float must itself lie in the integer dtype's range: ``-2.7`` and ``-0.5`` into uint8 raise ValueError.

    (``-0.5`` would truncate to 0, but the reference follows ``torch.tensor``'s rule for
    Python floats and rejects it, README: "-0.5 into uint8".)
    """
    _applicable(target, device)
    ch.check_bad_input(target, data, _kwargs(device, dtype=torch.uint8), ValueError, f"{data} into uint8")


def test_int_beyond_int32_into_int32_out(target, device):
    """``[2**40]`` into an int32 ``out`` with no dtype: the dtype comes from ``out``, the value does not fit: ValueError, out untouched."""
    _applicable(target, device)
    target.require("out", "regression")
    out = _out((1,), torch.int32, device, -7)
    ch.check_bad_input(target, [2**40], {"out": out}, ValueError, "[2**40] into int32 out")
    _expect(out, [-7], torch.int32, "out after the rejected call")
    # The largest value that fits is written (the check is not off by one).
    ch.check_out_written_exactly(target, [2**31 - 1], {"out": out})
    _expect(out, [2**31 - 1], torch.int32, f"async_tensor_h2d([2**31 - 1], out=int32 (1,))  # out on {device}")


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8], ids=str)
@pytest.mark.parametrize("shape", ["scalar", "list"])
def test_nan_into_integer_dtype(target, device, dtype, shape):
    """NaN has no integer value: ValueError (torch's ``Tensor.to`` would give INT_MIN garbage)."""
    _applicable(target, device)
    data = float("nan") if shape == "scalar" else [float("nan")]
    ch.check_bad_input(target, data, _kwargs(device, dtype=dtype), ValueError, f"nan into {dtype}")


@pytest.mark.parametrize("dtype", [None, torch.int32], ids=["own-dtype", "int32"])
def test_nan_scalar_warns_nothing(target, dtype):
    """``float('nan')`` alone: a float32 NaN (own dtype), or ValueError for an integer dtype, with no warning on the way.

    (Emitted numpy's "All-NaN axis encountered" RuntimeWarning before 3635f2d.)
    """
    import warnings

    kwargs = {"device": torch.device("cpu")} if dtype is None else {"device": torch.device("cpu"), "dtype": dtype}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if dtype is None:
            result = target.async_tensor_h2d(float("nan"), **kwargs)
            assert result.dtype == torch.float32 and tuple(result.shape) == () and torch.isnan(result).item()
        else:
            with pytest.raises(ValueError):
                target.async_tensor_h2d(float("nan"), **kwargs)


def test_nan_into_integer_out(target, device):
    _applicable(target, device)
    target.require("out", "regression")
    out = _out((2,), torch.int64, device, 3)
    ch.check_bad_input(target, [1.0, float("nan")], {"out": out}, ValueError, "nan into int64 out")


# --------------------------------------------------------------------------- transposed tensors


def _transposed(pinned: bool) -> torch.Tensor:
    base = torch.arange(6, dtype=torch.float32)
    if pinned:
        base = base.pin_memory()
    t = base.view(2, 3).t()
    assert not t.is_contiguous() and t.stride() == (1, 3)
    return t


_TRANSPOSED = [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


@pytest.mark.skipif(
    not pinning_available(),
    reason="pinned memory is unavailable on this machine (CPU-only torch build or no usable CUDA: "
    "pin_memory=True raises RuntimeError); this case runs where pinning exists (the H200 GPU run)",
)
def test_transposed_pinned_tensor(target, device):
    """A transposed (non-contiguous) pinned view is staged, never DMA'd as is: right values, input unchanged.

    On CUDA also the staging contract: no "Pageable -> Device" memcpy (torch would make
    a pageable contiguous copy of a strided pinned view).
    """
    _applicable(target, device)
    data = _transposed(pinned=True)
    assert data.is_pinned()
    result = ch.check_values(target, data, _kwargs(device))
    _expect(result, _TRANSPOSED, torch.float32, f"async_tensor_h2d(pinned arange(6).view(2, 3).t(), device='{device}')")
    assert torch.equal(data, torch.tensor(_TRANSPOSED)), "the call wrote into its input"
    if device.type == "cuda":
        from h2d_contracts.contracts.gpu import check_staging

        check_staging(target, _transposed(pinned=True), _kwargs(device))
    ch.check_no_alias(target, _transposed(pinned=True), _kwargs(device))


def test_transposed_unpinned_tensor(target, device):
    _applicable(target, device)
    result = ch.check_values(target, _transposed(pinned=False), _kwargs(device))
    _expect(result, _TRANSPOSED, torch.float32, f"async_tensor_h2d(arange(6).view(2, 3).t(), device='{device}')")
    assert result.is_contiguous()
    ch.check_no_alias(target, _transposed(pinned=False), _kwargs(device))


def test_transposed_unpinned_tensor_into_out(target, device):
    _applicable(target, device)
    target.require("out", "regression")
    out = _out((3, 2), torch.float64, device, -1.0)
    ch.check_out_written_exactly(target, _transposed(pinned=False), {"out": out})
    _expect(out, _TRANSPOSED, torch.float64, f"async_tensor_h2d(arange(6).view(2, 3).t(), out=float64 (3, 2))  # out on {device}")


# --------------------------------------------------------------------------- out shape


@pytest.mark.parametrize("data", [[7], 7, np.array([7])], ids=["list", "scalar", "ndarray"])
def test_one_element_into_out_of_four(target, device, data):
    """One element into an ``out`` of shape ``(4,)``: ValueError, never broadcast, ``out`` untouched."""
    _applicable(target, device)
    target.require("out", "regression")
    out = _out((4,), torch.int64, device, 9)
    ch.check_out_shape_rejected(target, data, {"out": out})
    _expect(out, [9, 9, 9, 9], torch.int64, "out after the rejected call")
    assert errors.SHAPE_MISMATCH is ValueError


# --------------------------------------------------------------------------- CpuGpuBuffer


@pytest.mark.parametrize("size", [(5,), (5, 3)], ids=["5", "5x3"])
@pytest.mark.parametrize("dtype", [torch.int32, torch.float32], ids=str)
def test_buffer_copy_zero_rows(target, device, size, dtype):
    """``CpuGpuBuffer(5, dtype=..., device=...).copy_to_gpu(0)``: returns ``.gpu[:0]``, copies nothing; ``copy_to_cpu(0)`` mirrors it."""
    _applicable(target, device)
    target.require("buffer", "regression")
    spec = {"size": size, "dtype": dtype, "pin_memory": None, "with_numpy": True}
    buf = make_buffer(target, spec, device)
    values = torch.arange(int(np.prod(size)), dtype=dtype).reshape(size) + 1
    check_copy_to_gpu(target, buf, 0, values, f"CpuGpuBuffer{size}")
    check_copy_to_cpu(target, buf, 0, values, f"CpuGpuBuffer{size}")
    # Explicit snapshots (cloned): contracts.buffer's "rows >= n untouched" compares
    # against a numpy view of the live memory when the tensor is on the host, so it
    # cannot see a write there; this case must not depend on it.
    buf.cpu.copy_(values)
    buf.gpu.copy_(-values)
    ch.synchronize()
    gpu_before, cpu_before = buf.gpu.cpu().clone(), buf.cpu.clone()
    view = buf.copy_to_gpu(0)
    ch.synchronize()
    assert tuple(view.shape) == (0, *size[1:]) and view.dtype == dtype, f"copy_to_gpu(0) returned {tuple(view.shape)} {view.dtype}"
    assert view.device.type == device.type
    assert torch.equal(buf.gpu.cpu(), gpu_before), "copy_to_gpu(0) wrote rows of .gpu"
    view = buf.copy_to_cpu(0)
    ch.synchronize()
    assert tuple(view.shape) == (0, *size[1:]) and view.device.type == "cpu"
    assert torch.equal(buf.cpu, cpu_before), "copy_to_cpu(0) wrote rows of .cpu"


def test_buffer_requires_dtype(target, device):
    """``dtype`` is a required keyword (docstring): ``CpuGpuBuffer(5, device=...)`` raises TypeError."""
    _applicable(target, device)
    target.require("buffer", "regression")
    with pytest.raises(TypeError):
        target.buffer_cls(5, device=device)


# --------------------------------------------------------------------------- found by fuzzing
# Each campaign's record is in reports/fuzz/ (tools/fuzz.sh).

#: Campaign 20261130T124443Z-reference, prop_out_written[cpu], round 8 (shrunk by Hypothesis):
#: 16 NaNs (a 4x4 list) into a bfloat16 ``out``. torch's vectorised float64 -> bfloat16
#: conversion (16 elements and more) writes NaN as 0xFFFF, the scalar path of the oracle's
#: ``torch.tensor(list, dtype=torch.bfloat16)`` as 0x7FC0: both are NaN.
_FUZZ_NAN_4x4 = [[float("nan")] * 4 for _ in range(4)]


def test_fuzz_nan_list_into_bfloat16_out(target, device):
    """Documented outcome: ``out`` itself is returned, every element is NaN (the values contract compares
    NaN as NaN, whatever its payload), and nothing around ``out`` is written."""
    _applicable(target, device)
    target.require("out", "regression")
    backing = torch.full((24,), 77.0, dtype=torch.bfloat16, device=device)
    out = backing[4:20].view(4, 4)
    result = target.async_tensor_h2d(_FUZZ_NAN_4x4, out=out)
    ch.synchronize()
    assert result is out
    assert torch.isnan(out.float()).all(), out
    assert_same_values(out, torch.full((4, 4), float("nan"), dtype=torch.bfloat16), contract="out", call=f"async_tensor_h2d(_FUZZ_NAN_4x4, out=torch.full((24,), 77.0, dtype=torch.bfloat16, device='{device}')[4:20].view(4, 4))")
    around = torch.cat([backing[:4], backing[20:]]).cpu()
    assert torch.equal(around, torch.full((8,), 77.0, dtype=torch.bfloat16)), "bytes around out were written"


def test_fuzz_nan_list_into_bfloat16_out_contract_replay(target):
    """The exact falsifying call of the campaign, replayed through the contract that flagged it.

    It failed when found: ``check_out_written_exactly`` compared ``out``'s own bytes with
    the oracle's, NaN payloads included (0xFFFF from torch's vectorised conversion vs
    0x7FC0), and reported them as "bytes outside out's own elements changed". Passes since
    the reference builds list sources differently (9931f95) and the contract compares only
    the bytes around ``out`` (fix proposed to the lead).
    """
    target.require("out", "regression")
    out = torch.full((4, 4), 77.0, dtype=torch.bfloat16)
    ch.check_out_written_exactly(target, _FUZZ_NAN_4x4, {"out": out})


# --------------------------------------------------------------------------- second new-user trial (2026-11-30)
# Reference bugs found by a fresh helper trying the kit as a new user; each failed before
# the commit that added it (the reference raised a bare RuntimeError after writing out,
# refused valid calls, or inferred another dtype than torch.tensor).


def test_out_made_under_inference_mode(target, device):
    """An ``out`` made under ``torch.inference_mode()`` and written outside it: ValueError, ``out`` untouched;
    written inside inference mode it is an ordinary call."""
    _applicable(target, device)
    target.require("out", "regression")
    with torch.inference_mode():
        out = torch.full((3,), 5.0, device=device)
    ch.check_bad_input(target, [1.0, 2.0, 3.0], {"out": out}, ValueError, "inference-mode out")
    with torch.inference_mode():
        result = target.async_tensor_h2d([1.0, 2.0, 3.0], out=out)
        ch.synchronize()
        assert result is out and out.cpu().tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("make_out", ["complex32", "quint8"])
def test_out_of_an_unsupported_dtype(target, make_out):
    """``out`` of a dtype the reference does not copy (as ``dtype=`` would be): TypeError naming it, nothing written."""
    target.require("out", "regression")
    if make_out == "complex32":
        import warnings

        with warnings.catch_warnings():  # torch's "ComplexHalf support is experimental" (once per process)
            warnings.filterwarnings("ignore", message="ComplexHalf support is experimental", category=UserWarning)
            out = torch.zeros(2, dtype=torch.complex32)
    else:
        import warnings

        with warnings.catch_warnings():  # torch 2.13 deprecates quantized tensor creation (older ones do not warn)
            warnings.filterwarnings("ignore", message="torch.quantize_per_tensor", category=UserWarning)
            out = torch.quantize_per_tensor(torch.zeros(2), 0.1, 0, torch.quint8)
    before = out.int_repr().clone() if out.is_quantized else out.view(torch.int32).clone()
    with pytest.raises(TypeError, match=r"out\.dtype"):
        target.async_tensor_h2d([1.0, 2.0], out=out)
    after = out.int_repr() if out.is_quantized else out.view(torch.int32)
    assert torch.equal(before, after)


def test_disjoint_slices_of_one_buffer(target, device):
    """``data`` and ``out`` in one host storage but disjoint bytes (``b[:4]`` into ``b[4:]``): a valid copy."""
    _applicable(target, device)
    target.require("out", "regression")
    if device.type != "cpu":
        pytest.skip("data and out share one host storage only when the target is the host")
    b = torch.arange(8.0)
    result = target.async_tensor_h2d(b[:4], out=b[4:])
    assert result.data_ptr() == b[4:].data_ptr()
    assert b.tolist() == [0.0, 1.0, 2.0, 3.0, 0.0, 1.0, 2.0, 3.0]


def test_structured_array_field(target, device):
    """A field of a structured array (a stride that is not a multiple of the item size): values copied."""
    _applicable(target, device)
    s = np.zeros(3, dtype=[("a", "i1"), ("b", "<f4")])
    s["b"] = [1.5, -2.0, 3.25]
    result = target.async_tensor_h2d(s["b"], device=device)
    ch.synchronize()
    assert result.dtype == torch.float32 and result.cpu().tolist() == [1.5, -2.0, 3.25]


@pytest.mark.parametrize(
    "data",
    [
        [np.float32(1.5), 2.5],
        [1, np.float16(2)],
        [True, np.int8(3)],
        [torch.tensor(1.5, dtype=torch.float16), 2.0],
    ],
    ids=["np.float32+float", "int+np.float16", "bool+np.int8", "f16-tensor+float"],
)
def test_mixed_numpy_scalar_lists_follow_torch_tensor(target, device, data):
    """Lists mixing numpy scalars / 0-d tensors with Python numbers: the dtype ``torch.tensor(data)`` infers."""
    _applicable(target, device)
    expected = torch.tensor(data)
    result = target.async_tensor_h2d(data, device=device)
    ch.synchronize()
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert torch.equal(result.cpu(), expected)


@pytest.mark.parametrize("n", [np.int64(2), np.int32(2)], ids=["np.int64", "np.int32"])
def test_buffer_numpy_integer_rows(target, device, n):
    """``copy_to_gpu(n)`` with a numpy integer (engines compute ``num_reqs`` with numpy): rows ``[0, n)`` copied."""
    _applicable(target, device)
    target.require("buffer", "regression")
    buf = make_buffer(target, {"size": (4,), "dtype": torch.int32, "pin_memory": False, "with_numpy": True}, device)
    buf.cpu.copy_(torch.tensor([1, 2, 3, 4], dtype=torch.int32))
    view = buf.copy_to_gpu(n)
    ch.synchronize()
    assert view.cpu().tolist() == [1, 2] and buf.gpu.cpu().tolist() == [1, 2, 0, 0]


@pytest.mark.parametrize("n", ["tensor(True)", "tensor([3])", "np.bool_(True)"])
def test_buffer_rows_that_are_not_ints(target, device, n):
    """A bool or a 1-element tensor is not a row count: TypeError, nothing copied."""
    _applicable(target, device)
    target.require("buffer", "regression")
    value = {"tensor(True)": torch.tensor(True), "tensor([3])": torch.tensor([3]), "np.bool_(True)": np.bool_(True)}[n]
    buf = make_buffer(target, {"size": (4,), "dtype": torch.int32, "pin_memory": False, "with_numpy": True}, device)
    buf.cpu.copy_(torch.tensor([1, 2, 3, 4], dtype=torch.int32))
    with pytest.raises(TypeError):
        buf.copy_to_gpu(value)
    ch.synchronize()
    assert buf.gpu.cpu().tolist() == [0, 0, 0, 0]


# --------------------------------------------------------------------------- issue 9: measured from outside


def test_tensor_into_int32_out_out_of_range(target, device):
    """``torch.tensor([2**40])`` into an int32 ``out``: ValueError, ``out`` untouched (a tensor gets the same value checks as a list)."""
    _applicable(target, device)
    target.require("out", "regression")
    out = torch.full((1,), 77, dtype=torch.int32, device=device)
    ch.check_bad_input(target, torch.tensor([2**40]), {"out": out}, ValueError, "tensor 2**40 into an int32 out")
    assert out.cpu().tolist() == [77]


def test_inner_dims_differ_from_out(target, device):
    """``[[1], [2]]`` into an ``out`` of shape (2, 3): ValueError (copy_ would broadcast the column), ``out`` untouched."""
    _applicable(target, device)
    target.require("out", "regression")
    out = torch.full((2, 3), 77, dtype=torch.int64, device=device)
    ch.check_out_shape_rejected(target, [[1], [2]], {"out": out})
    assert out.cpu().tolist() == [[77, 77, 77], [77, 77, 77]]


def test_buffer_pin_request_without_pinning(target, device):
    """``CpuGpuBuffer(..., pin_memory=True)``: ``.cpu`` pinned where pinning is available, pageable (no error) where it is not."""
    _applicable(target, device)
    target.require("buffer", "regression")
    buf = make_buffer(target, {"size": (4, 2), "dtype": torch.int32, "pin_memory": True, "with_numpy": True}, device)
    assert buf.cpu.is_pinned() == pinning_available()
    buf.np[:2] = 5
    check_copy_to_gpu(target, buf, 2, torch.arange(8, dtype=torch.int32).view(4, 2), "CpuGpuBuffer(4, 2, pin_memory=True)")


def test_uint64_out_top_bit(target, device):
    """``[2**63 + 5]`` into a uint64 ``out``: written exactly (the top bit is data, not a sign)."""
    _applicable(target, device)
    target.require("out", "regression")
    if not hasattr(torch, "uint64"):
        pytest.skip("this torch has no uint64")
    out = torch.zeros(1, dtype=torch.uint64, device=device)
    ch.check_out_written_exactly(target, [2**63 + 5], {"out": out})
    assert out.cpu().tolist() == [2**63 + 5]


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(1, 6, dtype=">i4"),
        lambda: [3, 1, 4, 1, 5],
        lambda: [[1, 2], [3, 4], [5, 6]],
    ],
    ids=[">i4-array", "int-list", "nested-list"],
)
def test_caller_input_untouched(target, device, make):
    """The caller's ``>i4`` array and int lists are bit-identical after the call (no in-place byte swap, no padding)."""
    _applicable(target, device)
    data, copy = make(), make()
    ch.check_input_untouched(target, data, {"device": device})
    assert type(data) is type(copy) and np.array_equal(np.asarray(data), np.asarray(copy)) and np.asarray(data).dtype == np.asarray(copy).dtype


@pytest.mark.parametrize(
    "make, want",
    [
        (lambda: np.flip(np.array([7], np.int32)), torch.tensor([7], dtype=torch.int32)),
        (lambda: np.arange(12.0).reshape(1, 3, 4)[::-1], torch.arange(12.0, dtype=torch.float64).reshape(1, 3, 4)),
        (lambda: np.arange(6, dtype=np.int16).reshape(2, 1, 3)[:, ::-1], torch.arange(6, dtype=torch.int16).reshape(2, 1, 3)),
    ],
    ids=["flip-1-element", "reversed-size-1-dim-3d", "reversed-inner-size-1-dim"],
)
def test_negative_stride_on_size_one_dims(target, device, make, want):
    """Negative strides on size-1 dimensions (``np.ascontiguousarray`` keeps them): values copied, also into ``out``.

    Failed on the reference before the fix (ValueError from torch.from_numpy: "At least one stride ... is negative").
    """
    _applicable(target, device)
    arr = make()
    assert any(s < 0 for s in arr.strides)
    result = ch.check_values(target, arr, {"device": device})
    assert torch.equal(result.cpu(), want)
    if "out" in target.capabilities:
        out = torch.zeros(tuple(want.shape), dtype=torch.float64, device=device)
        ch.check_out_written_exactly(target, make(), {"out": out})


@pytest.mark.parametrize(
    "make, want_dtype",
    [
        (lambda: [np.array([1 + 2**-40, 0.1])], torch.float64),
        (lambda: [np.array([1, 2], np.int32), np.array([3, 4], np.int32)], torch.int32),
        (lambda: [np.array([1.5, 2.0], np.float16)], torch.float16),
        (lambda: [np.array([1, 2], np.int32), [3, 4]], torch.int64),
        (lambda: (np.array([True, False]),), torch.bool),
    ],
    ids=["float64-array", "int32-arrays", "float16-array", "int32-array+list", "tuple-of-bool-array"],
)
def test_list_of_arrays_follows_torch_tensor(target, device, make, want_dtype):
    """A list whose elements are ndarrays: the dtype ``torch.tensor(data)`` infers (the arrays' own), values exact.

    Failed on the reference before the fix: the list was inferred like one of Python
    numbers (float64 arrays came back float32 with changed values, int32 as int64).
    """
    _applicable(target, device)
    data = make()
    result = ch.check_values(target, data, {"device": device})
    assert result.dtype == want_dtype, (result.dtype, want_dtype)
    assert np.array_equal(result.cpu().numpy(), np.asarray(make()))
