"""Edge cases of the documented conversion rules: boundaries the everyday properties reach only by luck.

Each test pins a boundary through the kit's checks (so every failure has a contract id and
a reproduction): the exact integer range limits for float and integer sources, non-native
byte order, float8 sources into integer dtypes, ``CpuGpuBuffer``'s constructor defaults,
default-device contexts, numpy scalars, list inference under another default dtype, and
``out`` that is ``data`` or its neighbour in one buffer. Written to kill mutation survivors
of the reference (docs/mutants.md); they run against the selected target.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from h2d_contracts.contracts.bad_input import check_bad_input
from h2d_contracts.contracts.buffer import check_buffer_constructed, check_buffer_init, check_buffer_rejected
from h2d_contracts.contracts.out import check_out_equal, check_out_written_exactly
from h2d_contracts.contracts.values import check_values, check_values_equal

CPU = torch.device("cpu")


def _ok(target, data, dtype, want):
    check_values_equal(target, data, {"device": CPU, "dtype": dtype}, torch.tensor(want, dtype=dtype))


def _rejected(target, data, dtype):
    kwargs = {"device": CPU} if dtype is None else {"device": CPU, "dtype": dtype}
    check_bad_input(target, data, kwargs, ValueError, f"{data!r} into {dtype}")


# --------------------------------------------------------------------------- float -> integer limits

# (dtype, accepted values (exactly at the limits), rejected values (just outside))
FLOAT_LIMITS = [
    (torch.int8, [-128.0, 127.0, 126.0, -127.0, 127.5, -128.5], [128.0, -129.0, 128.5]),
    (torch.uint8, [0.0, 255.0, 254.9, 255.5, -0.5], [256.0, -1.0, -1.5]),
    (torch.int32, [-2147483648.0, 2147483647.0, 2147483647.5], [2147483648.0, -2147483649.0]),
    # float(int64 max) rounds up to 2**63, which does not fit: the third clause of the check.
    (torch.int64, [-(2.0**63), 2.0**62, 9223372036854774784.0], [2.0**63, 2.0**64, -(2.0**64)]),
]


@pytest.mark.parametrize("dtype, accepted, rejected", FLOAT_LIMITS, ids=[str(d[0]) for d in FLOAT_LIMITS])
def test_float_limits_into_integer_dtypes(target, dtype, accepted, rejected):
    """Documented rule: a finite float is truncated toward zero and must then lie in ``[min, max]`` of the integer dtype."""
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


@pytest.mark.parametrize(
    "src, dtype, accepted, rejected", INT_LIMITS, ids=[f"{np.dtype(s[0])}->{s[1]}" for s in INT_LIMITS]
)
def test_integer_limits_into_narrower_dtypes(target, src, dtype, accepted, rejected):
    """Documented rule: integer -> narrower integer keeps every value in the target's range, else ValueError."""
    _ok(target, np.array(accepted, dtype=src), dtype, accepted)
    _ok(target, torch.tensor(accepted, dtype=torch.from_numpy(np.zeros(0, src)).dtype), dtype, accepted)
    for v in rejected:
        _rejected(target, np.array([accepted[0], v], dtype=src), dtype)


@pytest.mark.parametrize(
    "src, dtype",
    [(np.uint16, torch.uint8), (np.uint32, torch.int32), (np.uint64, torch.int64)],
    ids=["u16->u8", "u32->i32", "u64->i64"],
)
def test_unsigned_sources_into_narrower_dtypes(target, src, dtype):
    """uint16/32/64 are supported dtypes (h2d_impl.SUPPORTED_DTYPES): in-range values convert, out-of-range ones raise ValueError.

    (An earlier version raised NotImplementedError: torch has no CPU comparison kernel for them.)
    """
    _ok(target, np.array([0, 7], dtype=src), dtype, [0, 7])
    _rejected(target, np.array([np.iinfo(src).max], dtype=src), dtype)


def test_list_ints_between_int64_and_uint64_max(target):
    """``[2**63]``: out of range for the list's own dtype (int64): ValueError; with ``dtype=torch.uint64`` the value fits."""
    _rejected(target, [2**63], None)
    if hasattr(torch, "uint64"):
        check_values_equal(
            target, [2**63], {"device": CPU, "dtype": torch.uint64}, torch.tensor([2**63], dtype=torch.uint64)
        )


# --------------------------------------------------------------------------- byte order, float8


@pytest.mark.parametrize("dt", [">i4", ">f8", ">u2", "<c8" if np.little_endian else ">c8", ">c16"])
def test_non_native_byte_order(target, dt):
    """Non-native byte order (documented: any layout): values keep their meaning and the array's dtype (native order)."""
    arr = np.array([0, 1, 3, 200], dtype=dt)
    check_values_equal(target, arr, {"device": CPU}, torch.from_numpy(arr.astype(arr.dtype.newbyteorder("="))))
    if "out" in target.capabilities:
        check_out_written_exactly(
            target, arr.real if arr.dtype.kind == "c" else arr, {"out": torch.full((4,), -1, dtype=torch.int64)}
        )


def test_float8_into_integer_dtype(target):
    """float8 sources into integer dtypes are range-checked like any float (torch has no isfinite for float8)."""
    f8 = torch.float8_e4m3fn
    data = torch.tensor([1.0, -2.0, 448.0]).to(f8)
    _ok(target, data, torch.int16, [1, -2, 448])
    check_bad_input(target, data, {"device": CPU, "dtype": torch.int8}, ValueError, "448 (float8) into int8")
    check_bad_input(
        target,
        torch.tensor([float("nan")]).to(f8),
        {"device": CPU, "dtype": torch.int32},
        ValueError,
        "float8 nan into int32",
    )


