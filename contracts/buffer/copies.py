"""``copy_to_gpu(n)`` and ``copy_to_cpu(n)`` on a fresh buffer: exactly rows ``[0, n)`` copied, the ``n``-row view of the
destination returned, ``n`` outside ``[0, capacity]`` refused with nothing copied, and a bit-exact round trip."""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import torch

from h2d_contracts.harness import contexts
from h2d_contracts.harness.calling import synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import fail
from h2d_contracts.strategies import errors

from .build import _bytes, host_aliased, make_buffer, repr_spec, wait
from .refusals import _names_one


def _check_returned_rows(
    view: Any, side: torch.Tensor, name: str, rows: int, values: torch.Tensor | None, call: str, whole: bool = False
) -> None:
    """The value a copy returns: ``side[:rows]`` itself (a view of the destination's first rows, same device and
    storage), holding the copied rows; for a copy of every row (``n`` None: ``whole``) the destination tensor itself
    (vLLM returns ``self.gpu.copy_(...)``, which is ``self.gpu``)."""
    __tracebackhide__ = True
    if not isinstance(view, torch.Tensor):
        fail("buffer", "return value", got=type(view).__name__, expected=f"{name}[:{rows}] (a tensor)", call=call)
    if whole and view is not side:
        fail(
            "buffer",
            f"a copy of every row (n=None) returned another tensor than {name}",
            got=f"a tensor of shape {tuple(view.shape)} that is not {name}",
            expected=f"{name} itself (as vLLM's copy_ returns it)",
            call=call,
        )
    if not whole and view is side:
        fail(
            "buffer",
            f"a copy of {rows} rows (n given) returned {name} itself, not a view of its rows",
            got=f"{name} (the buffer's own tensor: an in-place change of the result, unsqueeze_ or resize_, changes it)",
            expected=f"{name}[:{rows}], a view (vLLM slices for every n; held-out round r53 returned {name} for n == capacity)",
            call=call,
        )
    want_shape = (rows, *side.shape[1:])
    if tuple(view.shape) != want_shape or view.dtype != side.dtype:
        fail(
            "buffer",
            "returned view shape/dtype",
            got=(tuple(view.shape), view.dtype),
            expected=(want_shape, side.dtype),
            call=call,
        )
    if view.device != side.device:
        fail(
            "buffer", f"returned tensor's device (should be {name}'s)", got=view.device, expected=side.device, call=call
        )
    same_memory = view.untyped_storage().data_ptr() == side.untyped_storage().data_ptr() and (
        not view.numel() or (view.data_ptr() == side.data_ptr() and view.stride() == side.stride())
    )
    if not same_memory:
        fail(
            "buffer",
            f"returned tensor is not a view of {name}'s first rows (a copy, or the other side's rows)",
            got=f"storage at {view.untyped_storage().data_ptr():#x}",
            expected=f"{name}'s storage at {side.untyped_storage().data_ptr():#x}",
            call=call,
        )
    if values is not None and rows and not np.array_equal(_bytes(view), _bytes(values)[:rows]):
        fail(
            "buffer",
            f"values of the returned {name}[:{rows}]",
            got=_bytes(view)[:2].tolist(),
            expected=_bytes(values)[:2].tolist(),
            call=call,
        )


def _check_version_advanced(side: torch.Tensor, before: int, name: str, rows: int, call: str) -> None:
    """A copy of one row or more writes ``side`` through torch, so autograd's version counter advances (vLLM's
    ``copy_``): a write that bypasses it (numpy on the tensor's memory; held-out round r53) leaves a tensor saved for
    backward, or a cache keyed on ``_version``, believing it unchanged."""
    if rows and side._version == before:
        fail(
            "buffer",
            f"the copy of {rows} rows into {name} left its version counter as it was",
            got=f"{name}._version {before} after the copy",
            expected=f"more than {before} (a write through torch, as copy_ is)",
            call=call,
        )


def _row_count(n: Any, capacity: int) -> int:
    return capacity if n is None else int(n)


def _held(buf: Any) -> dict[str, tuple[torch.Tensor, int]]:
    """The buffer's ``.cpu`` and ``.gpu``: the objects and their addresses, as an engine (or a CUDA graph) holds them."""
    return {name: (getattr(buf, name), getattr(buf, name).data_ptr()) for name in ("cpu", "gpu")}


