"""CPU call-trace checks of the reference's device path, under a simulated pinned host allocator.

On a CPU-only torch build there is neither pinned memory nor CUDA, so the device half
of the reference (``_to_device``: zero-copy / gather / pooled staging, ``_copy_pooled``,
``CpuGpuBuffer``'s copies, device-index resolution) never runs in the CPU suite: its
bugs would wait for a GPU run, and mutation testing on CPU could
not see them. Here that code runs with a host target (``target=cpu``) under
:class:`SimulatedPinnedHost`, a ``torch.overrides.TorchFunctionMode`` (torch's own
interception point for every tensor function and method, used instead of
monkeypatching ``torch.Tensor``) that

- records each allocation (``torch.empty``/``zeros``/``tensor`` with their
  ``pin_memory`` argument) and each ``Tensor.copy_`` / ``Tensor.to`` with its
  ``non_blocking`` argument, and
- simulates pinned memory: a block allocated with ``pin_memory=True`` (or by
  ``Tensor.pin_memory()``) is really pageable, but ``Tensor.is_pinned()`` reports True
  for every view of it, as CUDA's caching host allocator would.

What is checked is the host-visible half of the staging, non-blocking and snapshot
contracts of docs/reference.md: the copy into the destination is issued with
``non_blocking=True`` from a pinned, contiguous staging tensor of the payload's shape (a
slice of a pooled chunk for small payloads, a pooled block of the payload's power-of-two
size class for larger ones) that is not the input's memory, or, zero-copy, from the input
itself only when that input is pinned, of the target dtype, has no conj/neg bit and is
dense (contiguous, or a permutation of contiguous: transposed, channels-last; DMA'd with
its strides by one ``.to`` and reordered from that result, on the target device) or spans
at most 4x its payload (DMA'd as that contiguous span and gathered on the device). Values are
compared bit for bit with the kit's oracle. The GPU contracts (tests/test_gpu.py) stay
the ground truth for what the hardware does (that the copy really overlaps, which
stream ran it); these catch the same bugs on any machine.
"""

from __future__ import annotations

import contextlib
from typing import Any, NamedTuple
from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch.overrides import TorchFunctionMode

import h2d_contracts.strategies as S
from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import _host
from h2d_contracts.h2d_impl import buffer as B
from h2d_contracts.h2d_impl import h2d as R
from h2d_contracts.harness import oracle

CPU = torch.device("cpu")


class Call(NamedTuple):
    """One recorded torch call: function name, positional args, and its ``pin_memory``/``non_blocking``."""

    name: str
    args: tuple
    pin_memory: Any
    non_blocking: Any
    result: Any


_RECORDED = {"empty", "zeros", "tensor", "empty_like", "copy_", "to", "pin_memory"}
_MISSING = object()


class SimulatedPinnedHost(TorchFunctionMode):
    """Records allocations and copies; makes ``pin_memory=True`` work (simulated) on CPU-only torch.

    Pinned-ness is tracked by storage address; every simulated pinned block is kept
    alive by the mode, so a later pageable allocation cannot reuse its address and be
    mistaken for pinned.
    """

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[Call] = []
        self._pinned: dict[int, torch.Tensor] = {}
        self._recording = False

    def __enter__(self):
        # Staging pools made inside the simulation hold simulated-pinned chunks; pools made
        # outside it (by another test) hold chunks it cannot see as pinned: start empty.
        self._saved_pools = dict(R._staging._POOLS)
        R._staging._POOLS.clear()
        return super().__enter__()

    def __exit__(self, *exc):
        R._staging._POOLS.clear()
        R._staging._POOLS.update(self._saved_pools)
        return super().__exit__(*exc)

    def is_pinned(self, t: torch.Tensor) -> bool:
        # Zero-element tensors own no memory (null data pointer): simulated as unpinned. What a
        # CUDA build reports for them was not checked here; it only decides zero-copy vs
        # staging for empty inputs, where both give the same (empty) result.
        return t.device.type == "cpu" and t.numel() > 0 and t.untyped_storage().data_ptr() in self._pinned

    @contextlib.contextmanager
    def recording(self):
        """Record the calls made inside the block (only those), from a clean list."""
        self.calls.clear()
        self._recording = True
        try:
            yield self.calls
        finally:
            self._recording = False

    def _mark(self, t: torch.Tensor) -> torch.Tensor:
        if t.numel():
            self._pinned[t.untyped_storage().data_ptr()] = t
        return t

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        name = getattr(func, "__name__", "")
        if name == "is_pinned":
            return self.is_pinned(args[0])
        pinned = name == "pin_memory" or bool(kwargs.get("pin_memory", False))
        if "pin_memory" in kwargs:
            kwargs["pin_memory"] = False  # the real allocation: pageable (no pinning on this build)
        if name == "pin_memory":
            result = args[0].clone(memory_format=torch.contiguous_format)
        else:
            result = func(*args, **kwargs)
        if pinned and isinstance(result, torch.Tensor):
            self._mark(result)
        if self._recording and name in _RECORDED:
            orig = dict(kwargs or {})
            self.calls.append(
                Call(
                    name,
                    tuple(args),
                    True if pinned else orig.get("pin_memory", _MISSING),
                    orig.get("non_blocking", _MISSING),
                    result,
                )
            )
        return result


