"""Constructor arguments the buffer must refuse: a ``TypeError`` or ``ValueError`` (never an assert) naming the
argument at fault, and ``with_numpy=True`` for a dtype numpy lacks."""

from __future__ import annotations

import re
from typing import Any

import torch

from h2d_contracts.harness import contexts
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import fail

from .build import _construct, constructor_call, repr_spec

#: The arguments of ``CpuGpuBuffer(*size, dtype, device, pin_memory, with_numpy)``: a refusal's
#: message names at least one (whole word); ``copy_to_gpu(n)``/``copy_to_cpu(n)`` refusals name ``n``.
BUFFER_ARGUMENT_NAMES = ("size", "dtype", "device", "pin_memory", "with_numpy")


def _names_one(exc: BaseException, names: tuple[str, ...]) -> bool:
    return any(re.search(rf"\b{name}\b", str(exc)) for name in names)


@check("buffer")
def check_buffer_rejected(
    target: Target, args: tuple[Any, ...], kwargs: dict[str, Any], raises: type[BaseException], why: str
) -> None:
    """buffer: invalid constructor arguments raise ``raises`` (``TypeError`` or ``ValueError``, never an assert) naming the argument.

    ``args``/``kwargs`` are passed to ``target.buffer_cls`` as given; ``why`` names the row
    (it goes into the ``got`` part of a failure, so rows failing the same way are one kind).
    """
    target.require("buffer", "buffer")
    call = constructor_call(target, args, kwargs)
    try:
        with contexts.entered():
            target.buffer_cls(*args, **kwargs)  # type: ignore[misc]
    except raises as exc:
        if not _names_one(exc, BUFFER_ARGUMENT_NAMES):
            # the brief: bad input gets "a clear exception naming the argument"
            fail(
                "buffer",
                "a bad constructor argument: the message names no argument",
                got=f"{why}: {type(exc).__name__}: {str(exc)[:200]!r}",
                expected=f"a message naming the argument at fault ({', '.join(BUFFER_ARGUMENT_NAMES)})",
                call=call,
            )
        return
    except Exception as exc:  # noqa: BLE001
        hint = " (an assert: gone under python -O)" if isinstance(exc, AssertionError) else ""
        fail(
            "buffer",
            f"a bad constructor argument: wrong exception type{hint}",
            got=f"{type(exc).__name__} ({why}): {str(exc)[:200]}",
            expected=raises.__name__,
            call=call,
        )
    fail(
        "buffer",
        "a bad constructor argument: no exception",
        got=f"a buffer ({why})",
        expected=raises.__name__,
        call=call,
    )


@check("buffer")
def check_numpy_view_rejected(target: Target, spec: dict[str, Any], device: torch.device) -> None:
    """buffer: ``with_numpy=True`` for a dtype numpy lacks (bfloat16, float8) raises ``ValueError`` naming ``dtype`` or ``with_numpy``."""
    target.require("buffer", "buffer")
    call = repr_spec(spec, device, target.buffer_name)
    try:
        _construct(target, spec, device)
    except ValueError as exc:
        if not _names_one(exc, ("dtype", "with_numpy")):
            fail(
                "buffer",
                "numpy view of a dtype numpy lacks: the message names no argument",
                got=f"ValueError: {str(exc)[:200]!r}",
                expected="a message naming dtype or with_numpy",
                call=call,
            )
        return
    except Exception as exc:  # noqa: BLE001
        fail(
            "buffer",
            "numpy view of a dtype numpy lacks: wrong exception type",
            got=f"{type(exc).__name__}: {exc}",
            expected="ValueError",
            call=call,
        )
    fail("buffer", "numpy view of a dtype numpy lacks: no exception", got="a buffer", expected="ValueError", call=call)