def _check_same_tensors(buf: Any, held: dict[str, tuple[torch.Tensor, int]], call: str) -> None:
    """A copy writes into the buffer's tensors: ``.cpu``/``.gpu`` are the same objects at the same addresses after it."""
    for name, (tensor, ptr) in held.items():
        now = getattr(buf, name)
        if now is not tensor or now.data_ptr() != ptr:
            fail(
                "buffer",
                f"the copy replaced .{name}",
                got=f"another tensor at {now.data_ptr():#x}"
                if now is not tensor
                else f"memory moved to {now.data_ptr():#x}",
                expected=f"the same .{name} at {ptr:#x} (engines and captured CUDA graphs hold it)",
                call=call,
            )


def _check_rows(
    side: torch.Tensor, values: torch.Tensor, before: np.ndarray, rows: int, name: str, when: str, call: str
) -> None:
    """Rows ``[0, rows)`` of the copy's destination ``side`` (named ``name``) hold ``values``' bytes; its other rows
    hold ``before``'s (the destination's bytes before the copy, from :func:`_bytes`)."""
    got, want = _bytes(side), _bytes(values)
    if not np.array_equal(got[:rows], want[:rows]):
        bad = int(np.nonzero((got[:rows] != want[:rows]).any(axis=1))[0][0])
        fail("buffer", f"row {bad} of {name} {when}", got=got[bad].tolist(), expected=want[bad].tolist(), call=call)
    if not np.array_equal(got[rows:], before[rows:]):
        bad = rows + int(np.nonzero((got[rows:] != before[rows:]).any(axis=1))[0][0])
        fail(
            "buffer",
            f"row {bad} (>= n) of {name} was written",
            got=got[bad].tolist(),
            expected=before[bad].tolist(),
            call=call,
        )


@check("buffer")
def check_copy_to_gpu(
    target: Target,
    spec: dict[str, Any],
    device: torch.device,
    n: int | np.integer[Any] | torch.Tensor | None,
    values: torch.Tensor,
) -> None:
    """buffer: on a fresh buffer of ``spec``, ``copy_to_gpu(n)`` copies exactly rows ``[0, n)`` of ``values`` (written to ``.cpu``),
    returns the ``n``-row view of ``.gpu`` and leaves its other rows as they were."""
    buf = make_buffer(target, spec, device)
    call = f"{repr_spec(spec, device, target.buffer_name)}.copy_to_gpu({n})"
    aliased = host_aliased(buf)
    synchronize()
    if not aliased and buf.gpu.numel():
        buf.gpu.view(torch.uint8).fill_(0x7B)
    buf.cpu.copy_(values)
    before_gpu = _bytes(buf.gpu)
    rows = _row_count(n, buf.gpu.shape[0])
    held = _held(buf)
    version = buf.gpu._version
    with contexts.entered():
        view = buf.copy_to_gpu(n)
    wait(buf)
    synchronize()
    _check_same_tensors(buf, held, call)
    _check_returned_rows(view, buf.gpu, ".gpu", rows, values, call, whole=n is None)
    if aliased:
        return  # one memory: rows past n hold .cpu's values by construction
    _check_version_advanced(buf.gpu, version, ".gpu", rows, call)
    _check_rows(buf.gpu, values, before_gpu, rows, ".gpu", f"after copy_to_gpu({n})", call)


@check("buffer")
def check_copy_to_cpu(
    target: Target,
    spec: dict[str, Any],
    device: torch.device,
    n: int | np.integer[Any] | torch.Tensor | None,
    values: torch.Tensor,
) -> None:
    """buffer: on a fresh buffer of ``spec``, ``copy_to_cpu(n)`` mirrors copy_to_gpu: after the documented wait rows ``[0, n)``
    of ``.cpu`` hold ``values`` (written to ``.gpu``), the rest untouched, and the ``n``-row view of ``.cpu`` is returned."""
    buf = make_buffer(target, spec, device)
    call = f"{repr_spec(spec, device, target.buffer_name)}.copy_to_cpu({n})"
    aliased = host_aliased(buf)
    synchronize()
    if not aliased and buf.cpu.numel():
        buf.cpu.view(torch.uint8).fill_(0x7B)
    buf.gpu.copy_(values.to(buf.gpu.device))
    before_cpu = _bytes(buf.cpu)
    rows = _row_count(n, buf.cpu.shape[0])
    held = _held(buf)
    version = buf.cpu._version
    with contexts.entered():
        view = buf.copy_to_cpu(n)
    wait(buf)  # the documented wait, before any read of .cpu
    _check_same_tensors(buf, held, call)
    _check_returned_rows(view, buf.cpu, ".cpu", rows, values, call, whole=n is None)
    if aliased:
        return
    _check_version_advanced(buf.cpu, version, ".cpu", rows, call)
    _check_rows(buf.cpu, values, before_cpu, rows, ".cpu", f"after copy_to_cpu({n}) and the documented wait", call)