def _same_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Views of one storage (zero-element tensors have no address to compare: only identity counts)."""
    if a is b:
        return True
    if not a.numel() or not b.numel():
        return False
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _dest_copies(calls: list[Call], dst: torch.Tensor) -> list[Call]:
    """The copies that write ``dst``'s storage: ``dst_view.copy_(src)`` (``.to`` results are checked apart)."""
    return [c for c in calls if c.name == "copy_" and _same_storage(c.args[0], dst)]


def _run_device_path(
    sim: SimulatedPinnedHost, data: Any, kwargs: dict[str, Any], *, default_device: str | None = None, **knobs: Any
):
    """Validate like the reference, then run its device half (``_to_device``) towards the host, recording.

    ``default_device``: run the device half inside ``with torch.device(default_device)``
    (a user's default-device context): every allocation must still name its device.
    """
    out = kwargs.get("out")
    source, dtype, target = R._prepare(data, kwargs.get("device"), kwargs.get("dtype"), out, cpu_only=False)
    context = torch.device(default_device) if default_device else contextlib.nullcontext()
    with sim.recording() as calls, context:
        result = R._to_device(data, source, dtype, target, out, **knobs)
    return source, dtype, result, list(calls)


def _zero_copy_expected(sim: SimulatedPinnedHost, data: Any, dtype: torch.dtype) -> bool:
    # The rule restated from docs/reference.md on purpose (not R._zero_copy_ok: a test that asked
    # the implementation which inputs are zero-copy would agree with any bug in it), with
    # the simulation's pinned-ness in place of torch's: a pinned input of the target dtype,
    # without conj/neg bits, that is dense or whose byte span is at most 4x its payload.
    return (
        isinstance(data, torch.Tensor)
        and data.dtype == dtype
        and not data.is_conj()
        and not data.is_neg()
        and sim.is_pinned(data)
        and (_fills_its_bytes(data) or _span_elems(data) <= 4 * data.numel())
    )


def _span_elems(t: torch.Tensor) -> int:
    """Elements from ``t``'s first to its last (restated, not R._span); 0 for an empty tensor."""
    return 0 if not t.numel() else 1 + sum(st * (sz - 1) for st, sz in zip(t.stride(), t.shape))


def _fills_its_bytes(t: torch.Tensor) -> bool:
    """Dense in some order of the dimensions: some permutation of ``t`` is contiguous (restated, not R._dense)."""
    import itertools

    dims = [d for d in range(t.dim()) if t.shape[d] != 1]
    if t.numel() == 0 or len(dims) > 6:
        return t.is_contiguous()
    return any(
        t.permute([*perm, *[d for d in range(t.dim()) if d not in perm]]).is_contiguous()
        for perm in itertools.permutations(dims)
    )


DEFAULT_KNOBS = {"min_block": R._staging.MIN_BLOCK_BYTES, "small_max": R._staging.SMALL_MAX_BYTES}


