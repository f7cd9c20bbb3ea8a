"""What a contract raises: violations, "not applicable", timeouts; the message template and failure kinds.

Template (after array-api-tests' ``pytest_helpers``): ``[contract] what: got X, expected
Y`` then the call that produced it. A violation raised inside a check (see
:mod:`harness.checks`) also carries a reproduction script (:mod:`harness.repro`).
"""

from __future__ import annotations

import re
import unittest
from collections.abc import Callable
from typing import Any, NoReturn

__all__ = [
    "ContractViolation",
    "KitError",
    "NotApplicable",
    "OutOfDomain",
    "TargetTimeout",
    "fail",
    "kind_of",
    "problem_key",
]


class ContractViolation(AssertionError):
    """A target broke a contract.

    Attributes:
        contract: the catalogue id (``"out"``).
        repro: the reproduction script (Python source) of the check that failed, or None
            (set by :func:`harness.checks.check` when the violation leaves a check).
        input_class: what kind of input the failing call had (``"ndarray"``,
            ``"tensor+out"``...), part of the failure's kind (:func:`problem_key`).
        check: the name of the check function that raised (``"check_values"``).
    """

    def __init__(self, contract: str, message: str) -> None:
        super().__init__(f"[{contract}] {message}")
        self.contract = contract
        self.input_class: str = ""
        self.check: str = ""
        self._repro: str | None = None
        self._repro_problem = ""
        # The script is written when first read (the report of the test's final failure), not when
        # the violation is raised: a property's search raises many violations it then discards, and
        # writing each one's script (compressing a 64 MiB input, say) cost a GPU run its time budget.
        self._writer: Callable[[], tuple[str, str]] | None = None

    @property
    def repro(self) -> str | None:
        """The reproduction script (written on first read; None when no check gave one)."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            self._repro, self._repro_problem = writer()
        return self._repro

    @repro.setter
    def repro(self, script: str | None) -> None:
        self._repro, self._writer = script, None

    @property
    def repro_problem(self) -> str:
        """Why the reproduction may not reproduce ('' when nothing is known to be lost)."""
        self.repro  # noqa: B018 - writes the script if it is still pending
        return self._repro_problem

    @repro_problem.setter
    def repro_problem(self, problem: str) -> None:
        self._repro_problem = problem

    def has_repro(self) -> bool:
        """Whether a reproduction was given (written or pending), without writing it."""
        return self._repro is not None or self._writer is not None

    def defer_repro(self, writer: Callable[[], tuple[str, str]]) -> None:
        """Give the reproduction as ``writer() -> (script, problem)``, called on the first read of :attr:`repro`."""
        self._repro, self._writer = None, writer


class KitError(Exception):
    """The kit itself failed (a bug of the kit or of its use), not the target: never a contract violation."""


class NotApplicable(unittest.SkipTest):
    """The target lacks the capability a contract needs: reported as "not applicable", never a pass.

    A ``unittest.SkipTest`` subclass, so pytest reports it as a skip with this reason and
    Hypothesis re-raises it at once instead of treating it as a falsifying example.
    """


class OutOfDomain(NotApplicable):
    """A call outside the target's declared domain (its input kinds, its required arguments): not applicable.

    Raised by a check before it calls the target; a deterministic table counts such rows
    and goes on (:class:`harness.runner.Rows`).
    """


class TargetTimeout(BaseException):
    """A test ran past its time limit (pytest-timeout's ``--timeout``), raised in the test's thread.

    A ``BaseException``, neither an ``Exception`` nor pytest's ``Failed``: Hypothesis takes
    either of those for a falsifying example and replays the hanging call to shrink it,
    with no timer left to stop it; a ``BaseException`` goes straight up (as
    ``KeyboardInterrupt`` does). ``call`` is the kit's description of the call in flight,
    when the test was inside a ``check_*`` that had one. The report counts such a test as
    "timed out" (its budget named), never as a contract violation.
    """

    def __init__(self, message: str, call: str | None = None) -> None:
        super().__init__(message)
        self.call = call


def fail(contract: str, what: str, *, got: Any, expected: Any, call: str | None = None) -> NoReturn:
    """Raise :class:`ContractViolation` with the kit's message template."""
    __tracebackhide__ = True
    msg = f"{what}: got {got}, expected {expected}"
    if call:
        msg += f"\n  call: {call}"
    raise ContractViolation(contract, msg)


_EXC_NAME = re.compile(r"[A-Za-z_]\w*(?:Error|Exception|Warning)\b")


def kind_of(message: str) -> str:
    """A violation's kind: what failed (its first line up to ": got"), digits and quoted labels masked.

    Plus the exception type when one was raised (``"... raised: got ValueError: ..."``), so
    failures that differ only in their values are one kind, and a new exception type is a
    new kind. A leading ``[id] `` is dropped.
    """
    first = message.splitlines()[0] if message else ""
    first = re.sub(r"^\[[a-z][a-z-]*\] ", "", first)
    what, _, got = first.partition(": got ")
    what = re.sub(r"'[^']*'", "'...'", what)
    what = re.sub(r"\((?:[^()]|\([^()]*\))*\)", "(...)", what)  # shapes, strides, spans: values, not kinds
    what = re.sub(r"\[[^\[\]]*\]", "[...]", what)
    what = re.sub(r"\d+", "#", what)
    raised = _EXC_NAME.match(got)
    return what + (f": got {raised.group(0)}" if raised else "")


def problem_key(violation: ContractViolation | dict[str, Any]) -> tuple[str, str]:
    """``(contract, kind [input class])``: what makes two failures the same problem.

    The input class is part of it: a result aliasing an ndarray and one aliasing a tensor
    are two defects with one message (a user's engine had both; with one key the second
    showed only after the first was fixed).
    """
    if isinstance(violation, dict):
        contract, message, cls = violation["contract"], violation["message"], violation.get("input_class", "")
    else:
        contract, message, cls = violation.contract, str(violation), violation.input_class
    kind = kind_of(message)
    return contract, f"{kind} [{cls}]" if cls else kind