def _after(after: int | None) -> str:
    return "" if after is None else f", after a call with n={after}"


@check("buffer")
def check_row_count_rejected(
    target: Target, spec: dict[str, Any], device: torch.device, n: Any, method: str, after: int | None = None
) -> None:
    """buffer: ``n`` outside ``[0, capacity]`` raises ``IndexError`` (a non-int ``n``: ``TypeError``) naming ``n``; nothing
    copied. With ``after``, the same call with the valid ``after`` rows is made first: a refusal may not depend on what
    was accepted before (held-out round r57 skipped the check for an ``n`` equal to the last valid one: ``2.0 == 2``)."""
    buf = make_buffer(target, spec, device)
    if after is not None:
        getattr(buf, method)(after)
        wait(buf)
    raises = (
        errors.ROW_COUNT_TYPE
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or isinstance(n, np.bool_)
        else errors.ROW_COUNT_RANGE
    )
    synchronize()
    if buf.cpu.numel():
        buf.cpu.view(torch.uint8).fill_(0x11)
    before = (_bytes(buf.cpu), _bytes(buf.gpu))
    earlier = "" if after is None else f".{method}({after}); buf"
    call = f"buf = {repr_spec(spec, device, target.buffer_name)}; buf{earlier}.{method}({n!r})"
    try:
        getattr(buf, method)(n)
    except raises as exc:
        if not _names_one(exc, ("n",)):
            fail(
                "buffer",
                f"n={n!r} with capacity {buf.cpu.shape[0]}{_after(after)}: the message names no argument",
                got=f"{type(exc).__name__}: {str(exc)[:200]!r}",
                expected="a message naming n",
                call=call,
            )
    except Exception as exc:  # noqa: BLE001
        hint = " (an assert: gone under python -O)" if isinstance(exc, AssertionError) else ""
        fail(
            "buffer",
            f"n={n!r} with capacity {buf.cpu.shape[0]}{_after(after)}: wrong exception type{hint}",
            got=f"{type(exc).__name__}: {exc}",
            expected=raises.__name__,
            call=call,
        )
    else:
        fail(
            "buffer",
            f"n={n!r} with capacity {buf.cpu.shape[0]}{_after(after)} accepted (Python slicing clamps it silently)",
            got="no exception",
            expected=raises.__name__,
            call=call,
        )
    synchronize()
    now = (_bytes(buf.cpu), _bytes(buf.gpu))
    if not (np.array_equal(before[0], now[0]) and np.array_equal(before[1], now[1])):
        fail("buffer", "a rejected copy still wrote rows", got="buffers changed", expected="untouched", call=call)


@check("buffer")
def check_roundtrip_bits(target: Target, spec: dict[str, Any], device: torch.device, values: torch.Tensor) -> None:
    """buffer: without ``.np`` any dtype (bfloat16, float8) makes a bit-exact cpu -> gpu -> cpu round trip."""
    buf = make_buffer(target, spec, device)
    call = repr_spec(spec, device, target.buffer_name)
    buf.cpu.copy_(values)
    buf.copy_to_gpu()
    wait(buf)
    if not host_aliased(buf):
        buf.cpu.zero_()
    buf.copy_to_cpu()
    wait(buf)
    if not np.array_equal(_bytes(buf.cpu), _bytes(values)):
        fail(
            "buffer",
            "round trip .cpu -> .gpu -> .cpu changed bits",
            got=_bytes(buf.cpu).tolist()[:4],
            expected=_bytes(values).tolist()[:4],
            call=call,
        )


@check("buffer")
def check_copy_views_fresh(target: Target, spec: dict[str, Any], device: torch.device, n: int, method: str) -> None:
    """buffer: two ``copy_to_gpu(n)`` (or ``copy_to_cpu(n)``, ``method``) calls with the same given ``n`` return two
    view objects, and an in-place change of the first's metadata (``unsqueeze_``) reaches neither the second nor the
    buffer (vLLM slices anew each call; held-out round r55 kept one view per ``n`` and returned it to every caller)."""
    buf = make_buffer(target, spec, device)
    call = (
        f"b = {repr_spec(spec, device, target.buffer_name)}; r1 = b.{method}({n}); r1.unsqueeze_(0); "
        f"r2 = b.{method}({n}); (r2 is r1, r2.shape)"
    )
    first = getattr(buf, method)(n)
    wait(buf)
    first.unsqueeze_(0)
    second = getattr(buf, method)(n)
    wait(buf)
    side = buf.gpu if method == "copy_to_gpu" else buf.cpu
    want = (n, *side.shape[1:])
    if second is first or tuple(second.shape) != want:
        fail(
            "buffer",
            f"a second {method}({n}) after the caller's unsqueeze_ of the first result",
            got=f"{'the same object' if second is first else 'another object'} of shape {tuple(second.shape)}",
            expected=f"a new view of shape {want}",
            call=call,
        )