def _check_trace(
    sim,
    data,
    kwargs,
    source,
    dtype,
    result,
    calls,
    *,
    pin: bool,
    min_block: int,
    small_max: int,
    small_chunk: int = R._staging.SMALL_CHUNK_BYTES,
):
    """Every rule of the module docstring, for one recorded call of ``_to_device``."""
    out = kwargs.get("out")
    shown = {k: _host.describe(v) if k == "out" else v for k, v in kwargs.items()}
    call = f"_to_device({_host.describe(data)}, {shown}, pin={pin}, min_block={min_block}, small_max={small_max})"
    expected = oracle.expected_tensor(data, dtype)
    oracle.assert_same_values(result, expected, contract="trace", call=call)
    if out is not None:
        assert result is out, f"{call}: returned a new tensor instead of out"
    else:
        assert result.is_contiguous() and result.dtype == dtype and tuple(result.shape) == tuple(source.shape), call

    if _zero_copy_expected(sim, data, dtype):
        _check_zero_copy(data, out, calls, call)
    else:
        _check_staged(
            sim,
            data,
            out,
            source,
            dtype,
            calls,
            call,
            pin=pin,
            min_block=min_block,
            small_max=small_max,
            small_chunk=small_chunk,
        )


def _check_zero_copy(data, out, calls, call: str) -> None:
    """A pinned input of the target dtype: the DMA reads the caller's tensor itself, no staging block at all."""
    assert not [c for c in calls if c.pin_memory is True], (
        f"{call}: a pinned input of the target dtype was staged again"
    )
    reads = [c for c in calls if c.name in ("copy_", "to")]
    c = reads[0]
    src = c.args[1] if c.name == "copy_" else c.args[0]
    assert src is data or _same_storage(src, data), f"{call}: zero-copy read something other than data"
    assert c.non_blocking is True, f"{call}: copy issued with non_blocking={c.non_blocking}"
    if c.name == "to":
        assert c.args[1:2] == (CPU,), f"{call}: .to() without the target device: {c.args[1:]}"
    if _fills_its_bytes(data):
        as_laid_out = data.is_contiguous() or (out is not None and out.stride() == data.stride())
        assert len(reads) == (1 if as_laid_out or out is None else 2), (
            f"{call}: zero-copy should be one copy (plus one reorder from its result into out), got {[c.name for c in reads]}"
        )
        if c.name == "copy_":
            assert as_laid_out, (
                f"{call}: a permuted pinned input copied into out directly (torch would stage it in pageable memory)"
            )
    else:
        # A view with gaps: one .to of the contiguous span of data's storage it covers
        # (a contiguous pinned tensor: one DMA), then picked on the device.
        assert c.name == "to" and src.is_contiguous() and src.dim() == 1, (
            f"{call}: a pinned view with gaps should be DMA'd as one contiguous span, got {c.name} of {_host.describe(src)}"
        )
        first, last = data.storage_offset(), data.storage_offset() + _span_elems(data)
        assert src.storage_offset() <= first and src.storage_offset() + src.numel() >= last, (
            f"{call}: the DMA'd span does not cover data's elements"
        )
        assert src.numel() <= 4 * data.numel(), f"{call}: span of {src.numel()} elements for {data.numel()}"
        assert len(reads) == (2 if out is not None else 1) or (out is None and len(reads) <= 2), [c.name for c in reads]
    if len(reads) == 2 and out is not None:  # the reorder reads the device-side result of the DMA, never data again
        assert reads[1].name == "copy_" and reads[1].args[0] is out and _same_storage(reads[1].args[1], c.result), (
            f"{call}: the reorder into out did not read the DMA's result"
        )


