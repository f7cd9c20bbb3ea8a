"""The ``@check(contract)`` decorator every ``check_*`` function wears.

A check is one plain function, ``check_<what>(target, *args, **kwargs)``, that calls the
target on one concrete input and raises :class:`~harness.violations.ContractViolation`
when the contract does not hold. The decorator makes every failure of a check act the
same way, whoever calls it (a property, a table, a regression test, a user's script):

- on entry it snapshots the arguments (:func:`harness.repro.capture`), so the failing
  input can be rebuilt exactly even when the call or the check changed it afterwards;
- a violation leaving the check gets ``repro`` (a script that loads the target by its
  ``--h2d-impl`` spec, rebuilds the arguments and calls this check again), ``check`` (the
  check's name) and ``input_class`` (the kind of input: part of the failure's kind, see
  :func:`harness.violations.problem_key`); a violation of a nested check keeps the
  innermost check's (it reproduces exactly what failed);
- any other exception escaping the check (the target raised where the check did not
  expect it, e.g. inside ``buf.copy_to_gpu(n)``) becomes a violation of the check's
  contract naming the exception, with its reproduction: a failure with no contract id or
  no reproduction does not exist. A kit error shows in the verification (the same script
  fails on the reference too).
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import torch

from h2d_contracts.strategies.describe import describe_call

from .calling import domain_kwargs
from .domain import data_kind, in_domain
from .repro import Captured, capture, write_script
from .violations import ContractViolation, KitError, NotApplicable, OutOfDomain

__all__ = ["CHECKS", "check", "current_call", "input_class", "reproduce"]

F = TypeVar("F", bound=Callable[..., Any])

#: thread ident -> the checks running in that thread, innermost last (a dict, not a threading.local: a
#: timer thread reads the main thread's stack to name the call a hung test was making).
_STACKS: dict[int, list[_Frame]] = {}

#: check name -> its catalogue id, filled by :func:`check` (what a test calling it exercises).
CHECKS: dict[str, str] = {}


class _Frame:
    __slots__ = ("func", "contract", "target", "captured", "args", "kwargs")

    def __init__(
        self, func: Callable[..., Any], contract: str, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        self.func, self.contract, self.target = func, contract, target
        self.args, self.kwargs = args, kwargs
        self.captured: Captured | None = None
        try:
            self.captured = capture(args, kwargs)
        except Exception:  # noqa: BLE001 - a snapshot that fails must not change the check's outcome
            self.captured = None

    def attach(self, exc: ContractViolation) -> None:
        if exc.has_repro():
            return
        exc.check = self.func.__name__
        exc.input_class = input_class(self.args, self.kwargs)
        spec = getattr(self.target, "spec", "") or ""
        if not spec:
            exc.repro = f"# not reproducible as a script: target {getattr(self.target, 'name', '?')!r} has no --h2d-impl spec (it was built in-process)\n"
            return
        captured = self.captured
        if captured is None:
            exc.repro = "# not reproducible as a script: the arguments could not be captured\n"
            return
        header = "\n".join(f"# {line}" for line in str(exc).splitlines()[:6])
        check_module, check_name = self.func.__module__, self.func.__name__

        def write() -> tuple[str, str]:
            try:
                return write_script(
                    captured, check_module=check_module, check_name=check_name, spec=spec, header=header
                )
            except Exception as error:  # noqa: BLE001 - never let the reproduction hide the violation
                return f"# the reproduction could not be written: {type(error).__name__}: {error}\n", "not written"

        exc.defer_repro(write)


def _stack() -> list[_Frame]:
    return _STACKS.setdefault(threading.get_ident(), [])


def check(contract: str, *, valid_call: bool = False) -> Callable[[F], F]:
    """Mark ``check_*(target, ...)`` as a check of catalogue id ``contract`` (see the module docstring).

    ``valid_call``: the check makes one valid call ``(target, data, kwargs, ...)``; against a
    target that requires ``dtype`` (:attr:`~contracts.targets.Target.requires`) a call
    without it is completed with the dtype it resolves to (:func:`harness.calling.domain_kwargs`)
    before the check runs, so its reproduction shows the call as made.
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(target: Any, *args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            if valid_call and len(args) >= 2 and isinstance(args[1], dict):
                args = (args[0], domain_kwargs(target, args[0], args[1]), *args[2:])
            if takes_data and args and hasattr(target, "inputs"):
                call_kwargs = args[1] if len(args) >= 2 and isinstance(args[1], dict) else None
                if not in_domain(target, args[0], call_kwargs):
                    # the function does not declare this input (Target.inputs / requires): never a pass or a fault
                    raise OutOfDomain(
                        f"{func.__name__}: data of kind {data_kind(args[0])!r}"
                        + (
                            f" or a call without {sorted(k for k in target.requires if call_kwargs.get(k) is None)}"
                            if call_kwargs is not None and not target.accepts_call(call_kwargs)
                            else ""
                        )
                        + f" lies outside target {getattr(target, 'name', '?')!r}'s declared inputs {sorted(target.inputs)}"
                        + (f" (requires {sorted(target.requires)})" if getattr(target, "requires", None) else "")
                    )
            frame = _Frame(func, contract, target, args, kwargs)
            stack = _stack()
            stack.append(frame)
            try:
                return func(target, *args, **kwargs)
            except ContractViolation as exc:
                frame.attach(exc)
                raise
            except (NotApplicable, KitError):
                raise
            except Exception as exc:  # see the module docstring: it becomes a violation of the check
                violation = ContractViolation(
                    contract,
                    f"{func.__name__} could not complete: the call raised: got {type(exc).__name__}: {str(exc)[:500]}, "
                    "expected the check's calls to return",
                )
                frame.attach(violation)
                raise violation from exc
            finally:
                stack.pop()

        wrapper.contract = contract  # type: ignore[attr-defined]
        CHECKS[func.__name__] = contract
        params = list(inspect.signature(func).parameters)
        takes_data = len(params) > 1 and params[1] == "data"
        wrapper.takes_data = takes_data  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def reproduce(
    exc: ContractViolation, func: Callable[..., Any], target: Any, *args: Any, **kwargs: Any
) -> ContractViolation:
    """Give ``exc`` the reproduction of calling the check ``func(target, *args, **kwargs)`` (unless it has one), and return it.

    For violations found outside a single check call, e.g. by a state machine whose steps
    are replayed by one check (:func:`contracts.buffer.check_buffer_ops`). The arguments are
    captured now.
    """
    inner = getattr(func, "__wrapped__", func)
    frame = _Frame(inner, getattr(func, "contract", exc.contract), target, args, kwargs)
    frame.attach(exc)
    return exc


def current_call(frame: Any = None, thread: int | None = None) -> str | None:
    """A one-line description of what the innermost running check of a thread (default: this one) is doing (None outside checks)."""
    del frame
    stack = _STACKS.get(threading.get_ident() if thread is None else thread)
    if not stack:
        return None
    top = stack[-1]
    args = top.args
    try:
        if args and len(args) >= 2 and isinstance(args[1], dict):
            if hasattr(top.target, "describe_call"):
                return cast(str, top.target.describe_call(args[0], args[1]))
            return describe_call(args[0], args[1])
        return f"{top.func.__name__}({getattr(top.target, 'name', '?')}, {', '.join(type(a).__name__ for a in args)})"
    except Exception:  # noqa: BLE001 - a description must never fail the report
        return top.func.__name__


def input_class(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The kind of input a check was called with: ``list`` (nested lists and tuples too), ``list of arrays``, ``ndarray``,
    ``tensor``, ``pinned tensor``, ``scalar``, plus ``+out`` when an ``out`` was passed; ``buffer`` for buffer checks, '' for others."""
    if not args:
        return ""
    data = args[0]
    if isinstance(data, (list, tuple)):  # flat, nested or tuples: one class (a fault there is rarely about nesting)
        cls = "list of arrays" if any(isinstance(v, (np.ndarray, torch.Tensor)) for v in data) else "list"
    elif isinstance(data, np.ndarray):
        cls = "ndarray"
    elif isinstance(data, torch.Tensor):
        try:
            cls = "pinned tensor" if data.device.type == "cpu" and data.is_pinned() else "tensor"
        except RuntimeError:
            cls = "tensor"
    elif isinstance(data, (bool, int, float, complex, np.generic)):
        cls = "scalar"
    elif isinstance(data, dict) and "size" in data:
        return "buffer"
    else:
        return ""
    options = next((a for a in args[1:] if isinstance(a, dict)), kwargs)
    return cls + ("+out" if isinstance(options, dict) and options.get("out") is not None else "")