# --------------------------------------------------------------------------- CpuGpuBuffer constructor


def test_buffer_defaults_and_index_sizes(target):
    """``with_numpy`` defaults to True (``.np`` aliases ``.cpu``) and may be a numpy bool; sizes accept any integer with ``__index__`` (numpy ints); bad sizes and dtypes are refused."""
    target.require("buffer", "buffer")
    check_buffer_constructed(
        target, (np.int64(3), np.int32(2)), {"dtype": torch.int32, "device": CPU, "pin_memory": False}
    )
    for flag in (np.True_, np.False_):  # a numpy bool as with_numpy (held-out round r43 tested `is True`)
        check_buffer_constructed(
            target, (3,), {"dtype": torch.int32, "device": CPU, "pin_memory": False, "with_numpy": flag}
        )
    for bad in (True, 2.0, "3", None):
        check_buffer_rejected(
            target, (bad,), {"dtype": torch.int32, "device": CPU, "pin_memory": False}, TypeError, f"size {bad!r}"
        )
    for bad in (np.float32, "int32", torch.qint8):
        check_buffer_rejected(
            target,
            (2,),
            {"dtype": bad, "device": CPU, "pin_memory": False, "with_numpy": False},
            TypeError,
            f"dtype {bad!r}",
        )


def test_buffer_devices_under_a_default_device_context(target):
    """``.cpu`` is host memory and ``.gpu`` is on ``device`` even inside ``with torch.device(...)``.

    vLLM builds models and their buffers under default-device contexts; a buffer that
    relied on the default device would land on the context's device.
    """
    target.require("buffer", "buffer")
    with torch.device("meta"):
        check_buffer_init(
            target, {"size": (4, 2), "dtype": torch.float32, "pin_memory": False, "with_numpy": True}, CPU
        )


@pytest.mark.parametrize(
    "data", [[1, 2], np.arange(3), torch.arange(4).view(2, 2).t()], ids=["list", "ndarray", "tensor"]
)
def test_h2d_under_a_default_device_context(target, data):
    """``async_tensor_h2d(data, device="cpu")`` inside ``with torch.device("meta")`` still returns a host tensor with the data's values."""
    with torch.device("meta"):
        check_values(target, data, {"device": CPU})


# --------------------------------------------------------------------------- scalars, complex, default dtype


@pytest.mark.parametrize(
    "value",
    [np.float16(2.5), np.int8(-3), np.bool_(True), np.uint32(7), np.complex64(1 - 2j)],
    ids=lambda v: type(v).__name__,
)
def test_numpy_scalars(target, value):
    """A numpy scalar (documented: "a Python or numpy scalar (S == ())") keeps its numpy dtype, shape ``()``."""
    check_values_equal(target, value, {"device": CPU}, torch.from_numpy(np.asarray(value).copy()))


@pytest.mark.parametrize("default", [torch.float32, torch.float64], ids=str)
def test_list_inference_follows_the_default_dtype(target, default):
    """Lists infer like torch.tensor: float -> the default dtype, complex -> the matching complex dtype."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(default)
    try:
        complex_dtype = torch.complex128 if default == torch.float64 else torch.complex64
        for data, want in (
            ([1.5, -2.0], default),
            ([1 + 2j, 3.0], complex_dtype),
            ([True, 2], torch.int64),
            ([[False]], torch.bool),
        ):
            check_values_equal(target, data, {"device": CPU}, torch.tensor(data, dtype=want))
    finally:
        torch.set_default_dtype(previous)


def test_out_with_a_stride0_dimension_of_size_one(target):
    """A stride-0 dimension of size 1 does not overlap anything: such an ``out`` is accepted and written."""
    target.require("out", "out")
    out = torch.full((5,), -1, dtype=torch.int32).as_strided((1, 3), (0, 1))
    check_out_equal(target, [[1, 2, 3]], {"out": out}, torch.tensor([[1, 2, 3]], dtype=torch.int32))


def test_out_is_data_is_a_no_op(target):
    """``out`` that *is* ``data`` (the same tensor object) is allowed: returned unchanged (another tensor sharing its memory is refused)."""
    target.require("out", "out")
    t = torch.arange(4.0)
    check_out_equal(target, t, {"out": t}, torch.arange(4.0))


@pytest.mark.parametrize("order", ["data-below-out", "data-above-out"])
def test_adjacent_memory_is_not_shared(target, order):
    """``data`` and ``out`` in adjacent, non-overlapping halves of one numpy buffer: accepted (they share no byte)."""
    target.require("out", "out")
    base = np.arange(8, dtype=np.float32)
    low, high = torch.from_numpy(base[:4]), torch.from_numpy(base[4:])
    data, out = (low, high) if order == "data-below-out" else (high, low)
    check_out_equal(target, data, {"out": out}, data.clone())


@pytest.mark.parametrize(
    "data, dtype",
    [
        ([np.int8(3), np.int8(-4)], torch.int8),
        ([[np.float16(1.5)]], torch.float16),
        ([np.bool_(True)], torch.bool),
        ([np.float32(2.5)], torch.float32),
    ],
    ids=["int8", "nested-float16", "bool", "float32"],
)
def test_list_of_numpy_scalars_keeps_their_dtype(target, data, dtype):
    """A list of numpy scalars infers like ``torch.tensor``: the scalars' own dtype (not int64/float32)."""
    check_values_equal(target, data, {"device": CPU}, torch.tensor(data, dtype=dtype))


def test_small_ints_beside_huge_floats_are_fine(target):
    """The int64-range scan of float lists only rejects *integers* of magnitude >= 2**63: ``[200, 1e19]`` is a float list."""
    check_values_equal(target, [200, 1e19], {"device": CPU}, torch.tensor([200.0, 1e19]))