def _check_staged(
    sim, data, out, source, dtype, calls, call: str, *, pin: bool, min_block: int, small_max: int, small_chunk: int
) -> None:
    """A staged payload: pinned allocations from the staging pool, one non-blocking copy into the destination."""
    # Pinned allocations are staging chunks (small payloads) or blocks (larger ones).
    for c in calls:
        if c.name == "empty" and c.pin_memory is not _MISSING:
            assert c.pin_memory is pin, f"{call}: staging allocated with pin_memory={c.pin_memory}, expected {pin}"
    dmas = _dest_copies(calls, out) if out is not None else [c for c in calls if c.name == "to"]
    assert len(dmas) == 1, f"{call}: a staged payload should be one copy into the destination, got {len(dmas)}"
    c = dmas[0]
    src = c.args[1] if c.name == "copy_" else c.args[0]
    assert c.non_blocking is True, f"{call}: DMA issued with non_blocking={c.non_blocking}"
    assert src.is_contiguous() and src.dtype == dtype and tuple(src.shape) == tuple(source.shape), (
        f"{call}: staging read is {_host.describe(src)}, expected contiguous {dtype} of shape {tuple(source.shape)}"
    )
    if pin:
        assert sim.is_pinned(src) or not src.numel(), f"{call}: a DMA read pageable memory"
    if isinstance(data, torch.Tensor) and src.numel():
        assert not _same_storage(src, data), f"{call}: a staged input was read in place (no snapshot)"
    if c.name == "to":
        assert c.args[1:2] == (CPU,), f"{call}: .to() without the target device: {c.args[1:]}"
    # the staging is a view of a pooled chunk (small payloads) or block (larger): at least as large as the payload
    nbytes = source.numel() * dtype.itemsize
    if src.numel():
        block = src.untyped_storage().nbytes()
        expected_min = small_chunk if nbytes <= small_max else max(min_block, nbytes)
        assert block >= expected_min, f"{call}: staged in a {block}-byte block, expected at least {expected_min}"
        if nbytes > small_max:
            assert block == max(min_block, 1 << (nbytes - 1).bit_length()), (
                f"{call}: a {nbytes}-byte payload in a {block}-byte block (size classes are powers of two from min_block)"
            )


# --------------------------------------------------------------------------- staging decisions


@pytest.fixture
def sim():
    """A simulated pinned host for the test, with the kit's strategies allowed to draw pinned tensors."""
    with SimulatedPinnedHost() as mode, mock.patch.object(S.host, "pinning_available", lambda: True):
        yield mode


@given(data=st.data())
@pytest.mark.parametrize(
    "pin, min_block, small_max",
    [
        (True, R._staging.MIN_BLOCK_BYTES, R._staging.SMALL_MAX_BYTES),
        (False, R._staging.MIN_BLOCK_BYTES, R._staging.SMALL_MAX_BYTES),
        (True, 8, 0),
        (True, 64, 0),
        (True, 16, 48),
        (False, 4, 0),
    ],
    ids=["default-pinned", "default-pageable", "block8", "block64", "block16-small48", "block4-pageable"],
)
def test_device_path_trace(data, pin, min_block, small_max):
    """Any valid call: values exact, out written in place, and the staging/non_blocking rules of the trace."""
    with SimulatedPinnedHost() as sim, mock.patch.object(S.host, "pinning_available", lambda: True):
        call = data.draw(S.h2d_calls(CPU), label="call")
        source, dtype, result, calls = _run_device_path(
            sim, call.data, call.kwargs, pin=pin, min_block=min_block, small_max=small_max
        )
        _check_trace(
            sim, call.data, call.kwargs, source, dtype, result, calls, pin=pin, min_block=min_block, small_max=small_max
        )


def _pinned(sim, values: torch.Tensor) -> torch.Tensor:
    t = torch.empty(values.shape, dtype=values.dtype, pin_memory=True)
    t.copy_(values)
    assert sim.is_pinned(t)
    return t


