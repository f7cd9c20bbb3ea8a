"""Contract ``bad-input``: every kind of bad input raises its documented exception type, names the argument, writes nothing.

The kinds and their types are :data:`strategies.errors.BAD_INPUT_KINDS` (59 kinds: wrong
kinds of data, ragged lists, values the target dtype cannot hold carried by every source
kind and route, bad ``out``, ``dtype`` and ``device`` arguments). The type must be exactly
the documented one, the message must name the argument at fault (``data``, ``out``,
``dtype`` or ``device``, or the target's own name for it), and ``out`` stays untouched.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness import contexts
from h2d_contracts.harness.calling import ARGUMENT_NAMES, call_valid, check_device, domain_kwargs, expect_raise
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.domain import in_domain
from h2d_contracts.harness.oracle import assert_same_values, resolve_device
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import DEFAULT_EXAMPLES, Rows, require_device, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable
from h2d_contracts.strategies import errors

__all__ = ["check_bad_input"]


@check("bad-input")
def check_bad_input(target: Target, data: Any, kwargs: dict[str, Any], raises: type[BaseException], kind: str) -> None:
    """bad-input: the documented exception type (exactly), and ``out`` untouched.

    Under the drawn calling context (:mod:`harness.contexts`), except that an inference
    ``out`` drawn under ``inference_mode`` is tried under ``no_grad``: torch refuses an
    inference tensor's in-place update outside inference mode only, so inside it the call
    is valid (docs/reference.md, calling contexts).
    """
    out = kwargs.get("out")
    if out is not None and "out" not in target.capabilities:
        target.require("out", "bad-input")
    # a fault in out alone: the message names out; a keyword no signature has: the message names that keyword
    names = ("out",) if kind in errors.OUT_KINDS else tuple(sorted(set(kwargs) - set(ARGUMENT_NAMES))) or ARGUMENT_NAMES
    if contexts.ambient() == "inference_mode" and isinstance(out, torch.Tensor) and out.is_inference():
        with contexts.calling_context("no_grad"):
            expect_raise("bad-input", target, data, kwargs, raises, f"bad input {kind!r}", names)
        return
    expect_raise("bad-input", target, data, kwargs, raises, f"bad input {kind!r}", names)


@prop("bad-input")
def prop_bad_input_value_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """bad-input: every value-range kind (NaN/inf/out of range/complex/unsigned) x list, ndarray, tensor x out=, dtype=, and
    every int past int64 beside a NaN, inf or float in a list (a table)."""
    require_device(target, device, "bad-input")
    del overrides  # deterministic: every row every run
    with_out = "out" in target.capabilities
    rows = Rows("bad-input value table")
    for bad in hs.value_bad_inputs_table(device):
        if "out" in bad.kwargs and not with_out:
            continue
        rows.row(
            check_bad_input,
            target,
            bad.data,
            bad.kwargs,
            bad.raises,
            f"{bad.kind} as a {type(bad.data).__name__}{_size(bad.data)} via {_route(bad.kwargs)}",
        )
    rows.finish()


def _size(data: Any) -> str:
    n = (
        len(data)
        if isinstance(data, list)
        else int(np.prod(data.shape))
        if isinstance(data, (np.ndarray, torch.Tensor))
        else 0
    )
    return f" of {n:,} elements" if n > 3 else ""


def _route(kwargs: dict[str, Any]) -> str:
    return "out=" if "out" in kwargs else "dtype=" if "dtype" in kwargs else "its own dtype"


def device_spellings(device: torch.device) -> list[Any]:
    """Every valid spelling of ``device``: for the host ``"cpu"``, ``torch.device("cpu")``, ``"cpu:0"`` and
    ``torch.device("cpu", 0)``; for ``cuda:i`` the int ``i``, ``np.int64(i)``, ``"cuda:i"``, ``torch.device("cuda", i)``
    and, for the current device, bare ``"cuda"``."""
    if device.type != "cuda":
        return ["cpu", torch.device("cpu"), "cpu:0", torch.device("cpu", 0)]
    index = device.index if device.index is not None else torch.cuda.current_device()
    spellings: list[Any] = [index, np.int64(index), f"cuda:{index}", torch.device("cuda", index)]
    return spellings + (["cuda"] if index == torch.cuda.current_device() else [])


def _warm_calls(target: Target, device: torch.device) -> list[tuple[Any, dict[str, Any], torch.Tensor]]:
    """Valid calls over every spelling of ``device``, kinds of data, dtypes and shapes: ``(data, kwargs, expected)``."""
    calls: list[tuple[Any, dict[str, Any], torch.Tensor]] = []
    for i, spelling in enumerate(device_spellings(device)):
        if "list" in target.inputs:
            calls.append(
                (
                    [1, 2, 3 + i],
                    {"device": spelling, "dtype": torch.int32},
                    torch.tensor([1, 2, 3 + i], dtype=torch.int32),
                )
            )
        if "ndarray" in target.inputs:
            arr = np.array([[1.5, -2.0], [0.25, float(i)]], dtype=np.float32)
            calls.append((arr, domain_kwargs(target, arr, {"device": spelling}), torch.from_numpy(arr.copy())))
        if "tensor" in target.inputs:
            t = torch.arange(4 + i, dtype=torch.int64)
            calls.append((t, domain_kwargs(target, t, {"device": spelling}), t.clone()))
    # lists whose leaves are numpy scalars or arrays, nested, with no dtype: the dtype scan of the leaves runs (and can
    # stop early on the first typed leaf: held-out round r40 kept its unscanned levels for the next call)
    for data, own in (
        ([[np.float32(1)], [np.float32(2)]], torch.float32),
        ([np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)], torch.int32),
    ):
        kw = domain_kwargs(target, data, {"device": device})
        if in_domain(target, data, kw):
            calls.append((data, kw, torch.tensor(np.array(data), dtype=kw.get("dtype") or own)))
    if "out" in target.capabilities and "list" in target.inputs:
        out = torch.zeros(3, dtype=torch.int64, device=device)
        calls.append(([4, 5, 6], domain_kwargs(target, [4, 5, 6], {"out": out}), torch.tensor([4, 5, 6])))
    return calls


@check("bad-input")
def check_bad_input_after_warm_calls(
    target: Target, device: torch.device, data: Any, kwargs: dict[str, Any], raises: type[BaseException], kind: str
) -> None:
    """bad-input, after valid calls that fill whatever the target caches: every spelling of ``device`` (int, numpy
    int, str, ``torch.device``, bare ``"cuda"``), lists, arrays and tensors of several dtypes and shapes, an ``out``.
    Then the bad call must still be refused as documented (:func:`check_bad_input`: a resolved-device cache keyed
    so that ``False == 0`` accepts ``device=False`` once ``device=0`` was resolved), and the valid calls made again
    must still give their values (a failing call leaves the caches as they were)."""
    warm = _warm_calls(target, device)
    for args, kw, _ in warm:
        call_valid("bad-input", target, args, kw)
    check_bad_input(target, data, kwargs, raises, kind)
    for args, kw, expected in warm:
        result = call_valid("bad-input", target, args, kw)
        call = target.describe_call(args, kw) + f"  # after the bad input {kind!r}"
        check_device("bad-input", result, resolve_device(kw), call)
        assert_same_values(result, expected, contract="bad-input", call=call)


@prop("bad-input", table=True)
def prop_bad_input_device_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """bad-input: every bad spelling of a device (both bools and numpy's, an index past the visible devices as a str,
    an int, a numpy int and a ``torch.device``, a negative index, a CPU index, a bad string, meta), each after
    valid calls over every good spelling (:func:`check_bad_input_after_warm_calls`): a table, so a device cache keyed
    by value alone (``False == 0``) is met every run."""
    require_device(target, device, "bad-input")
    del overrides  # deterministic: every row every run
    data: Any = [1, 2, 3] if "list" in target.inputs else np.arange(3, dtype=np.int32)
    if not in_domain(target, data, {"device": device, "dtype": torch.int32}):
        raise NotApplicable("bad-input device table: the target takes neither lists nor arrays")
    past = torch.cuda.device_count() if torch.cuda.is_available() else 0
    rows = Rows("bad-input device table")
    spellings: list[tuple[str, Any]] = [
        ("device-bool", False),
        ("device-bool", True),
        ("device-bool", np.bool_(False)),
        ("device-bool", np.bool_(True)),
        ("missing-cuda-index", f"cuda:{past}"),
        ("missing-cuda-index", past),
        ("missing-cuda-index", np.int64(past)),
        ("missing-cuda-index", torch.device("cuda", past)),
        ("negative-device-index", -1),
        ("cpu-device-index", "cpu:1"),
        ("bad-device-string", "gpu:0"),
        # the held-out round r46: spellings torch's device parser refuses that a "friendly" resolver folds
        # (case, surrounding whitespace) into a valid one
        ("bad-device-string", "CPU"),
        ("bad-device-string", "Cuda:0"),
        ("bad-device-string", " cpu"),
        ("bad-device-string", "cpu "),
        ("meta-device", "meta"),
    ]
    for kind, spelled in spellings:
        kwargs = {"device": spelled, "dtype": torch.int32}
        raises = errors.BAD_INPUT_KINDS[kind]
        rows.row(
            check_bad_input_after_warm_calls,
            target,
            device,
            data,
            kwargs,
            raises,
            f"{kind}: {type(spelled).__name__} {spelled}",
        )
    rows.finish()


@prop("bad-input", table=True)
def prop_bad_input_kinds_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """bad-input: every kind's simplest case (:func:`~h2d_contracts.strategies.bad_inputs_table`), cold and after valid
    calls that warm the target's caches: a table, so each kind is met every run, not when a draw reaches it."""
    require_device(target, device, "bad-input")
    del overrides  # deterministic: every row every run
    rows = Rows("bad-input kinds table")
    for bad in hs.bad_inputs_table(device):  # a row with data the target does not declare is counted outside
        rows.row(check_bad_input, target, bad.data, bad.kwargs, bad.raises, bad.kind)
        rows.row(check_bad_input_after_warm_calls, target, device, bad.data, bad.kwargs, bad.raises, bad.kind)
    rows.finish()


