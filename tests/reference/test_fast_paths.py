"""The host-preparation fast paths of h2d_impl/_host.py agree with the general route they skip.

``_flat_list`` (flat lists and tuples of one exact type among int, float and bool) and the
one-test branch of ``_numpy_to_tensor`` (writeable, native, 0-d or unit-stride 1-d arrays of
a dtype ``torch.from_numpy`` views as is) exist only for speed (lists of 1-16
elements were 1.3-1.4x vLLM's host time on the H200). Each must give exactly what the
general route gives: the same dtype, shape and bytes, and the same inferred dtype. Here
both routes run on the same input, the fast one as shipped and the general one with the
fast path switched off; broken variants of each fast path must be caught.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from h2d_contracts.h2d_impl import _host

_INT64 = st.integers(-(2**63), 2**63 - 1)
_FLAT = st.one_of(
    st.lists(st.one_of(_INT64, st.integers(-(2**64), 2**64)), min_size=0, max_size=20),
    st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=20),
    st.lists(st.booleans(), max_size=20),
    st.lists(st.one_of(st.booleans(), st.integers(-5, 5), st.floats(-1e3, 1e3)), max_size=6),
).flatmap(lambda xs: st.sampled_from([xs, tuple(xs)]))


def _route(data, *, general: bool, infer_dtype: bool = True):
    """``as_source_tensor(data)`` by the shipped route or the general one: (source, own dtype, warnings) or the exception."""
    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if general:
            mp.setattr(_host, "_flat_list", lambda data: None)
            mp.setattr(_host, "_VIEWABLE_CHARS", frozenset())
        try:
            source, own = _host.as_source_tensor(data, infer_dtype=infer_dtype)
        except (TypeError, ValueError) as exc:
            return exc
    return source, own, [str(w.message) for w in caught]


def _same(fast, general) -> None:
    if isinstance(general, Exception) or isinstance(fast, Exception):
        assert type(fast) is type(general), (fast, general)
        return
    (a, own_a, warned_a), (b, own_b, warned_b) = fast, general
    assert own_a == own_b and a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
    assert a.numpy().tobytes() == b.numpy().tobytes() and warned_a == warned_b


def _both(data, infer_dtype: bool = True) -> None:
    _same(_route(data, general=False, infer_dtype=infer_dtype), _route(data, general=True, infer_dtype=infer_dtype))


@pytest.mark.parametrize("default", [torch.float32, torch.float64])
@settings(max_examples=200)
@given(data=_FLAT)
def test_flat_lists_match_the_general_route(data, default):
    before = torch.get_default_dtype()
    torch.set_default_dtype(default)
    try:
        _both(data)
        _both(data, infer_dtype=False)
    finally:
        torch.set_default_dtype(before)


_DTYPES = st.sampled_from(
    [
        np.bool_,
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.longlong,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
        ">i4",
        ">f8",
        "<i2",
    ]
).map(np.dtype)


@st.composite
def _arrays(draw):
    arr = draw(hnp.arrays(_DTYPES, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=5)))
    how = draw(st.sampled_from(["as is", "reversed", "strided", "read-only", "0-d"]))
    if how == "reversed" and arr.ndim:
        arr = arr[::-1]
    elif how == "strided" and arr.ndim:
        arr = arr[::2]
    elif how == "read-only":
        arr.flags.writeable = False
    elif how == "0-d":
        arr = arr.reshape(-1)[:1].reshape(()) if arr.size else arr
    return arr


@settings(max_examples=300)
@given(arr=_arrays())
def test_numpy_arrays_match_the_general_route(arr):
    _both(arr)


def test_the_fast_paths_are_taken():
    """The common inputs do take the fast paths (else the comparisons above compare the general route with itself)."""
    assert (
        _host._flat_list([1, 2, 3]) is not None
        and _host._flat_list((0.5,)) is not None
        and _host._flat_list([True]) is not None
    )
    assert _host._flat_list([1, 2.5]) is None and _host._flat_list([2**63]) is None and _host._flat_list([]) is None
    assert np.dtype(np.int32).char in _host._VIEWABLE_CHARS


def _numpy_variant(check_stride: bool):
    """The numpy fast path with or without its stride test. (Without the writeable test it differs only by torch's
    read-only warning, which torch gives once per process: not a difference a test can rely on.)"""
    general_route = _host._numpy_to_tensor

    def variant(arr):
        if (
            arr.dtype.char in _host._VIEWABLE_CHARS
            and arr.dtype.isnative
            and arr.flags.writeable
            and arr.ndim <= 1
            and (not check_stride or arr.ndim == 0 or arr.strides[0] == arr.itemsize)
        ):
            return torch.from_numpy(arr)
        return general_route(arr)

    return variant


BROKEN = {
    # name: (patch, input, infer_dtype, default dtype)
    "int as int32": (lambda mp: mp.setitem(_host._FLAT_KINDS, int, (np.dtype(np.int32), torch.int64)), [1], True, None),
    "float as float32": (
        lambda mp: mp.setitem(_host._FLAT_KINDS, float, (np.dtype(np.float32), None)),
        [0.1],
        True,
        None,
    ),
    "bool inferred int64": (
        lambda mp: mp.setitem(_host._FLAT_KINDS, bool, (np.dtype(np.bool_), torch.int64)),
        [True],
        True,
        None,
    ),
    "float inferred float64": (
        lambda mp: mp.setitem(_host._FLAT_KINDS, float, (np.dtype(np.float64), torch.float64)),
        [0.5],
        True,
        None,
    ),
    "float inferred float32 always": (
        lambda mp: mp.setitem(_host._FLAT_KINDS, float, (np.dtype(np.float64), torch.float32)),
        [0.5],
        True,
        torch.float64,
    ),
    "own dtype with infer_dtype=False": (
        lambda mp: mp.setattr(_host, "as_source_tensor", _own_dtype_always(_host.as_source_tensor)),
        [0.5],
        False,
        None,
    ),
    "numpy without the stride test": (
        lambda mp: mp.setattr(_host, "_numpy_to_tensor", _numpy_variant(False)),
        np.arange(3, dtype=np.int32)[::-1],
        True,
        None,
    ),
}


def _own_dtype_always(original):
    """A variant whose flat-list path returns the inferred dtype second even with infer_dtype=False."""

    def variant(data, *, infer_dtype=True):
        flat = _host._flat_list(data)
        if flat is not None:
            return flat
        return original(data, infer_dtype=infer_dtype)

    return variant


@pytest.mark.parametrize("broken", list(BROKEN))
def test_broken_fast_paths_are_caught(broken, monkeypatch):
    """Each broken fast path differs from the general route on an input of the kind the properties above draw."""
    patch, data, infer_dtype, default = BROKEN[broken]
    patch(monkeypatch)
    before = torch.get_default_dtype()
    if default is not None:
        torch.set_default_dtype(default)
    try:
        with pytest.raises(AssertionError):
            _both(data, infer_dtype=infer_dtype)
    finally:
        torch.set_default_dtype(before)