@pytest.mark.parametrize("with_out", [False, True], ids=["no-out", "out"])
@pytest.mark.parametrize(
    "case",
    [
        "pinned-contiguous",
        "pinned-transposed",
        "pinned-column",
        "pinned-sparse-column",
        "pinned-other-dtype",
        "pinned-conj",
        "pinned-neg",
        "pageable",
        "ndarray",
    ],
)
def test_zero_copy_only_when_safe(sim, case, with_out):
    """Zero-copy exactly for pinned inputs of the target dtype without conj/neg bits that are dense (contiguous,
    transposed) or span at most 4x their payload (a column of a 4-wide matrix: gathered on the device); everything
    else (a column of a 20-wide matrix too) is staged."""
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    dtype = None
    if case == "pinned-contiguous":
        data = _pinned(sim, base)
    elif case == "pinned-transposed":
        data = _pinned(sim, base.t().contiguous()).t()
    elif case == "pinned-column":
        data = _pinned(sim, base)[:, 1]
    elif case == "pinned-sparse-column":
        data = _pinned(sim, torch.arange(60, dtype=torch.float32).reshape(3, 20))[:, 1]
    elif case == "pinned-other-dtype":
        data, dtype = _pinned(sim, base), torch.float64
    elif case == "pinned-conj":
        data = _pinned(sim, base.to(torch.complex64) * (1 + 2j)).conj()
    elif case == "pinned-neg":
        data = torch._neg_view(_pinned(sim, base.to(torch.complex64) * (1 + 2j)).conj())
        assert data.is_neg() or data.is_conj()
    elif case == "pageable":
        data = base.clone()
    else:
        data = base.numpy().copy()
    resolved = dtype or (data.dtype if isinstance(data, torch.Tensor) else torch.float32)
    kwargs: dict[str, Any] = {"device": CPU}
    if dtype is not None:
        kwargs["dtype"] = dtype
    if with_out:
        kwargs["out"] = torch.full(tuple(np.shape(data)), 7, dtype=resolved)
    source, dtype, result, calls = _run_device_path(sim, data, kwargs, pin=True, **DEFAULT_KNOBS)
    zero = _zero_copy_expected(sim, data, dtype)
    assert zero == (case in ("pinned-contiguous", "pinned-transposed", "pinned-column")), case
    _check_trace(sim, data, kwargs, source, dtype, result, calls, pin=True, **DEFAULT_KNOBS)


@pytest.mark.parametrize("with_out", [False, True], ids=["no-out", "out"])
@pytest.mark.parametrize("dtype", [torch.bool, torch.int8, torch.float16, torch.int64], ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "column", "one-strided-row"])
@pytest.mark.parametrize("min_block", [1, 8, 64])
def test_pooled_blocks(sim, layout, dtype, min_block, with_out):
    """Payloads over small_max, every layout and itemsize: one block of their size class, one host copy, one DMA."""
    base = torch.arange(5 * 6).reshape(5, 6) % 2 if dtype is torch.bool else torch.arange(5 * 6).reshape(5, 6)
    values = base.to(dtype)
    if layout == "contiguous":
        data = values.clone()
    elif layout == "transposed":
        data = values.t().contiguous().t()
    elif layout == "column":
        data = torch.cat([values, values], dim=1)[:, ::2]
    else:  # a single row, strided
        data = torch.cat([values, values], dim=1)[:1, ::2]
    kwargs: dict[str, Any] = {"device": CPU}
    if with_out:
        kwargs["out"] = torch.zeros(tuple(data.shape), dtype=dtype)
    source, resolved, result, calls = _run_device_path(
        sim, data, kwargs, pin=True, min_block=min_block, small_max=0, default_device="meta"
    )
    _check_trace(sim, data, kwargs, source, resolved, result, calls, pin=True, min_block=min_block, small_max=0)


