"""Edge cases of the reference's documented conversion rules, written to kill mutation survivors.

Each test pins a boundary the everyday properties reach only by luck (reports/mutation/
lists the mutants each one kills): the exact integer range limits for float and
integer sources (``h2d_impl._host.check_representable``), non-native byte order,
float8 sources into integer dtypes, and ``CpuGpuBuffer``'s constructor defaults and
devices under a default-device context. They run against the selected target
(``--h2d-impl``) through the kit's checks, like the contracts.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from h2d_contracts.contracts import h2d as ch
from h2d_contracts.contracts import repro_call
from h2d_contracts.contracts.oracle import assert_same_values

CPU = torch.device("cpu")


def _ok(target, data, dtype, want):
    result = ch.check_values(target, data, {"device": CPU, "dtype": dtype})
    assert_same_values(result, torch.tensor(want, dtype=dtype), contract="values", call=repro_call(data, {"device": CPU, "dtype": dtype}))


def _rejected(target, data, dtype):
    kwargs = {"device": CPU} if dtype is None else {"device": CPU, "dtype": dtype}
    ch.check_bad_input(target, data, kwargs, ValueError, f"{data!r} into {dtype}")


# --------------------------------------------------------------------------- float -> integer limits

# (dtype, accepted values (exactly at the limits), rejected values (just outside))
FLOAT_LIMITS = [
    (torch.int8, [-128.0, 127.0, 126.0, -127.0], [127.5, 128.0, -128.5, -129.0]),
    (torch.uint8, [0.0, 255.0, 254.9], [255.5, 256.0, -0.5, -1.0]),
    (torch.int32, [-2147483648.0, 2147483647.0], [2147483647.5, 2147483648.0, -2147483649.0]),
    # float(int64 max) rounds up to 2**63, which does not fit: the third clause of the check.
    (torch.int64, [-(2.0**63), 2.0**62, 9223372036854774784.0], [2.0**63, 2.0**64, -(2.0**64)]),
]


@pytest.mark.contract("values", "bad-input")
@pytest.mark.parametrize("dtype, accepted, rejected", FLOAT_LIMITS, ids=[str(d[0]) for d in FLOAT_LIMITS])
def test_float_limits_into_integer_dtypes(target, dtype, accepted, rejected):
    """Documented rule: a finite float must itself lie in ``[min, max]`` of the integer dtype; accepted ones truncate toward zero."""
    _ok(target, accepted, dtype, [int(v) for v in accepted])
    for v in rejected:
        _rejected(target, [v], dtype)
        _rejected(target, np.array([0.0, v]), dtype)


# --------------------------------------------------------------------------- integer -> narrower integer limits

INT_LIMITS = [
    (np.int16, torch.int8, [-128, 127], [-129, 128]),
    (np.uint8, torch.int8, [0, 127], [128, 255]),
    (np.int8, torch.uint8, [0, 127], [-1, -128]),
    (np.int64, torch.int32, [-(2**31), 2**31 - 1], [-(2**31) - 1, 2**31]),
    (np.int32, torch.int16, [-(2**15), 2**15 - 1], [-(2**15) - 1, 2**15]),
]


@pytest.mark.contract("values", "bad-input")
@pytest.mark.parametrize("src, dtype, accepted, rejected", INT_LIMITS, ids=[f"{np.dtype(s[0])}->{s[1]}" for s in INT_LIMITS])
def test_integer_limits_into_narrower_dtypes(target, src, dtype, accepted, rejected):
    """Documented rule: integer -> narrower integer keeps every value in the target's range, else ValueError."""
    _ok(target, np.array(accepted, dtype=src), dtype, accepted)
    _ok(target, torch.tensor(accepted, dtype=torch.from_numpy(np.zeros(0, src)).dtype), dtype, accepted)
    for v in rejected:
        _rejected(target, np.array([accepted[0], v], dtype=src), dtype)


@pytest.mark.contract("values", "bad-input")
@pytest.mark.parametrize("src, dtype", [(np.uint16, torch.uint8), (np.uint32, torch.int32), (np.uint64, torch.int64)], ids=["u16->u8", "u32->i32", "u64->i64"])
def test_unsigned_sources_into_narrower_dtypes(target, src, dtype):
    """uint16/32/64 are supported dtypes (h2d_impl.SUPPORTED_DTYPES): in-range values convert, out-of-range ones raise ValueError.

    (Raised NotImplementedError before 9931f95: torch has no CPU comparison kernel for them.)
    """
    _ok(target, np.array([0, 7], dtype=src), dtype, [0, 7])
    _rejected(target, np.array([np.iinfo(src).max], dtype=src), dtype)


