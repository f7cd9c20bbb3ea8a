"""Contracts of ``async_tensor_h2d`` that hold on every device (CPU and CUDA).

Catalogue ids: ``values``, ``dtype``, ``out``, ``target``, ``no-alias``, ``bad-input``,
``input-untouched`` (the snapshots themselves are in :mod:`contracts.untouched`).
Each ``check_*`` takes a :class:`~contracts.target.Target` and one concrete input, runs
the target once and raises :class:`~contracts._report.ContractViolation` naming the
contract, what differed and the call that produced it.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import numpy as np
import torch

from . import errors
from ._report import NotApplicable, fail, repro_call
from .oracle import assert_same_values, expected_tensor, own_dtype, resolve_device, resolve_dtype, storage_span
from .target import Target, run_fresh
from .untouched import InputGuard, out_bytes_outside

__all__ = [
    "check_bad_input",
    "check_dtype_mismatch_rejected",
    "check_dtype_resolution",
    "check_input_untouched",
    "check_no_alias",
    "check_no_target_rejected",
    "check_out_shape_rejected",
    "check_out_written_exactly",
    "check_values",
    "call_valid",
    "raw_storage",
    "synchronize",
]


def synchronize(device: torch.device | None = None) -> None:
    """Wait for queued CUDA work: on ``device`` if it is a CUDA device, else on *every* visible device.

    (``torch.cuda.synchronize()`` alone waits for the current device only: work queued
    on ``cuda:1`` by a cross-device contract would still be running.) No-op without CUDA.
    """
    if not torch.cuda.is_available():
        return
    if device is not None and device.type == "cuda":
        torch.cuda.synchronize(device)
        return
    for index in range(torch.cuda.device_count()):
        torch.cuda.synchronize(index)


def raw_storage(t: torch.Tensor) -> torch.Tensor:
    """A host copy of the *whole* storage behind ``t`` as bytes (views' surroundings included)."""
    synchronize(t.device)
    storage = t.untyped_storage()
    return torch.empty(0, dtype=torch.uint8, device=t.device).set_(storage).cpu().clone()


def _check_device(contract: str, result: torch.Tensor, device: torch.device, call: str) -> None:
    __tracebackhide__ = True
    got = result.device
    if got.type != device.type or (device.type == "cuda" and got.index != device.index):
        fail(contract, "result device", got=got, expected=device, call=call)


def call_valid(contract: str, target: Target, data: Any, kwargs: dict[str, Any]) -> torch.Tensor:
    """Call the target on a *valid* input: an exception or a non-tensor result is a violation of ``contract``."""
    __tracebackhide__ = True
    try:
        result = target.call(data, kwargs)
    except Exception as exc:  # noqa: BLE001 - a valid call must not raise; report what it raised
        fail(contract, "a valid call raised", got=f"{type(exc).__name__}: {exc}", expected="a tensor", call=repro_call(data, kwargs, fn=target.fn_name))
    if not isinstance(result, torch.Tensor):
        fail(contract, "return type", got=type(result).__name__, expected="torch.Tensor", call=repro_call(data, kwargs, fn=target.fn_name))
    return result


def check_values(target: Target, data: Any, kwargs: dict[str, Any]) -> torch.Tensor:
    """values: the result equals ``data`` converted to the resolved dtype, same shape, on the requested device.

    Also checks the result's device index (``cuda:1`` stays ``cuda:1``), that a result
    made without ``out`` is contiguous (any input layout), and, with ``out``, that the
    returned object *is* ``out``. Returns the result.
    """
    call = repro_call(data, kwargs, fn=target.fn_name)
    dtype = resolve_dtype(data, kwargs)
    device = resolve_device(kwargs)
    expected = expected_tensor(data, dtype)
    result = call_valid("values", target, data, kwargs)
    synchronize(device)
    _check_device("values", result, device, call)
    pure_copy = isinstance(data, (torch.Tensor, np.ndarray, np.generic)) and own_dtype(data) == dtype
    assert_same_values(result, expected, contract="values", call=call, nan_payloads=pure_copy)
    if kwargs.get("out") is None and not result.is_contiguous():
        # a fresh result is dense and row-major, as torch.tensor's (DESIGN: staged into a fresh
        # contiguous buffer); a transposed input returned with its own strides breaks .view()
        fail("values", "result is not contiguous", got=f"strides {tuple(result.stride())} for shape {tuple(result.shape)}", expected=f"strides {tuple(torch.empty(result.shape, device='meta').stride())}", call=call)
    if result.requires_grad or result.grad_fn is not None:
        # a copy for the device is data, not a step of the caller's autograd graph (torch.tensor
        # and the reference detach); an out written from a tensor that requires grad joins it
        fail("values", "the result is part of the caller's autograd graph", got=f"requires_grad={result.requires_grad}, grad_fn={type(result.grad_fn).__name__ if result.grad_fn is not None else None}", expected="requires_grad=False, grad_fn=None (a detached copy)", call=call)
    return result


def check_dtype_resolution(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """dtype: explicit ``dtype`` wins, else ``out.dtype``, else the data's own (torch.tensor's inference)."""
    call = repro_call(data, kwargs, fn=target.fn_name)
    expected = resolve_dtype(data, kwargs)
    result = call_valid("dtype", target, data, kwargs)
    synchronize()
    if result.dtype != expected:
        source = "dtype=" if kwargs.get("dtype") is not None else "out.dtype" if kwargs.get("out") is not None else "the data's own dtype"
        fail("dtype", f"result dtype (should come from {source})", got=result.dtype, expected=expected, call=call)


def _expect_raise(
    contract: str,
    target: Target,
    data: Any,
    kwargs: dict[str, Any],
    raises: type[BaseException],
    why: str,
) -> BaseException:
    """Call the target, require exactly the documented exception type, and that ``out`` is untouched."""
    __tracebackhide__ = True
    call = repro_call(data, kwargs, fn=target.fn_name)
    guard = InputGuard(None, kwargs)  # out's storage only: the caller's data is input-untouched's business
    try:
        target.call(data, kwargs)
    except raises as exc:
        caught: BaseException = exc
    except Exception as exc:  # noqa: BLE001 - any other type is the failure being reported
        kind = type(exc).__name__
        hint = " (an assert: gone under python -O)" if isinstance(exc, AssertionError) else ""
        fail(contract, f"{why}: wrong exception type{hint}", got=f"{kind}: {exc}", expected=raises.__name__, call=call)
    else:
        fail(contract, f"{why}: no exception", got="a result", expected=raises.__name__, call=call)
    if guard.out is not None:
        changed = int((guard.out_before != raw_storage(guard.out)).sum())
        if changed:
            fail(contract, f"{why}: the failed call wrote into out ({changed} bytes changed)", got="out modified", expected="out untouched", call=call)
    if not any(re.search(rf"\b{name}\b", str(caught)) for name in ARGUMENT_NAMES):
        # the brief: bad input gets "a clear exception naming the argument"
        fail(contract, f"{why}: the message names no argument", got=f"{type(caught).__name__}: {str(caught)[:200]!r}", expected=f"a message naming the argument at fault ({', '.join(ARGUMENT_NAMES)})", call=call)
    return caught


#: The arguments of ``async_tensor_h2d``: a refusal's message names at least one (whole word).
ARGUMENT_NAMES = ("data", "out", "dtype", "device")


def check_dtype_mismatch_rejected(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """dtype: ``dtype=`` disagreeing with ``out.dtype`` raises ``TypeError`` (not an assert) and writes nothing."""
    target.require("out", "dtype")
    _expect_raise("dtype", target, data, kwargs, errors.DTYPE_MISMATCH, "dtype disagrees with out.dtype")


def check_no_target_rejected(target: Target, data: Any) -> None:
    """target: neither ``device`` nor ``out`` given raises ``TypeError``."""
    _expect_raise("target", target, data, {}, errors.NO_TARGET, "neither device nor out given")


def check_out_written_exactly(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """out: returns the very ``out``; writes exactly its elements (the storage around a view is untouched)."""
    target.require("out", "out")
    out = kwargs["out"]
    call = repro_call(data, kwargs, fn=target.fn_name)
    before = raw_storage(out)
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    result = call_valid("out", target, data, kwargs)
    if result is not out:
        fail("out", "return value is not the out object", got=f"a different tensor (id {id(result)})", expected=f"out (id {id(out)})", call=call)
    synchronize(out.device)
    assert_same_values(out, expected, contract="out", call=call)
    # out's own elements were checked just above (NaN payloads forgiven, as everywhere);
    # every other byte of its storage must be as before.
    diff = out_bytes_outside(out, before, raw_storage(out))
    if diff:
        fail("out", "bytes outside out's own elements changed", got=f"{diff} bytes differ", expected="only out's elements written", call=call)


def check_out_shape_rejected(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """out: any shape mismatch, broadcastable ones included, raises ``ValueError`` and leaves ``out`` untouched."""
    target.require("out", "out")
    _expect_raise("out", target, data, kwargs, errors.SHAPE_MISMATCH, f"out.shape={tuple(kwargs['out'].shape)} vs data shape {tuple(np.shape(data)) if not isinstance(data, torch.Tensor) else tuple(data.shape)}")


def _mutate(data: Any) -> None:
    """Overwrite every element of ``data`` in place (list, array or tensor)."""
    if isinstance(data, torch.Tensor):
        if data.numel():
            base = torch.empty(0, dtype=torch.uint8).set_(data.untyped_storage())
            base.copy_(base ^ (1 if data.dtype is torch.bool else 0x5A))  # the whole backing store, views included
    elif isinstance(data, np.ndarray):
        base = data
        while isinstance(base.base, np.ndarray):
            base = base.base
        if not base.flags.writeable and base.flags.owndata:
            base.setflags(write=True)  # read-only arrays we built ourselves can be re-opened
        if base.flags.writeable and base.size:
            dense = base if base.flags.c_contiguous else base.T if base.flags.f_contiguous else None
            raw = dense.view(np.uint8) if dense is not None else None
            if raw is not None:
                raw ^= 1 if base.dtype == np.bool_ else 0x5A
    elif isinstance(data, list):
        for i, v in enumerate(data):
            if isinstance(v, (list, tuple, np.ndarray, torch.Tensor)):
                _mutate(v)
            else:
                data[i] = (not v) if isinstance(v, bool) else v + 1 if v == v else 0.0
    elif isinstance(data, tuple):  # immutable itself; lists nested inside it are mutated
        for v in data:
            if isinstance(v, (list, tuple, np.ndarray, torch.Tensor)):
                _mutate(v)


def check_no_alias(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """no-alias: the result shares no memory with ``data`` (also on the CPU path); mutating ``data`` afterwards changes nothing."""
    call = repro_call(data, kwargs, fn=target.fn_name)
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    result = call_valid("no-alias", target, data, kwargs)
    synchronize()
    span_in, span_out = storage_span(data), storage_span(result)
    if span_in and span_out and span_in[0] < span_out[1] and span_out[0] < span_in[1] and result.numel():
        fail("no-alias", "result memory overlaps the input's", got=f"result {span_out} vs data {span_in}", expected="disjoint", call=call)
    snapshot = copy.deepcopy(data) if isinstance(data, (list, tuple)) else None
    _mutate(data)
    synchronize()
    assert_same_values(result, expected, contract="no-alias", call=call + "  # then data was overwritten")
    if snapshot is not None:
        data[:] = snapshot


def check_bad_input(target: Target, data: Any, kwargs: dict[str, Any], raises: type[BaseException], kind: str) -> None:
    """bad-input: the documented exception type (exactly), and ``out`` untouched."""
    if kwargs.get("out") is not None and "out" not in target.capabilities:
        target.require("out", "bad-input")
    _expect_raise("bad-input", target, data, kwargs, raises, f"bad input {kind!r}")


def check_input_untouched(
    target: Target,
    data: Any,
    kwargs: dict[str, Any],
    *,
    raises: type[BaseException] | None = None,
) -> None:
    """input-untouched: ``data`` (list and every nested list, tuple, ndarray, tensor) is bit-identical after the call,
    and only ``out``'s own elements were written (nothing at all when the call failed).

    ``raises``: None for a valid call, else the exception type the failing call should
    raise. Whether the call succeeds or which exception it raises is the business of
    the values / bad-input contracts; here only the inputs matter: a call that returned
    is judged as a valid call (only ``out``'s own elements may change), one that raised
    as a failing call (nothing may change).
    """
    del raises  # documents the caller's intent; the outcome decides what may change
    call = repro_call(data, kwargs, fn=target.fn_name)
    guard = InputGuard(data, kwargs)
    try:
        target.call(data, kwargs)
    except Exception:  # noqa: BLE001 - see above
        failed = True
    else:
        failed = False
    synchronize()
    guard.verify("input-untouched", valid=not failed, call=call)


#: Inputs whose first conversion in a process makes torch warn once (TORCH_WARN_ONCE): a
#: read-only ndarray (``torch.from_numpy``: "The given NumPy array is not writable") and a
#: list of ndarrays (``torch.tensor``: "Creating a tensor from a list of numpy.ndarrays is
#: extremely slow"). A warning filter set wrongly around those conversions
#: (``simplefilter("ignore", None)``: the filter machinery then raises TypeError) changes
#: only the first such call of a process: the contract suite's mutation runs killed one
#: such mutant at 0264e68 and not at 2bda062, as the order of earlier tests decided.
FIRST_CALL_CASES = ("read-only int32 ndarray", "list of an int32 and a float32 ndarray")


def _first_call_inputs() -> list[Any]:
    ro = np.arange(5, dtype=np.int32)
    ro.flags.writeable = False
    return [ro, [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.float32) + 0.5]]


_FIRST_CALL_SCRIPT = """
import json, sys
from h2d_contracts.contracts import load_target
from h2d_contracts.contracts.h2d import FIRST_CALL_CASES, _first_call_inputs
spec, device = sys.argv[1], sys.argv[2]
target = load_target(spec)
found = []
for what, data in zip(FIRST_CALL_CASES, _first_call_inputs()):  # the target first: nothing else has warned yet
    try:
        got = target.call(data, {"device": device})
        found.append([what, str(got.dtype), got.cpu().tolist(), None])
    except Exception as exc:  # noqa: BLE001 - reported by the parent
        found.append([what, None, None, f"{type(exc).__name__}: {exc}"])
print("H2D-FIRST " + json.dumps(found))
"""


def check_values_first_call(target: Target, device: torch.device, *, timeout_s: float = 120.0) -> None:
    """values: the first call of its kind in a fresh process (torch's once-per-process warnings) gives the right result.

    Loads the target by its ``--h2d-impl`` spec in a fresh interpreter (``run_fresh``) and
    calls it first with each of :data:`FIRST_CALL_CASES`; the results (dtype, values) must
    equal the oracle's, computed here. Raises NotApplicable for a target without a spec
    (built in-process, or the CPU-platform variant of one: no spec loads it alone).
    """
    if not target.spec:
        raise NotApplicable(f"values (first call): needs a fresh process that loads the target by its --h2d-impl spec; target {target.name!r} has none")
    found = run_fresh("values (first call)", _FIRST_CALL_SCRIPT, [target.spec, str(device)], "H2D-FIRST ", timeout_s=timeout_s)
    for (what, dtype, values, error), data in zip(found, _first_call_inputs()):
        kwargs = {"device": device}
        call = repro_call(data, kwargs, fn=target.fn_name) + "  # the first such call in a fresh process"
        expected = expected_tensor(data, resolve_dtype(data, kwargs))
        if error is not None:
            fail("values", f"a valid call raised when it was the first {what} of the process", got=error, expected="a tensor", call=call)
        if dtype != str(expected.dtype) or values != expected.tolist():
            fail("values", f"the first {what} of a process converts differently", got=f"{dtype} {values}", expected=f"{expected.dtype} {expected.tolist()}", call=call)