def test_small_threshold_and_out_layout(sim):
    """Payloads up to ``small_max`` bytes are a slice of the shared chunk; larger ones a block of their class, strided out included."""
    data = torch.arange(16, dtype=torch.int32)
    for small_max, out, small in [
        (64, None, True),  # exactly at the threshold: a slice
        (63, None, False),  # one byte over: a 64-byte block
        (0, torch.zeros(16, dtype=torch.int32), False),
        (0, torch.zeros(32, dtype=torch.int32)[::2], False),  # strided out: copied from the block as a whole
    ]:
        kwargs: dict[str, Any] = {"device": CPU} if out is None else {"out": out}
        _, dtype, result, calls = _run_device_path(
            sim, data, kwargs, pin=True, min_block=16, small_max=small_max, small_chunk=256
        )
        dmas = _dest_copies(calls, out) if out is not None else [c for c in calls if c.name == "to"]
        src = dmas[0].args[1] if dmas[0].name == "copy_" else dmas[0].args[0]
        assert src.untyped_storage().nbytes() == (256 if small else 64), (
            small_max,
            out is not None,
            src.untyped_storage().nbytes(),
        )
        _check_trace(
            sim, data, kwargs, data, dtype, result, calls, pin=True, min_block=16, small_max=small_max, small_chunk=256
        )
    scalar = torch.tensor(5, dtype=torch.int64)
    _, dtype, result, calls = _run_device_path(sim, scalar, {"device": CPU}, pin=True, min_block=1, small_max=0)
    assert len([c for c in calls if c.name == "to"]) == 1 and result.item() == 5  # 0-d: an 8-byte block


def test_pipelined_entry_point_agrees_on_the_host():
    """``async_tensor_h2d_pipelined`` takes every argument of ``async_tensor_h2d`` (host target: same results)."""
    data = np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::-1]
    for kwargs in (
        {"device": "cpu"},
        {"device": "cpu", "dtype": torch.float32},
        {"out": torch.zeros(3, 4, dtype=torch.int64)},
    ):
        ref = h2d_impl.async_tensor_h2d(data, **{k: (v.clone() if k == "out" else v) for k, v in kwargs.items()})
        got = h2d_impl.async_tensor_h2d_pipelined(data, **kwargs)
        torch.testing.assert_close(got, ref, rtol=0, atol=0)
        if "out" in kwargs:
            assert got is kwargs["out"]
    with pytest.raises(TypeError, match="a target is required"):
        h2d_impl.async_tensor_h2d_pipelined([1, 2])


# --------------------------------------------------------------------------- CpuGpuBuffer


@pytest.mark.parametrize("pin_memory", [None, True, False])
def test_buffer_host_side_pinned_when_asked(sim, pin_memory):
    """``.cpu`` is allocated pinned when asked (or by default) and pinning is available; repr says so."""
    with mock.patch.object(B, "pin_memory_available", lambda: True):
        with sim.recording() as calls:
            buf = B.CpuGpuBuffer(4, 3, dtype=torch.int32, device="cpu", pin_memory=pin_memory)
        want = pin_memory is not False
        host_allocs = [c for c in calls if c.name == "zeros" and c.result is buf.cpu]
        assert len(host_allocs) == 1 and host_allocs[0].pin_memory is want, [(c.name, c.pin_memory) for c in calls]
        assert sim.is_pinned(buf.cpu) is want and not sim.is_pinned(buf.gpu)
        assert repr(buf).endswith(f"pinned={want})"), repr(buf)
    with mock.patch.object(B, "pin_memory_available", lambda: False):
        buf = B.CpuGpuBuffer(4, 3, dtype=torch.int32, device="cpu", pin_memory=pin_memory)
        assert not sim.is_pinned(buf.cpu) and repr(buf).endswith("pinned=False)"), repr(buf)


@pytest.mark.parametrize("n", [None, 0, 1, 3, 4])
@pytest.mark.parametrize("direction", ["copy_to_gpu", "copy_to_cpu"])
def test_buffer_copies_are_non_blocking_row_prefixes(sim, direction, n):
    """``copy_to_gpu(n)`` / ``copy_to_cpu(n)``: one ``non_blocking=True`` copy of exactly rows ``[0, n)``."""
    with mock.patch.object(B, "pin_memory_available", lambda: True):
        buf = B.CpuGpuBuffer(4, 3, dtype=torch.int32, device="cpu")
    src, dst = (buf.cpu, buf.gpu) if direction == "copy_to_gpu" else (buf.gpu, buf.cpu)
    src.copy_(torch.arange(12, dtype=torch.int32).reshape(4, 3))
    dst.fill_(-1)
    with sim.recording() as calls:
        result = getattr(buf, direction)(n)
    copies = [c for c in calls if c.name == "copy_"]
    rows = 4 if n is None else n
    assert len(copies) == 1, [c.name for c in calls]
    (c,) = copies
    assert c.non_blocking is True, f"{direction}({n}) issued with non_blocking={c.non_blocking}"
    ptr = lambda t: t.untyped_storage().data_ptr()  # noqa: E731 (views of the non-empty buffers, even [:0])
    assert ptr(c.args[0]) == ptr(dst) and c.args[0].storage_offset() == 0 and c.args[0].shape[0] == rows
    assert ptr(c.args[1]) == ptr(src) and c.args[1].storage_offset() == 0 and c.args[1].shape[0] == rows
    assert result.shape[0] == rows and ptr(result) == ptr(dst)
    assert torch.equal(dst[:rows], src[:rows]) and bool((dst[rows:] == -1).all())