@pytest.mark.contract("values", "bad-input")
def test_list_ints_between_int64_and_uint64_max(target):
    """``[2**63]``: out of range for the list's own dtype (int64): ValueError; with ``dtype=torch.uint64`` the value fits.

    (Raised TypeError before 9931f95: numpy builds a 'ulonglong' array, which torch.from_numpy refuses.)
    """
    _rejected(target, [2**63], None)
    if hasattr(torch, "uint64"):
        result = target.async_tensor_h2d([2**63], device=CPU, dtype=torch.uint64)
        assert result.dtype == torch.uint64 and result.tolist() == [2**63]


# --------------------------------------------------------------------------- byte order, float8


@pytest.mark.parametrize("dt", [">i4", ">f8", ">u2", "<c8" if np.little_endian else ">c8", ">c16"])
def test_non_native_byte_order(target, dt):
    """Non-native byte order (documented: any layout): values keep their meaning and the array's dtype (native order)."""
    arr = np.array([0, 1, 3, 200], dtype=dt)
    result = ch.check_values(target, arr, {"device": CPU})
    want = torch.from_numpy(arr.astype(arr.dtype.newbyteorder("=")))
    assert_same_values(result, want, contract="values", call=repro_call(arr, {"device": CPU}))
    out = torch.full((4,), -1, dtype=torch.int64)
    ch.check_out_written_exactly(target, arr.real if arr.dtype.kind == "c" else arr, {"out": out})


@pytest.mark.contract("values", "bad-input")
def test_float8_into_integer_dtype(target):
    """float8 sources into integer dtypes are range-checked like any float (torch has no isfinite for float8)."""
    f8 = getattr(torch, "float8_e4m3fn")
    data = torch.tensor([1.0, -2.0, 448.0]).to(f8)
    _ok(target, data, torch.int16, [1, -2, 448])
    ch.check_bad_input(target, data, {"device": CPU, "dtype": torch.int8}, ValueError, "448 (float8) into int8")
    nan = torch.tensor([float("nan")]).to(f8)
    ch.check_bad_input(target, nan, {"device": CPU, "dtype": torch.int32}, ValueError, "float8 nan into int32")


# --------------------------------------------------------------------------- CpuGpuBuffer constructor


@pytest.mark.contract("buffer")
def test_buffer_defaults_and_index_sizes(target):
    """``with_numpy`` defaults to True (``.np`` aliases ``.cpu``); sizes accept any integer with ``__index__`` (numpy ints)."""
    target.require("buffer", "buffer")
    buf = target.buffer_cls(np.int64(3), np.int32(2), dtype=torch.int32, device=CPU)
    assert tuple(buf.cpu.shape) == (3, 2) and tuple(buf.gpu.shape) == (3, 2)
    assert isinstance(buf.np, np.ndarray) and np.shares_memory(buf.np, buf.cpu.numpy())
    # pin_memory defaults to "pinned where pinning is available" (only observable where it is).
    assert buf.cpu.is_pinned() == target.pin_memory_available(), f".cpu pinned={buf.cpu.is_pinned()} with the default pin_memory"
    for bad in (True, 2.0, "3", None):
        with pytest.raises(TypeError):
            target.buffer_cls(bad, dtype=torch.int32, device=CPU)
    for bad in (np.float32, "int32", torch.qint8):
        with pytest.raises(TypeError):
            target.buffer_cls(2, dtype=bad, device=CPU, with_numpy=False)


@pytest.mark.contract("buffer")
def test_buffer_devices_under_a_default_device_context(target):
    """``.cpu`` is host memory and ``.gpu`` is on ``device`` even inside ``with torch.device(...)``.

    vLLM builds models and their buffers under default-device contexts; a buffer that
    relied on the default device would land on the context's device.
    """
    target.require("buffer", "buffer")
    with torch.device("meta"):
        buf = target.buffer_cls(4, 2, dtype=torch.float32, device=CPU)
    assert buf.cpu.device.type == "cpu", f".cpu on {buf.cpu.device}"
    assert buf.gpu.device.type == "cpu", f".gpu on {buf.gpu.device}"
    assert not buf.gpu.any() and not buf.cpu.any()


@pytest.mark.contract("values")
@pytest.mark.parametrize("data", [[1, 2], np.arange(3), torch.arange(4).view(2, 2).t()], ids=["list", "ndarray", "tensor"])
def test_h2d_under_a_default_device_context(target, data):
    """``async_tensor_h2d(data, device="cpu")`` inside ``with torch.device("meta")`` still returns a host tensor.

    (Landed on the context's device before 31612b5: staging buffers were allocated without device="cpu".)
    """
    with torch.device("meta"):
        result = target.async_tensor_h2d(data, device=CPU)
    assert result.device.type == "cpu", f"result on {result.device}"
    assert_same_values(result, torch.as_tensor(np.asarray(data)).contiguous(), contract="values", call=f"with torch.device('meta'): {repro_call(data, {'device': CPU})}")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: on a CPU-only machine every CUDA target is already rejected as unavailable")