@prop("bad-input", cap=10)
def prop_bad_input(
    target: Target, device: torch.device, kinds: tuple[str, ...] | None = None, **overrides: Any
) -> None:
    """bad-input: each catalogue kind raises its documented exception type, out untouched; drawn cold or after
    valid calls that warm the target's caches (:func:`check_bad_input_after_warm_calls`)."""
    require_device(target, device, "bad-input")
    seen = {"inside": 0, "outside": 0}

    def body(data: st.DataObject) -> None:
        bad = data.draw(hs.bad_inputs(device, kinds=kinds), label="bad input")
        if not in_domain(target, bad.data, bad.kwargs):
            seen["outside"] += 1  # data of a kind the target does not declare: not applicable
            return
        seen["inside"] += 1
        if data.draw(st.booleans(), label="after warm calls"):
            check_bad_input_after_warm_calls(target, device, bad.data, bad.kwargs, bad.raises, bad.kind)
        else:
            check_bad_input(target, bad.data, bad.kwargs, bad.raises, bad.kind)

    def after() -> None:
        if not seen["inside"] and seen["outside"]:
            raise NotApplicable(
                f"bad-input {kinds or ''}: every drawn input lies outside target {target.name!r}'s declared inputs {sorted(target.inputs)}"
            )

    # one kind (the suite's tests): the registered cap; every kind at once: the profile's examples
    run_given(body, overrides, cap=None if kinds and len(kinds) == 1 else DEFAULT_EXAMPLES, after=after)