# --------------------------------------------------------------------------- error texts with pinned-ness


def test_describe_marks_pinned_and_pageable_where_pinning_exists(sim):
    """Error messages say ", pinned" / ", pageable" for host tensors where pinning exists (nothing for others)."""
    pinned, pageable = _pinned(sim, torch.zeros(2, 3)), torch.zeros(2, 3)
    with mock.patch.object(_host, "pin_memory_available", lambda: True):
        assert _host.describe(pinned) == "Tensor(shape=(2, 3), dtype=torch.float32, device=cpu, stride=(3, 1), pinned)"
        assert (
            _host.describe(pageable) == "Tensor(shape=(2, 3), dtype=torch.float32, device=cpu, stride=(3, 1), pageable)"
        )
        assert (
            _host.describe(pinned[:, 1]) == "Tensor(shape=(2,), dtype=torch.float32, device=cpu, stride=(3,), pinned)"
        )
        sparse = torch.zeros(2, 3).to_sparse()
        assert _host.describe(sparse).endswith("stride=torch.sparse_coo)")
        meta = torch.zeros(2, device="meta")
        assert _host.describe(meta) == "Tensor(shape=(2,), dtype=torch.float32, device=meta, stride=(1,))"
    with mock.patch.object(_host, "pin_memory_available", lambda: False):
        assert _host.describe(pinned) == "Tensor(shape=(2, 3), dtype=torch.float32, device=cpu, stride=(3, 1))"


@st.composite
def _strided_views(draw: st.DrawFn) -> torch.Tensor:
    """A view of up to 5 dims of sizes 0-4: a permutation of a contiguous tensor (channels-last among them), perhaps
    with one stride bumped (a gap or an overlap), or arbitrary strides 0-9."""
    ndim = draw(st.integers(0, 5))
    shape = draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim))
    if draw(st.booleans()):
        perm = draw(st.permutations(range(ndim)))
        strides = [0] * ndim
        step = 1
        for d in reversed(perm):  # the last of perm fastest
            strides[d] = step
            step *= max(shape[d], 1)
        if ndim and draw(st.booleans()):
            d = draw(st.integers(0, ndim - 1))
            strides[d] = max(0, strides[d] + draw(st.sampled_from([-1, 1, 2])))
    else:
        strides = draw(st.lists(st.integers(0, 9), min_size=ndim, max_size=ndim))
    span = 1 + sum(st_ * (sz - 1) for st_, sz in zip(strides, shape)) if all(shape) else 1
    return torch.zeros(max(span, 1)).as_strided(shape, strides)


@settings(max_examples=500)  # about 1 ms each
@given(t=_strided_views())
# each special case of _dense next to its bound: a transposed matrix with a gap between columns, channels-last
# 4-D and 5-D views with the channel dim fastest but a gap in a slower one
@example(t=torch.zeros(8).as_strided((2, 2), (1, 3)))
@example(t=torch.zeros(2, 3, 4, 6).contiguous(memory_format=torch.channels_last)[..., :5])
@example(t=torch.zeros(2, 3, 2, 4, 6).contiguous(memory_format=torch.channels_last_3d)[..., :5])
def test_dense_is_some_permutation_contiguous(t):
    """``_dense`` (its special cases for matrices and channels-last included) against the restated definition."""
    assert R._dense(t) == _fills_its_bytes(t), (tuple(t.shape), t.stride())