def test_cpu_variant_rejects_cuda_targets():
    """The CPU-platform variant only targets host memory: ValueError for a CUDA device or a CUDA ``out``."""
    import h2d_contracts.h2d_impl as H

    with pytest.raises(ValueError, match=r"^the CPU-platform variant only targets host memory, got device cuda:\d+$"):
        H.async_tensor_h2d_cpu([1], device="cuda")
    out = torch.zeros(1, dtype=torch.int64, device="cuda")
    with pytest.raises(ValueError, match="only targets host memory"):
        H.async_tensor_h2d_cpu([1], out=out)
    assert out.item() == 0


# --------------------------------------------------------------------------- scalars, complex, default dtype


@pytest.mark.parametrize("value", [np.float16(2.5), np.int8(-3), np.bool_(True), np.uint32(7), np.complex64(1 - 2j)], ids=lambda v: type(v).__name__)
def test_numpy_scalars(target, value):
    """A numpy scalar (documented: "a Python or numpy scalar (S == ())") keeps its numpy dtype."""
    result = ch.check_values(target, value, {"device": CPU})
    assert tuple(result.shape) == () and result.dtype == torch.from_numpy(np.asarray(value)).dtype


@pytest.mark.parametrize("default", [torch.float32, torch.float64], ids=str)
def test_list_inference_follows_the_default_dtype(target, default):
    """Lists infer like torch.tensor: float -> the default dtype, complex -> the matching complex dtype."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(default)
    try:
        complex_dtype = torch.complex128 if default == torch.float64 else torch.complex64
        for data, want in (([1.5, -2.0], default), ([1 + 2j, 3.0], complex_dtype), ([True, 2], torch.int64), ([[False]], torch.bool)):
            result = ch.check_values(target, data, {"device": CPU})
            assert result.dtype == want, f"async_tensor_h2d({data!r}) under default dtype {default}: {result.dtype}, expected {want}"
    finally:
        torch.set_default_dtype(previous)


def test_out_with_a_stride0_dimension_of_size_one(target):
    """A stride-0 dimension of size 1 does not overlap anything: such an ``out`` is accepted and written."""
    target.require("out", "out")
    out = torch.full((5,), -1, dtype=torch.int32).as_strided((1, 3), (0, 1))
    ch.check_out_written_exactly(target, [[1, 2, 3]], {"out": out})
    assert out.tolist() == [[1, 2, 3]]


def test_read_only_array_warns_nothing_in_a_fresh_process():
    """Read-only arrays are accepted without torch's "not writable" UserWarning (the reference only reads them).

    torch warns once per process, so this runs in a fresh interpreter with warnings as
    errors (as ``pytest -W error`` or ``python -W error`` would). Reference-specific.
    """
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import numpy as np\nfrom h2d_contracts import h2d_impl as H\n"
        "a = np.arange(3, dtype=np.int32); a.setflags(write=False)\n"
        "r = H.async_tensor_h2d(a, device='cpu')\n"
        "assert r.tolist() == [0, 1, 2] and str(r.dtype) == 'torch.int32', r\n"
        "print('ok')\n"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-W", "error", "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_out_is_data_is_a_no_op(target):
    """``out`` that *is* ``data`` (the same tensor object) is allowed: returned unchanged.

    A different tensor sharing ``data``'s memory is rejected (ValueError, tests/test_h2d_impl_errors.py).
    """
    target.require("out", "out")
    t = torch.arange(4.0)
    result = target.async_tensor_h2d(t, out=t)
    assert result is t and t.tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("order", ["data-below-out", "data-above-out"])
def test_adjacent_memory_is_not_shared(target, order):
    """``data`` and ``out`` in adjacent, non-overlapping halves of one numpy buffer: accepted (they share no byte)."""
    target.require("out", "out")
    base = np.arange(8, dtype=np.float32)
    low, high = torch.from_numpy(base[:4]), torch.from_numpy(base[4:])
    data, out = (low, high) if order == "data-below-out" else (high, low)
    want = data.clone()
    ch.check_out_written_exactly(target, data, {"out": out})
    assert torch.equal(out, want)


@pytest.mark.parametrize(
    "data, dtype",
    [([np.int8(3), np.int8(-4)], torch.int8), ([[np.float16(1.5)]], torch.float16), ([np.bool_(True)], torch.bool), ([np.float32(2.5)], torch.float32)],
    ids=["int8", "nested-float16", "bool", "float32"],
)
def test_list_of_numpy_scalars_keeps_their_dtype(target, data, dtype):
    """A list of numpy scalars infers like ``torch.tensor``: the scalars' own dtype (not int64/float32)."""
    result = ch.check_values(target, data, {"device": CPU})
    assert result.dtype == dtype == torch.tensor(data).dtype


def test_small_ints_beside_huge_floats_are_fine(target):
    """The int64-range scan of float lists only rejects *integers* of magnitude >= 2**63: ``[200, 1e19]`` is a float list."""
    result = ch.check_values(target, [200, 1e19], {"device": CPU})
    assert result.dtype == torch.get_default_dtype() and torch.equal(result, torch.tensor([200.0, 1e19]))
