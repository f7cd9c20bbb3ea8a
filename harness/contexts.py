"""The calling contexts engines run the helpers in, as an axis of the host contracts.

Serving engines call ``async_tensor_h2d`` and ``CpuGpuBuffer`` under
``torch.inference_mode()`` (vLLM's model runners) or ``torch.no_grad()``, and a process
may have a default device set (``with torch.device(...)``, ``torch.set_default_device``).
A helper must behave the same in each: a check written for one mode (an inference
``out`` refused only while grad is enabled) lets ``out`` be written and then torch raises.

A property of the contracts in :data:`CONTEXT_CONTRACTS` draws one of :data:`CONTEXTS`
per example (label ``calling context``; shrinking goes to ``none``);
:func:`calling_context` makes it the *ambient* context of this thread, and every call the
kit makes into the target (:meth:`contracts.targets.Target.call`, buffer construction and
copies) runs inside :func:`entered` of it, while the kit's own work (drawing inputs, the
oracle, comparing) stays outside. A violation's reproduction records the context and
runs its check under :func:`calling_context` again; its ``call:`` line notes it.

``positional`` is the plain call with its arguments by position, as vLLM's call sites
write them (``async_tensor_h2d(ids, "cuda")``): :meth:`Target.call` passes the target's
:attr:`~harness.target.Target.positional` arguments by position (none for a keyword-only
target such as SGLang's ``async_h2d``), and the ``call:`` line shows them so.

``deterministic`` is ``torch.use_deterministic_algorithms(True)`` (an engine asked for reproducible runs): an op
without a deterministic implementation raises there (``put_``, ``index_put_`` with accumulation; held-out round
r40 wrote staged writes with ``put_``).

``default_device`` is ``torch.device("meta")``: a helper that builds its host tensor on
the default device (``torch.tensor(data)`` with no device) gets a meta tensor and fails
on any machine, CI's CPU included. What the reference does in each context:
docs/reference.md ("Calling contexts").
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import torch

__all__ = ["CONTEXTS", "CONTEXT_CONTRACTS", "ambient", "calling_context", "describe", "entered"]

#: The contexts drawn, the plain call first (what shrinking goes to).
CONTEXTS = ("none", "no_grad", "inference_mode", "default_device", "positional", "deterministic")
#: The contracts whose drawn properties run their calls in a drawn context.
CONTEXT_CONTRACTS = frozenset({"values", "dtype", "out", "bad-input", "input-untouched", "buffer", "side-effects"})

_STATE = threading.local()


def ambient() -> str:
    """This thread's ambient calling context (``none`` outside :func:`calling_context`)."""
    return getattr(_STATE, "name", "none")


@contextlib.contextmanager
def calling_context(name: str) -> Iterator[None]:
    """Make ``name`` (one of :data:`CONTEXTS`) the ambient context of this thread for the block.

    Raises:
        ValueError: ``name`` is not one of :data:`CONTEXTS`.
    """
    if name not in CONTEXTS:
        raise ValueError(f"name must be one of {CONTEXTS}, got {name!r}")
    _warm(name)
    before = ambient()
    _STATE.name = name
    try:
        yield
    finally:
        _STATE.name = before


_WARMED: set[str] = set()


def _warm(name: str) -> None:
    """Enter and leave ``name``'s torch context once per process, before any call is judged in it.

    Entering a context for the first time can change process-wide state by itself: torch's first
    ``use_deterministic_algorithms(True)`` imports sympy, whose import adds a warnings filter. Warmed here, outside
    every call the kit makes into a target, so the side-effects contract never blames a target for the kit's context
    (CI's SGLang run, 2026-12-03: a ``once`` SymPyDeprecationWarning filter reported as the target's).
    """
    if name not in _WARMED:
        with entered(name):
            pass
        _WARMED.add(name)


def entered(name: str | None = None) -> contextlib.AbstractContextManager[object]:
    """The torch context of ``name`` (default: the ambient one), to enter around one call into the target."""
    name = ambient() if name is None else name
    if name == "no_grad":
        return torch.no_grad()
    if name == "inference_mode":
        return torch.inference_mode()
    if name == "default_device":
        return torch.device("meta")
    if name == "deterministic":
        return _deterministic_algorithms()
    return contextlib.nullcontext()


@contextlib.contextmanager
def _deterministic_algorithms() -> Iterator[None]:
    """``torch.use_deterministic_algorithms(True)`` for the block, the process's setting (and its warn_only) restored."""
    before, warn_only = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before, warn_only=warn_only)


def describe(name: str | None = None) -> str:
    """The context as Python source for a ``call:`` line's note ('' for none)."""
    name = ambient() if name is None else name
    return {
        "no_grad": "under torch.no_grad()",
        "inference_mode": "under torch.inference_mode()",
        "default_device": "under torch.device('meta') as the default device",
        "deterministic": "under torch.use_deterministic_algorithms(True)",
    }.get(name, "")
