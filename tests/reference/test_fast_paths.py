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

import threading
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from torch.overrides import TorchFunctionMode

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


# --- h2d._fast_path: the zero-copy DMA of a pinned tensor and the small staged call, without the general layers ---


class _Moved(str):
    """The test double's stand-in for a device tensor: ``"moved"``, and ``"moved.contiguous()"`` once made contiguous."""

    def contiguous(self) -> _Moved:
        return _Moved(f"{self}.contiguous()")


class _PinnedWithoutCuda(TorchFunctionMode):
    """Simulated pinned memory on a CPU-only build (``is_pinned()`` True for the storages marked here, each call
    counted), and every ``Tensor.to`` aimed at a CUDA device recorded instead of run (there is no CUDA to run it): the
    tensor moved (a clone: a staging slice is overwritten by later calls), its arguments and whether it was the data."""

    def __init__(self) -> None:
        super().__init__()
        self.pinned: set[int] = set()
        self.pinned_checks = 0
        self.moves: list[tuple[torch.Tensor, tuple[Any, ...], dict[str, Any], int]] = []

    def pin(self, t: torch.Tensor) -> torch.Tensor:
        self.pinned.add(t.untyped_storage().data_ptr())
        return t

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        name = getattr(func, "__name__", "")
        if name == "is_pinned":
            self.pinned_checks += 1
            t = args[0]
            return t.numel() > 0 and t.untyped_storage().data_ptr() in self.pinned
        if name == "to" and any(isinstance(a, torch.device) and a.type == "cuda" for a in args[1:]):
            self.moves.append((args[0].clone(), args[1:], kwargs, id(args[0])))  # inside its handler a mode is off
            return _Moved("moved")
        return func(*args, **kwargs)


_CUDA0 = torch.device("cuda", 0)


