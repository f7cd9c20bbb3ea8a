"""What the Model Runner V2 contracts share: the target's classes, a refusal judge, the devices readers run on."""

from __future__ import annotations

import re
from typing import Any

import torch

from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail

__all__ = ["READER_BUSY_MS", "device_str", "pool_device", "refused", "utils"]

#: Work queued before each reader of a pool step or a UVA view on CUDA, ms (a reader that ran at call time would
#: read the host's bytes before the host's next writes; behind this it reads them after).
READER_BUSY_MS = 20.0


def utils(target: Target, contract: str, name: str) -> Any:
    """The class ``name`` of the target's ``buffer_utils``; NotApplicable when the target has no such class."""
    target.require("buffer-utils", contract)
    cls = getattr(target.buffer_utils, name, None)
    if cls is None:
        raise NotApplicable(f"contract '{contract}' needs buffer_utils.{name}, which target '{target.name}' lacks")
    return cls


def refused(
    contract: str, fn: Any, raises: tuple[type[Exception], ...], names: tuple[str, ...], what: str, call: str
) -> None:
    """``fn()`` must raise one of ``raises`` whose message names one of ``names`` as a word (never an ``assert``)."""
    expected = " or ".join(r.__name__ for r in raises) + (f" naming {' or '.join(names)}" if names else "")
    try:
        fn()
    except raises as exc:
        if names and not any(re.search(rf"\b{re.escape(n)}\b", str(exc)) for n in names):
            fail(
                contract,
                f"{what}: the refusal names no argument",
                got=f"{type(exc).__name__}: {exc}",
                expected=expected,
                call=call,
            )
    except Exception as exc:  # noqa: BLE001 - any other type is the failure being reported
        hint = " (an assert: gone under python -O)" if isinstance(exc, AssertionError) else ""
        fail(
            contract,
            f"{what}: wrong exception type{hint}",
            got=f"{type(exc).__name__}: {exc}",
            expected=expected,
            call=call,
        )
    else:
        fail(contract, f"{what}: accepted", got="no exception", expected=expected, call=call)


def pool_device() -> torch.device:
    return torch.device(f"cuda:{torch.cuda.current_device()}") if torch.cuda.is_available() else torch.device("cpu")


def device_str(device: torch.device) -> str:
    return str(device) if device.type == "cpu" or device.index is not None else f"cuda:{torch.cuda.current_device()}"


def fused_tables(tensors: list[Any], device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """The pointer and row-stride tables of ``tensors``, as vLLM's block tables pass them: each ``.gpu``'s address as
    uint64 and its ``stride(0)`` as int64, on ``device``."""
    return (
        torch.tensor([t.gpu.data_ptr() for t in tensors], dtype=torch.uint64, device=device),
        torch.tensor([t.gpu.stride(0) for t in tensors], dtype=torch.int64, device=device),
    )
