"""Calling a target the way every contract does: valid calls, expected refusals, waiting for the device, memory snapshots.

Shared by the contract areas (``contracts/values/``, ``out.py``, ...). A valid call that
raises, or returns something that is not a tensor, is a violation of the calling
contract; an expected refusal must raise exactly the documented type, leave ``out``
untouched and name the argument at fault (docs/reference.md: errors name the
argument).
"""

from __future__ import annotations

import re
from typing import Any, cast

import numpy as np
import torch

from .oracle import resolve_dtype
from .violations import NotApplicable, fail

__all__ = [
    "ARGUMENT_NAMES",
    "call_valid",
    "check_device",
    "expect_raise",
    "has_bytes",
    "mutate",
    "raw_storage",
    "synchronize",
]

#: The arguments of ``async_tensor_h2d``: a refusal's message names at least one (whole word).
ARGUMENT_NAMES = ("data", "out", "dtype", "device")


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


def has_bytes(t: Any) -> bool:
    """Whether ``t`` is a tensor whose bytes can be read and compared: strided, not nested, not on ``meta``."""
    return isinstance(t, torch.Tensor) and t.layout == torch.strided and not t.is_nested and t.device.type != "meta"


def raw_storage(t: torch.Tensor) -> torch.Tensor:
    """A host copy of the *whole* storage behind ``t`` as bytes (views' surroundings included)."""
    synchronize(t.device)
    storage = t.untyped_storage()
    return torch.empty(0, dtype=torch.uint8, device=t.device).set_(storage).cpu().clone()


def check_device(contract: str, result: torch.Tensor, device: torch.device, call: str) -> None:
    """``result`` is on ``device``, with the same CUDA index."""
    __tracebackhide__ = True
    got = result.device
    if got.type != device.type or (device.type == "cuda" and got.index != device.index):
        fail(contract, "result device", got=got, expected=device, call=call)


def domain_kwargs(target: Any, data: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` completed into the target's domain: ``dtype`` added (the resolved one) when the target requires it.

    For contracts that write their own valid calls (``{"device": device}``): against a
    function that takes ``dtype`` as a required argument (SGLang's ``async_h2d``, vLLM <=
    0.23) the same call names the dtype it would resolve to anyway (docs/reference.md:
    ``dtype=``, else ``out.dtype``, else the data's own), so the result the contract
    expects is unchanged. ``kwargs`` itself is not modified.
    """
    if "dtype" in getattr(target, "requires", ()) and kwargs.get("dtype") is None:
        return {**kwargs, "dtype": resolve_dtype(data, kwargs)}
    return kwargs


def call_valid(contract: str, target: Any, data: Any, kwargs: dict[str, Any]) -> torch.Tensor:
    """Call the target on a *valid* input: an exception or a non-tensor result is a violation of ``contract``."""
    __tracebackhide__ = True
    if hasattr(target, "accepts_call") and not target.accepts_call(kwargs):
        missing = sorted(k for k in target.requires if kwargs.get(k) is None)
        raise NotApplicable(f"{contract}: a call without {', '.join(missing)}, which target {target.name!r} requires")
    try:
        result = target.call(data, kwargs)
    except Exception as exc:  # noqa: BLE001 - a valid call must not raise; report what it raised
        fail(
            contract,
            "a valid call raised",
            got=f"{type(exc).__name__}: {exc}",
            expected="a tensor",
            call=target.describe_call(data, kwargs),
        )
    if not isinstance(result, torch.Tensor):
        fail(
            contract,
            "return type",
            got=type(result).__name__,
            expected="torch.Tensor",
            call=target.describe_call(data, kwargs),
        )
    return result


def names_argument(target: Any, message: str, names: tuple[str, ...] = ARGUMENT_NAMES) -> bool:
    """Whether ``message`` names one of ``names`` (whole word), or the target's own name for one (:attr:`Target.arg_names`)."""
    spelled = {
        alias
        for name in names
        for alias in (target.argument_names(name) if hasattr(target, "argument_names") else (name,))
    }
    return any(re.search(rf"\b{re.escape(name)}\b", message) for name in spelled)


def expect_raise(
    contract: str,
    target: Any,
    data: Any,
    kwargs: dict[str, Any],
    raises: type[BaseException],
    why: str,
    names: tuple[str, ...] = ARGUMENT_NAMES,
) -> BaseException:
    """Call the target, require exactly the documented exception type, ``out`` untouched, a message naming one of
    ``names`` (the argument at fault; any argument by default)."""
    __tracebackhide__ = True
    call = target.describe_call(data, kwargs)
    out = kwargs.get("out")
    out = out if has_bytes(out) else None
    before = raw_storage(out) if out is not None else None
    try:
        target.call(data, kwargs)
    except raises as exc:
        caught: BaseException = exc
    except Exception as exc:  # noqa: BLE001 - any other type is the failure being reported
        hint = " (an assert: gone under python -O)" if isinstance(exc, AssertionError) else ""
        fail(
            contract,
            f"{why}: wrong exception type{hint}",
            got=f"{type(exc).__name__}: {exc}",
            expected=raises.__name__,
            call=call,
        )
    else:
        fail(contract, f"{why}: no exception", got="a result", expected=raises.__name__, call=call)
    if out is not None:
        changed = int((cast(torch.Tensor, before) != raw_storage(out)).sum())  # taken whenever out is kept
        if changed:
            fail(
                contract,
                f"{why}: the failed call wrote into out ({changed} bytes changed)",
                got="out modified",
                expected="out untouched",
                call=call,
            )
    if not names_argument(target, str(caught), names):
        fail(
            contract,
            f"{why}: the message names no argument"
            if names == ARGUMENT_NAMES
            else f"{why}: the message does not name {names[0]}",
            got=f"{type(caught).__name__}: {str(caught)[:200]!r}",
            expected=f"a message naming the argument at fault ({', '.join(names)})",
            call=call,
        )
    return caught


def mutate(data: Any) -> None:
    """Overwrite every element of ``data`` in place (list, array or tensor)."""
    if isinstance(data, torch.Tensor):
        if data.numel():
            store = torch.empty(0, dtype=torch.uint8).set_(data.untyped_storage())
            store.copy_(store ^ (1 if data.dtype is torch.bool else 0x5A))  # the whole backing store, views included
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
                mutate(v)
            else:
                data[i] = (not v) if isinstance(v, bool) else v + 1 if v == v else 0.0
    elif isinstance(data, tuple):  # immutable itself; lists nested inside it are mutated
        for v in data:
            if isinstance(v, (list, tuple, np.ndarray, torch.Tensor)):
                mutate(v)