@pytest.fixture
def resolved_cuda0(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``"cuda:0"``, ``torch.device("cuda", 0)`` and ``0`` resolved to cuda:0 (as after a first call on a GPU), and
    the small pool a host pool (no CUDA stream to record on): the fast path's decisions run on a CPU-only machine."""
    from h2d_contracts.h2d_impl import _staging
    from h2d_contracts.h2d_impl import h2d as R

    for spelling in ("cuda:0", _CUDA0, 0):
        monkeypatch.setitem(R._RESOLVED, (type(spelling), spelling), _CUDA0)
    monkeypatch.setitem(R._RESOLVED, (str, "cpu"), torch.device("cpu"))
    pools: dict[tuple[int, bool], Any] = {}

    def host_pool(device: torch.device, chunk_bytes: int, pin: bool, *, small: bool) -> Any:
        assert device == _CUDA0, device
        key = (chunk_bytes, small)
        if key not in pools:
            pools[key] = _staging.StagingPool(torch.device("cpu"), chunk_bytes, pin=False, small=small)
        return pools[key]

    monkeypatch.setattr(_staging, "pool_for", host_pool)
    return R


def _pinned_cases(mode: _PinnedWithoutCuda) -> list[tuple[str, torch.Tensor, Any, bool]]:
    """(name, data, device, whether the fast path's zero-copy DMA takes it)."""
    base = mode.pin(torch.arange(12, dtype=torch.int32).reshape(3, 4))
    channels_last = mode.pin(torch.arange(24.0).reshape(1, 2, 3, 4).contiguous(memory_format=torch.channels_last))
    grad = mode.pin(torch.ones(4))
    grad.requires_grad_(True)
    cplx = mode.pin(torch.ones(4, dtype=torch.complex64))
    return [
        ("pinned contiguous, 'cuda:0'", base, "cuda:0", True),
        ("pinned contiguous, torch.device('cuda', 0)", base, _CUDA0, True),
        ("pinned contiguous, 0", base, 0, True),
        ("pinned row slice (contiguous view)", base[1:], "cuda:0", True),
        ("pinned transposed", base.t(), "cuda:0", True),
        ("pinned channels-last", channels_last, "cuda:0", True),
        ("pinned column slice", base[:, :2], "cuda:0", False),
        ("pinned every other row (a gap)", base[::2], "cuda:0", False),
        ("pinned, requires grad", grad, "cuda:0", False),
        ("pinned conj view", cplx.conj(), "cuda:0", False),
        ("pinned neg view", torch._neg_view(base), "cuda:0", False),
        ("pinned, bare 'cuda' (never cached)", base, "cuda", False),
        ("pinned, device True", base, True, False),
        ("pinned, device 'cpu'", base, "cpu", False),
        ("pinned, an unresolved spelling", base, "cuda:7", False),
    ]


def test_fast_path_zero_copy_takes_exactly_what_the_zero_copy_branch_takes(resolved_cuda0: Any) -> None:
    """A pinned plain tensor, contiguous or dense in a permutation, aimed at an already resolved CUDA spelling is DMA'd
    from its own memory with the same ``.to(target, non_blocking=True)`` as the zero-copy branch of ``_to_device``, and
    made contiguous on the device exactly where that branch makes it so (a permutation); the general path's own
    result for each such input is the same call. Every other pinned input (views with gaps, requiring grad, conj/neg
    views, uncached or bad devices) goes to the general path (None), unstaged."""
    R = resolved_cuda0
    with _PinnedWithoutCuda() as mode:
        for name, data, device, taken in _pinned_cases(mode):
            mode.moves.clear()
            got = R._fast_path(data, device, None, R._staging.SMALL_MAX_BYTES)
            if not taken:
                assert got is None and not mode.moves, name
                continue
            ((moved, args, kwargs, moved_id),) = mode.moves
            assert moved_id == id(data) and args == (_CUDA0,) and kwargs == {"non_blocking": True}, name
            assert R._zero_copy_ok(data, data, data.dtype) and R._dense(data), name
            assert got == ("moved" if data.is_contiguous() else "moved.contiguous()"), name
            mode.moves.clear()
            source, dtype, target = R._prepare(data, _CUDA0, None, None, cpu_only=False)
            general = R._to_device(data, source, dtype, target, None, pin=True)
            ((_, g_args, g_kwargs, g_id),) = mode.moves
            assert (general, g_args, g_kwargs, g_id) == (got, args, kwargs, moved_id), name


_TARGET_DTYPES = [None, torch.int32, torch.int64, torch.float32, torch.float64, torch.bool, torch.uint8, torch.int8]
_ARRAYS = hnp.arrays(
    st.sampled_from([np.int32, np.int64, np.float32, np.float64, np.bool_, np.uint8, np.dtype(">i4")]),
    hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
)
_HOST_DATA = st.one_of(
    _FLAT,
    _ARRAYS,
    _ARRAYS.map(lambda a: a[::-1] if a.ndim else a),
    _ARRAYS.map(lambda a: a.T),
    _ARRAYS.filter(lambda a: a.dtype.isnative).map(lambda a: torch.from_numpy(a.copy())),
    _ARRAYS.filter(lambda a: a.dtype.isnative and a.ndim == 2).map(lambda a: torch.from_numpy(a.copy()).t()),
    st.just(np.array(["a"])),
    st.just(np.array([object()])),
)


def _outcome(call: Any, mode: _PinnedWithoutCuda) -> Any:
    """The staged tensor's dtype, shape and bytes plus the move's arguments, the exception, or None (not taken)."""
    mode.moves.clear()
    try:
        got = call()
    except (TypeError, ValueError) as exc:
        return type(exc), str(exc)
    if got is None:
        return None
    ((moved, args, kwargs, _),) = mode.moves
    # flat before numpy, which holds at most 32 (numpy 1) or 64 dimensions
    return moved.dtype, tuple(moved.shape), moved.contiguous().reshape(-1).numpy().tobytes(), args, kwargs


# the fixture's patches hold for every example alike (resolved spellings, one host pool shared as the real one is)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=_HOST_DATA,
    dtype=st.sampled_from(_TARGET_DTYPES),
    device=st.sampled_from(["cuda:0", _CUDA0, 0]),
    small=st.sampled_from([256 << 10, 0]),
)
def test_fast_path_stages_and_raises_as_the_general_path(
    resolved_cuda0: Any, data: Any, dtype: Any, device: Any, small: int
) -> None:
    """Every input the fast path takes is staged as the general path (``_prepare`` then ``_to_device``) stages it:
    the same dtype, shape and bytes, moved by the same ``.to(cuda:0, non_blocking=True, copy=True)``; every input it
    refuses is refused with the same exception type and message. (None, not taken, is always allowed: the general
    path then runs.) ``small`` 0 sends every non-empty input to the pooled branch, both paths alike."""
    _agree(resolved_cuda0, data, device, dtype, small)