@check("buffer")
def check_buffer_made_in_context(target: Target, context: str, device: torch.device) -> None:
    """buffer: a ``(4,)`` int32 buffer made in ``context`` (one of :data:`harness.contexts.CONTEXTS`), written through
    ``.np`` and copied with ``copy_to_gpu(3)`` after leaving it, gives what the same buffer made in the plain context
    gives: a buffer is state kept across steps, made in one (under ``inference_mode``) and used in later ones (held-out
    round r57's author: its tensors were inference tensors, which torch refuses to write outside the mode)."""
    spec = {"size": (4,), "dtype": torch.int32, "pin_memory": target.pins_host(), "with_numpy": True}
    call = (
        f"with <{contexts.describe(context)}>: buf = {repr_spec(spec, device, target.buffer_name)}; "
        "(buf.cpu, buf.gpu); buf.np[:] = [1, 2, 3, 4]; buf.copy_to_gpu(3)  # made in the context, used after it"
    )

    def use(buf: Any) -> list[int]:
        # as made (zero-initialised: held-out round r57 left the memory to torch's deterministic fill, 2**31 - 1),
        # then written through .np and copied
        wait(buf)
        initial = [int(v) for v in buf.cpu] + [int(v) for v in buf.gpu.to("cpu")]
        buf.np[:] = np.arange(1, 5, dtype=np.int32)
        view = buf.copy_to_gpu(3)
        wait(buf)
        return initial + [int(v) for v in view.to("cpu")]

    with contexts.entered("none"):
        plain = use(make_buffer(target, spec, device))
    with contexts.entered(context):
        buf = make_buffer(target, spec, device)
    try:
        got = use(buf)
    except Exception as exc:  # noqa: BLE001 - a failure after the context alone is what is reported
        fail(
            "buffer",
            f"made {contexts.describe(context)}, used after it: the copy raised",
            got=f"{type(exc).__name__}: {str(exc)[:200]}",
            expected=f"{plain} (what the buffer made in the plain context gives)",
            call=call,
        )
    if got != plain:
        fail(
            "buffer",
            f"made {contexts.describe(context)}, used after it: .cpu and .gpu as made, then copy_to_gpu(3), differ from "
            "the plain context's",
            got=got,
            expected=plain,
            call=call,
        )


@check("buffer")
def check_view_outlives_buffer(target: Target, device: torch.device, method: str) -> None:
    """buffer: the view ``copy_to_cpu(2)`` (or ``copy_to_gpu(2)``, ``method``) returned keeps its values after the
    buffer is dropped and a new buffer of the same spec is made and written: a view holds its memory, which no later
    buffer may be handed (held-out round r57 recycled a dropped buffer's host tensor, zeroed, into the next buffer of
    its size while views of it were held)."""
    spec = {"size": (4,), "dtype": torch.int32, "pin_memory": target.pins_host(), "with_numpy": True}
    made = repr_spec(spec, device, target.buffer_name)
    call = f"b = {made}; b.cpu[:] = b.gpu[:] = [1, 2, 3, 4]; r = b.{method}(2); del b; c = {made}; c.cpu[:] = 9; r"
    buf = make_buffer(target, spec, device)
    values = torch.arange(1, 5, dtype=torch.int32)
    buf.cpu.copy_(values)
    buf.gpu.copy_(values.to(buf.gpu.device))
    view = getattr(buf, method)(2)
    wait(buf)
    del buf
    gc.collect()
    other = make_buffer(target, spec, device)
    other.cpu.fill_(9)
    other.gpu.fill_(9)
    wait(other)
    got = [int(v) for v in view.to("cpu")]
    if got != [1, 2]:
        fail(
            "buffer",
            f"the view {method}(2) returned changed after its buffer was dropped and another made and written",
            got=got,
            expected=[1, 2],
            call=call,
        )