def _agree(R: Any, data: Any, device: Any, dtype: Any, small: int) -> None:
    """The fast path's outcome for one input is None or the general path's (the property above, for one input)."""
    with warnings.catch_warnings(), _PinnedWithoutCuda() as mode:
        warnings.simplefilter("ignore", UserWarning)  # read-only arrays: torch's warning, the same on both routes

        def general() -> Any:
            source, dtype_, target = R._prepare(data, device, dtype, None, cpu_only=False)
            return R._to_device(data, source, dtype_, target, None, pin=False, small_max=small)

        fast = _outcome(lambda: R._fast_path(data, device, dtype, small), mode)
        if fast is not None:
            assert fast == _outcome(general, mode), (data, dtype)


def test_int_lists_are_written_into_the_staging_slice(resolved_cuda0: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A flat list or tuple of Python ints into int64 (its own dtype) or int32 is written straight into the small
    pool's slice (``_stage_int_list``: no ``_flat_list`` tensor first) where numpy 2 refuses out-of-range ints; bools,
    floats, mixed lists, empty ones, other dtypes, ints out of the dtype's range and the pooled branch (``small`` 0)
    take the route through ``_flat_list``. (Without this the property above could compare one route with itself.)"""
    R = resolved_cuda0
    if not R._ASSIGN_REFUSES_OVERFLOW:
        pytest.skip("numpy 1: the int-list branch is off (numpy 1 wraps an out-of-range int in an assignment)")
    flat_calls: list[Any] = []
    real_flat = R._flat_list
    monkeypatch.setattr(R, "_flat_list", lambda data: flat_calls.append(data) or real_flat(data))
    with _PinnedWithoutCuda() as mode:
        for data, dtype, small, written in (
            ([1, 2, 3], None, 256 << 10, True),
            ((7,), torch.int32, 256 << 10, True),
            ([-(2**63), 2**63 - 1], torch.int64, 256 << 10, True),
            ([2**31], torch.int32, 256 << 10, False),
            ([2**63], None, 256 << 10, False),
            ([True, False], None, 256 << 10, False),
            ([1, 2.5], None, 256 << 10, False),
            ([1, 2], torch.float32, 256 << 10, False),
            ([1, 2], None, 0, False),
            ([], None, 256 << 10, False),
        ):
            flat_calls.clear()
            mode.moves.clear()
            try:
                R._fast_path(data, "cuda:0", dtype, small)
            except ValueError:
                assert not written, data  # the general route's own error ([2**31] into int32)
            assert (not flat_calls) is written, (data, dtype, small)
            if written:
                ((moved, args, kwargs, _),) = mode.moves
                assert moved.dtype == (dtype or torch.int64) and moved.tolist() == list(data), data


def _staging_used_by_failed_calls(R: Any) -> list[int]:
    """Bytes of the small pool's open chunk used by each of three calls after a first one: two that the int-list branch
    starts to write and numpy refuses (an int out of int32's range: then the general route's ValueError), and a float
    list, which the branch declines and the float route stages."""
    used = []
    with _PinnedWithoutCuda():
        R._async_h2d([1, 2], "cuda:0", None, None)
        pool = R._staging.pool_for(_CUDA0, R._staging.SMALL_CHUNK_BYTES, False, small=True)
        for data, dtype in (([2**31], torch.int32), (list(range(100)) + [-(2**31) - 1], torch.int32), ([0.5], None)):
            chunk, before = pool.open, pool.open_off
            try:
                R._async_h2d(data, "cuda:0", dtype, None)
            except ValueError:
                pass
            assert pool.open is chunk
            used.append(pool.open_off - before)
    return used


def test_a_failed_int_list_write_leaves_the_staging_as_it_found_it(resolved_cuda0: Any) -> None:
    """A list the int-list branch starts to write and numpy refuses uses no staging: the calls that fail use none of
    the open chunk, and a declined list staged by another route uses one slice (64 bytes). Without this, failing calls
    behind a busy stream each pinned a new 1 MiB chunk until the pool's cap made the next one wait (outside review)."""
    R = resolved_cuda0
    if not R._ASSIGN_REFUSES_OVERFLOW:
        pytest.skip("numpy 1: the int-list branch is off")
    assert _staging_used_by_failed_calls(R) == [0, 0, R._staging.ALIGN]


def test_a_failed_write_that_keeps_its_slice_is_caught(resolved_cuda0: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above fails on a branch that does not give its slice back (``unreserve_last`` a no-op)."""
    R = resolved_cuda0
    if not R._ASSIGN_REFUSES_OVERFLOW:
        pytest.skip("numpy 1: the int-list branch is off")
    monkeypatch.setattr(R._staging.StagingPool, "unreserve_last", lambda self, count, dtype: None)
    assert _staging_used_by_failed_calls(R) != [0, 0, R._staging.ALIGN]


class _SignallingLock:
    """A pool's lock that says when a thread starts waiting for it (``waiting``), so a test can act at that moment."""

    def __init__(self, lock: Any) -> None:
        self.lock, self.waiting = lock, threading.Event()

    def __enter__(self) -> Any:
        self.waiting.set()
        return self.lock.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self.lock.__exit__(*exc)


def _staged_after_a_change_under_the_lock(R: Any) -> Any:
    """A call on ``[1, 5, 3]`` in another thread waits for the small pool's lock, held here; meanwhile the list's
    second element becomes 2.7, then the lock is released: the dtype and values the call staged."""
    with _PinnedWithoutCuda():
        R._async_h2d([0], "cuda:0", None, None)  # the small pool exists
    pool = R._staging.pool_for(_CUDA0, R._staging.SMALL_CHUNK_BYTES, False, small=True)
    real = pool.lock
    pool.lock = _SignallingLock(real)
    data, got = [1, 5, 3], []

    def call() -> None:
        with _PinnedWithoutCuda() as mode:
            R._async_h2d(data, "cuda:0", None, None)
            ((moved, _, _, _),) = mode.moves
            got.append((moved.dtype, moved.tolist()))

    try:
        with real:
            worker = threading.Thread(target=call)
            worker.start()
            assert pool.lock.waiting.wait(10)
            data[1] = 2.7
        worker.join(10)
    finally:
        pool.lock = real
    return got[0]


def test_a_list_changed_while_the_call_waits_for_the_pool_is_staged_as_changed(resolved_cuda0: Any) -> None:
    """The int-list branch tests the element types under the pool's lock, right before it reads the values: a list
    another thread changes while the call waits for the lock (a caller's race, outside the contract) is staged as it
    is when read, here by the float route (float32), never as ints checked before the change (outside review)."""
    R = resolved_cuda0
    dtype, values = _staged_after_a_change_under_the_lock(R)
    assert dtype == torch.float32 and values == pytest.approx([1.0, 2.7, 3.0])


def _types_before_the_lock(data, dtype, target, small_max):
    """A broken ``_stage_int_list`` that tests the element types before it waits for the pool's lock (the first
    version's order)."""
    count = len(data)
    kinds = set(map(type, data))
    if not count or len(kinds) != 1 or int not in kinds:
        return None
    pool = _staging_module().pool_for(target, _staging_module().SMALL_CHUNK_BYTES, False, small=True)
    with pool.lock:
        view = pool.small_array(count, dtype)
        try:
            view[:] = data
        except (OverflowError, TypeError, ValueError):
            pool.unreserve_last(count, dtype)
            return None
        return torch.from_numpy(view).to(target, non_blocking=True, copy=True)


def test_types_tested_before_the_lock_are_caught(resolved_cuda0: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above fails on a branch that tests the element types before it waits for the lock."""
    R = resolved_cuda0
    monkeypatch.setattr(R, "_stage_int_list", _types_before_the_lock)
    dtype, values = _staged_after_a_change_under_the_lock(R)
    assert (dtype, values) == (torch.int64, [1, 2, 3])  # 2.7 read into an int64 slice: truncated, silently


def _wrapping_int_list(data, dtype, target, small_max):
    """A broken ``_stage_int_list``: the ints through an int64 array and ``astype`` (which wraps out of range)."""
    pool = _staging_module().pool_for(target, _staging_module().SMALL_CHUNK_BYTES, False, small=True)
    with pool.lock:
        view = pool.small_array(len(data), dtype)
        view[:] = np.array(data, dtype=np.int64).astype(view.dtype)
        return torch.from_numpy(view).to(target, non_blocking=True, copy=True)


def _staging_module() -> Any:
    from h2d_contracts.h2d_impl import _staging

    return _staging


def _bools_as_ints(original):
    """A broken ``_stage_int_list`` that takes bools for ints (``isinstance`` instead of the exact type)."""

    def variant(data, dtype, target, small_max):
        if data and all(isinstance(x, int) for x in data):
            data = [int(x) for x in data]
            pool = _staging_module().pool_for(target, _staging_module().SMALL_CHUNK_BYTES, False, small=True)
            with pool.lock:
                view = pool.small_array(len(data), dtype)
                view[:] = data
                return torch.from_numpy(view).to(target, non_blocking=True, copy=True)
        return original(data, dtype, target, small_max)

    return variant


@pytest.mark.parametrize(
    "broken, data, dtype",
    [
        ("wraps out-of-range ints", [2**31 + 5], torch.int32),
        ("takes bools for ints", [True, False], None),
    ],
)
def test_broken_int_list_branches_are_caught(
    resolved_cuda0: Any, monkeypatch: pytest.MonkeyPatch, broken: str, data: Any, dtype: Any
) -> None:
    """Each broken variant of the int-list branch differs from the general path on an input the property draws."""
    R = resolved_cuda0
    _agree(R, data, "cuda:0", dtype, 256 << 10)  # the shipped branch agrees
    variant = _wrapping_int_list if broken.startswith("wraps") else _bools_as_ints(R._stage_int_list)
    monkeypatch.setattr(R, "_stage_int_list", variant)
    with pytest.raises(AssertionError):
        _agree(R, data, "cuda:0", dtype, 256 << 10)


def test_fast_path_is_taken_for_the_hot_kinds_and_asks_once_whether_memory_is_pinned(resolved_cuda0: Any) -> None:
    """Through ``_async_h2d``: a flat list, an ndarray, a pageable tensor and a pinned tensor aimed at a resolved CUDA
    spelling take the fast path, each asking ``is_pinned()`` at most once (the general path asked it a second time for a
    pageable tensor); a pinned tensor converted to another dtype is staged without asking; an ``out`` takes the general
    path."""
    R = resolved_cuda0
    with _PinnedWithoutCuda() as mode:
        pinned = mode.pin(torch.arange(4, dtype=torch.int32))
        for data, dtype, checks, staged in (
            ([1, 2, 3], None, 0, True),
            (np.arange(4, dtype=np.int32), None, 0, True),
            (torch.arange(4, dtype=torch.int32), None, 1, True),
            (pinned, None, 1, False),
            (pinned, torch.int64, 0, True),
        ):
            mode.moves.clear()
            mode.pinned_checks = 0
            assert R._async_h2d(data, "cuda:0", dtype, None) == "moved"
            ((moved, args, kwargs, moved_id),) = mode.moves
            assert mode.pinned_checks == checks, (data, mode.pinned_checks)
            assert (kwargs == {"non_blocking": True, "copy": True}) is staged and (moved_id != id(data)) is staged


def test_fast_path_only_without_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_async_h2d`` tries the fast path for every call without ``out`` (it decides by itself, returning None for what
    it does not take), never with one."""
    from h2d_contracts.h2d_impl import h2d as R

    tried: list[Any] = []
    monkeypatch.setattr(R, "_fast_path", lambda data, device, dtype, small_max: tried.append(data))
    t = torch.arange(4)
    R._async_h2d(t, None, None, torch.zeros(4, dtype=torch.int64))
    assert tried == []
    for data in (t, [1, 2], np.arange(2), torch.nn.Parameter(torch.ones(2), requires_grad=False)):
        R._async_h2d(data, "cpu", None, None)
    assert len(tried) == 4
    # the public entry points try it themselves (one frame less), once a call, and never with out
    tried.clear()
    R.async_tensor_h2d(t, None, None, torch.zeros(4, dtype=torch.int64))
    assert tried == []
    R.async_tensor_h2d(t, "cpu")
    R.async_tensor_h2d_pipelined([1, 2], "cpu")
    assert len(tried) == 2, tried


def test_public_entry_points_try_the_fast_path_as_async_h2d_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """``async_tensor_h2d`` inlines ``_async_h2d``'s two steps with its default knobs, read at import: a patched
    ``_staging`` constant changes neither the fast path's small-payload limit nor whether it is tried, for either entry
    point (an outside review of the inlining found both read the module's current values); and the deprecated alias
    does not go through the module's ``async_tensor_h2d`` name (replaced, it recursed)."""
    from h2d_contracts.h2d_impl import _staging
    from h2d_contracts.h2d_impl import h2d as R

    seen: list[tuple[str, int]] = []
    monkeypatch.setattr(R, "_fast_path", lambda data, device, dtype, small_max: seen.append(("fast", small_max)))
    monkeypatch.setattr(_staging, "SMALL_MAX_BYTES", 0)
    for call in (R.async_tensor_h2d, R.async_tensor_h2d_pipelined, R._async_h2d):
        call([1, 2], "cpu", None, None)
    assert seen == [("fast", R._SMALL_MAX_DEFAULT)] * 3 and R._SMALL_MAX_DEFAULT > 0, seen
    seen.clear()
    monkeypatch.setattr(_staging, "MIN_BLOCK_BYTES", 1 << 16)
    for call in (R.async_tensor_h2d, R.async_tensor_h2d_pipelined, R._async_h2d):
        assert call([1, 2], "cpu", None, None).tolist() == [1, 2]
    assert seen == [], seen  # a block size other than the default: the general path, as _async_h2d decides
    monkeypatch.setattr(R, "async_tensor_h2d", R.async_tensor_h2d_pipelined)
    assert R.async_tensor_h2d_pipelined([1, 2], "cpu").tolist() == [1, 2]


def test_fast_path_declines_every_host_spelling() -> None:
    """A resolved host spelling is cached as the host with no index, and the fast path, which tells a CUDA target by
    its index, declines it (a pinned host tensor aimed at the host must get a fresh copy, never itself)."""
    from h2d_contracts.h2d_impl import h2d as R

    for spelling in ("cpu", "cpu:0", torch.device("cpu"), torch.device("cpu", 0)):
        assert R._resolve_device(spelling) == torch.device("cpu")
        assert R._RESOLVED[(type(spelling), spelling)].index is None, spelling
        assert R._fast_path(torch.arange(3), spelling, None, R._staging.SMALL_MAX_BYTES) is None, spelling


# --------------------------------------------------------------------------- the fused apply's table cache


def test_fused_tables_read_again_after_an_in_place_change():
    """``FusedStagedWriter.apply`` reads its pointer and stride tables once per table tensor and version (a device
    table read every step waited for the stream): the same tables again are not read, and a table changed in place
    by torch (its version advanced) is read again, so a wrong entry is refused as on the first apply."""
    from h2d_contracts.h2d_impl import buffer_utils as bu

    tensors = [bu.StagedWriteTensor((2, 4), torch.int32, "cpu") for _ in range(2)]
    ptrs = torch.tensor([t.gpu.data_ptr() for t in tensors], dtype=torch.uint64)
    strides = torch.tensor([t.gpu.stride(0) for t in tensors], dtype=torch.int64)
    writer = bu.FusedStagedWriter("cpu", 2)
    read = []  # after each apply: whether it read the tables (a read stores a new record of them)
    for step in range(3):
        before = writer._tables
        tensors[step % 2].stage_write(step % 2, 0, [step + 1])
        writer.apply(tensors, ptrs, strides)
        read.append(writer._tables is not before)
    assert read == [True, False, False]
    before = writer._tables
    ptrs[1] = ptrs[0].clone()  # in place: the version advances
    tensors[1].stage_write(0, 1, [9])
    with pytest.raises(ValueError, match="output_ptrs"):
        writer.apply(tensors, ptrs, strides)
    assert writer._tables is not before  # read again
    assert tensors[0].gpu.tolist() == [[3, 0, 0, 0], [0, 0, 0, 0]]
    assert tensors[1].gpu.tolist() == [[0, 0, 0, 0], [2, 0, 0, 0]]  # refused whole: the 9 not written


# --------------------------------------------------------------------------- the small path's numpy writes


def _small_routes(R: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The small pool's methods each call uses, in order (``small_at``: one ``memmove`` or numpy writes the slice;
    ``small_array``: numpy writes it (the int-list branch); ``small_tensor``: a torch view and ``copy_``)."""
    used: list[str] = []
    for name in ("small_array", "small_at", "small_tensor"):
        real = getattr(R._staging.StagingPool, name)
        monkeypatch.setattr(
            R._staging.StagingPool,
            name,
            lambda self, *a, _real=real, _name=name: used.append(_name) or _real(self, *a),
        )
    return used


def test_small_inputs_into_their_own_dtype_are_written_by_numpy(
    resolved_cuda0: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the fast path, a pageable tensor, an ndarray and a flat list going into their own dtype (one with a
    numpy equivalent) are written into the slice by one ``memmove`` where the source is contiguous, by numpy where
    not (a transposed tensor), or by numpy's assignment (a list of ints), and DMA'd from ``torch.from_numpy`` of it;
    a conversion (a float list into the default float32 among them) and a dtype numpy lacks (bfloat16) take the
    torch view and ``copy_``. Each staged tensor holds the input's values. (The
    property above compares every route with the general path, which always takes the torch view.)"""
    R = resolved_cuda0
    used = _small_routes(R, monkeypatch)
    moves: list[int] = []
    monkeypatch.setattr(R, "_memmove", lambda dst, src, n, _real=R._memmove: moves.append(n) or _real(dst, src, n))
    with _PinnedWithoutCuda() as mode:
        for data, dtype, route, memmoved in (
            (torch.arange(6, dtype=torch.int32).reshape(2, 3), None, "small_at", 24),
            (torch.arange(6, dtype=torch.int32).reshape(2, 3).t(), None, "small_at", None),  # numpy's copyto
            (torch.arange(12, dtype=torch.int64)[3:7], None, "small_at", 32),  # at an offset into its storage
            (torch.tensor(3.5), None, "small_at", 4),
            (np.arange(5, dtype=np.float64), None, "small_at", 40),
            ([1.5, 2.5], torch.float64, "small_at", 16),
            ([1.5, 2.5], None, "small_tensor", None),  # float64 values into the default dtype (float32): a conversion
            ([1, 2], None, "small_array", None),
            (torch.arange(4, dtype=torch.int32), torch.int64, "small_tensor", None),
            (torch.ones(3, dtype=torch.bfloat16), None, "small_tensor", None),
        ):
            used.clear()
            moves.clear()
            mode.moves.clear()
            R._async_h2d(data, "cuda:0", dtype, None)
            ((moved, _, kwargs, _),) = mode.moves
            assert used == [route] and kwargs == {"non_blocking": True, "copy": True}, (data, used)
            assert moves == ([] if memmoved is None else [memmoved]), (data, moves)
            expected = torch.as_tensor(np.asarray(data)) if not isinstance(data, torch.Tensor) else data
            assert moved.shape == expected.shape and torch.equal(moved, expected.to(moved.dtype)), data


def _staged_slices_survive(R: Any) -> bool:
    """Twenty small calls of mixed kinds; afterwards, is every call's staging slice (the DMA's source, kept here as
    its copy would read it later behind a busy stream) still holding that call's values (the input's, in the staged
    dtype)?"""
    kept: list[tuple[torch.Tensor, torch.Tensor]] = []
    real = R._dma
    values: list[Any] = []

    def keep(staging: torch.Tensor, target: Any, out: Any) -> Any:
        kept.append((staging, torch.as_tensor(np.asarray(values[-1])).to(staging.dtype)))
        return real(staging, target, out)

    with pytest.MonkeyPatch.context() as mp, _PinnedWithoutCuda():
        mp.setattr(R, "_dma", keep)
        for i in range(20):
            data = (torch.arange(i, i + 5, dtype=torch.int32), np.full(3, i, dtype=np.int64), [i, i + 1], [i + 0.5])[
                i % 4
            ]
            values.append(data)
            R._async_h2d(data, "cuda:0", None, None)
    return len(kept) == 20 and all(torch.equal(staging, expected) for staging, expected in kept)


def _unreserved_array(self: Any, count: int, dtype: torch.dtype) -> np.ndarray:
    chunk, start = self._small_start(0)
    return chunk.array(dtype)[start // dtype.itemsize : start // dtype.itemsize + count]


def _unreserved_at(self: Any, count: int, dtype: torch.dtype) -> tuple[np.ndarray, int]:
    chunk, start = self._small_start(0)
    return chunk.array(dtype)[start // dtype.itemsize : start // dtype.itemsize + count], chunk.address + start


def _at_chunk_start(self: Any, count: int, dtype: torch.dtype) -> tuple[np.ndarray, int]:
    chunk, start = self._small_start(count * dtype.itemsize)
    return chunk.array(dtype)[start // dtype.itemsize : start // dtype.itemsize + count], chunk.address


@pytest.mark.parametrize(
    ("method", "broken"),
    [
        pytest.param("small_array", _unreserved_array, id="small_array reserving nothing"),
        pytest.param("small_at", _unreserved_at, id="small_at reserving nothing"),
        pytest.param("small_at", _at_chunk_start, id="small_at's address the chunk's start"),
    ],
)
def test_numpy_written_slices_are_never_handed_out_twice(
    resolved_cuda0: Any, monkeypatch: pytest.MonkeyPatch, method: str, broken: Any
) -> None:
    """Each call's slice keeps its bytes while later calls stage theirs (the copies behind a busy stream read them
    later); a broken ``small_array`` or ``small_at`` that reserves nothing (every call at the open chunk's current
    offset), or a ``small_at`` whose address is the chunk's first byte (a memmove over earlier calls' slices), is
    caught."""
    R = resolved_cuda0
    assert _staged_slices_survive(R)
    monkeypatch.setattr(R._staging.StagingPool, method, broken)
    assert not _staged_slices_survive(R)


@pytest.mark.parametrize(
    ("shrink", "expect"),
    [
        # the general route's own refusal: numpy cannot broadcast no elements into the reserved eight
        pytest.param(lambda t: t.resize_(0), ValueError, id="resize_(0): emptied"),
        # one element broadcast into the eight, as numpy's copyto did before the memmove route
        pytest.param(
            lambda t: t.set_(torch.frombuffer(bytearray(b"AAAA" + b"SECRET!!" * 4), dtype=torch.int32, count=1)),
            b"AAAA" * 8,
            id="set_ to a 4-byte storage",
        ),
    ],
)
def test_a_source_shrunk_while_the_call_waits_for_the_pool_is_read_within_its_storage(
    resolved_cuda0: Any, shrink: Any, expect: Any
) -> None:
    """The byte count of a contiguous source's memmove is read under the pool's lock, right before the copy: a tensor
    the caller's other thread shrinks while the call waits for the lock (another call holds it) takes numpy's
    ``copyto``, which reads its current elements. With the count taken before the lock (found by an outside review of
    the memmove route) the process died reading address 0 of the emptied tensor, and the shrunk one's DMA carried 28
    bytes from beyond its storage ("SECRET!!")."""
    R = resolved_cuda0
    t = torch.zeros(8, dtype=torch.int32)
    pool = R._staging.pool_for(_CUDA0, R._staging.SMALL_CHUNK_BYTES, False, small=True)
    got: dict[str, Any] = {}
    waiting = threading.Event()
    real_lock = pool.lock

    class _Lock:  # the call's lock, which says when the call reaches it
        def __enter__(self) -> None:
            waiting.set()
            real_lock.acquire()

        def __exit__(self, *exc: object) -> None:
            real_lock.release()

    def call() -> None:
        with _PinnedWithoutCuda() as mode:
            try:
                R._async_h2d(t, "cuda:0", None, None)
                ((moved, _, _, _),) = mode.moves
                got["bytes"] = moved.contiguous().view(torch.uint8).numpy().tobytes()
            except (ValueError, RuntimeError, TypeError) as exc:  # the outcomes under test, in the call's thread
                got["raised"] = exc

    real_lock.acquire()  # another call holds the small pool
    pool.lock = _Lock()
    try:
        worker = threading.Thread(target=call)
        worker.start()
        assert waiting.wait(10)
        shrink(t)
    finally:
        real_lock.release()
    worker.join(10)
    pool.lock = real_lock
    if isinstance(expect, bytes):
        assert got.get("bytes") == expect, got
    else:
        assert isinstance(got.get("raised"), expect), got


_NUMPY_CANNOT_HOLD = [
    pytest.param(lambda: torch.ones([1] * 33), id="33 dimensions (numpy 1 holds 32)"),
    pytest.param(lambda: torch.ones([1] * 65), id="65 dimensions (numpy 2 holds 64)"),
    pytest.param(lambda: torch.empty((0, 2**61), dtype=torch.int64), id="empty, (0, 2**61)"),
]


@pytest.mark.parametrize("make", _NUMPY_CANNOT_HOLD)
def test_shapes_numpy_cannot_hold_take_the_torch_route(
    resolved_cuda0: Any, monkeypatch: pytest.MonkeyPatch, make: Any
) -> None:
    """A tensor with more dimensions than numpy holds, or an empty one whose other dimensions numpy cannot hold, is
    staged by the torch view and ``copy_`` and agrees with the general path (the numpy route raised ValueError for
    them: found by an outside review)."""
    R = resolved_cuda0
    used = _small_routes(R, monkeypatch)
    _agree(R, make(), "cuda:0", None, 256 << 10)
    assert used and set(used) == {"small_tensor"}, used


def test_a_numpy_route_without_the_dimension_bound_is_caught(
    resolved_cuda0: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above fails where the numpy route takes any number of dimensions."""
    R = resolved_cuda0
    monkeypatch.setattr(R, "_NUMPY_MAX_DIMS", 1 << 20)
    with pytest.raises(AssertionError):
        _agree(R, torch.ones([1] * 65), "cuda:0", None, 256 << 10)
