"""Eager argument checks for the public strategies, the way ``hypothesis.extra.numpy`` does them.

A strategy built with a wrong argument raises :class:`hypothesis.errors.InvalidArgument`
when it is *called* (naming the argument, what was given and what is allowed), not later
at draw time with a raw ``KeyError``/``IndexError``, and not by silently drawing something
else (``host_data(kinds="list")`` used to iterate the string's letters). Hypothesis's own
``check_*`` helpers live in a private module, so these few are written here.

:func:`eager` wraps an ``@st.composite`` function: it binds the call's arguments to the
signature, runs the named checks (each may also normalise: a numpy dtype becomes the
torch dtype, a device string a ``torch.device``) and then builds the strategy.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ._dtypes import NUMPY_OF

Check = Callable[[str, Any], Any]
_P = ParamSpec("_P")
_T = TypeVar("_T")


def eager(**checks: Check) -> Callable[[Callable[_P, st.SearchStrategy[_T]]], Callable[_P, st.SearchStrategy[_T]]]:
    """Decorator: run ``checks[name](name, value)`` on the bound arguments when the strategy is built."""

    def deco(fn: Callable[_P, st.SearchStrategy[_T]]) -> Callable[_P, st.SearchStrategy[_T]]:
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def build(*args: _P.args, **kwargs: _P.kwargs) -> st.SearchStrategy[_T]:
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise InvalidArgument(f"{fn.__name__}(): {exc}") from None
            for name, check in checks.items():
                if name in bound.arguments:
                    bound.arguments[name] = check(f"{fn.__name__}({name}=...)", bound.arguments[name])
            return fn(*bound.args, **bound.kwargs)

        return build

    return deco


def one_of(allowed: tuple[str, ...], *, optional: bool = True) -> Check:
    """A string from ``allowed`` (or None when ``optional``)."""

    def check(where: str, value: Any) -> Any:
        if value is None and optional:
            return value
        if not isinstance(value, str) or value not in allowed:
            raise InvalidArgument(
                f"{where}: got {value!r}; expected {'None or ' if optional else ''}one of {', '.join(map(repr, allowed))}"
            )
        return value

    return check


def some_of(allowed: tuple[str, ...], *, optional: bool = False) -> Check:
    """A non-empty tuple (or list) of strings from ``allowed``; a bare string is refused, not iterated."""

    def check(where: str, value: Any) -> Any:
        if value is None and optional:
            return value
        if isinstance(value, str):
            raise InvalidArgument(
                f"{where}: got the string {value!r}; pass a tuple such as ({value!r},) of {', '.join(map(repr, allowed))}"
            )
        if not isinstance(value, (tuple, list)) or not value:
            raise InvalidArgument(
                f"{where}: got {value!r}; expected a non-empty tuple of {', '.join(map(repr, allowed))}"
            )
        unknown = [v for v in value if v not in allowed]
        if unknown:
            raise InvalidArgument(
                f"{where}: unknown {', '.join(map(repr, unknown))}; expected some of {', '.join(map(repr, allowed))}"
            )
        return tuple(value)

    return check


def boolean(*, optional: bool = False) -> Check:
    """True or False (or None when ``optional``): a truthy string such as 'no' is refused."""

    def check(where: str, value: Any) -> Any:
        if value is None and optional:
            return value
        if not isinstance(value, (bool, np.bool_)):
            raise InvalidArgument(f"{where}: got {value!r}; expected {'None, ' if optional else ''}True or False")
        return bool(value)

    return check


def integer(*, min_value: int = 0) -> Check:
    """A Python or numpy integer >= ``min_value`` (not a bool)."""

    def check(where: str, value: Any) -> Any:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < min_value:
            raise InvalidArgument(f"{where}: got {value!r}; expected an integer >= {min_value}")
        return int(value)

    return check


_TORCH_OF_NUMPY = {np.dtype(v): k for k, v in NUMPY_OF.items()}


def dtype(*, allowed: tuple[torch.dtype, ...] | None = None, optional: bool = True, strategy: bool = False) -> Check:
    """A torch dtype; numpy dtypes (``np.float32``, ``np.dtype("int16")``) are taken and converted.

    ``allowed`` restricts the choice; ``strategy`` lets a SearchStrategy of dtypes through.
    """

    def check(where: str, value: Any) -> Any:
        if value is None and optional:
            return value
        if strategy and isinstance(value, st.SearchStrategy):
            return value
        if not isinstance(value, torch.dtype):
            try:
                value = _TORCH_OF_NUMPY[np.dtype(value)]
            except (TypeError, KeyError):
                raise InvalidArgument(
                    f"{where}: got {value!r}; expected a torch dtype (or a numpy dtype with a torch twin: {', '.join(sorted(str(k) for k in _TORCH_OF_NUMPY))})"
                ) from None
        if allowed is not None and value not in allowed:
            raise InvalidArgument(f"{where}: got {value}; expected one of {', '.join(str(d) for d in allowed)}")
        return value

    return check


def dtypes() -> Check:
    """A tuple of torch dtypes (numpy dtypes converted)."""
    one = dtype(optional=False)

    def check(where: str, value: Any) -> Any:
        if not isinstance(value, (tuple, list)):
            raise InvalidArgument(f"{where}: got {value!r}; expected a tuple of dtypes")
        return tuple(one(where, v) for v in value)

    return check


def shape(*, min_dims: int = 0, optional: bool = True, strategy: bool = True) -> Check:
    """A tuple of non-negative ints with at least ``min_dims`` entries, or a strategy of shapes."""

    def check(where: str, value: Any) -> Any:
        if value is None and optional:
            return value
        if strategy and isinstance(value, st.SearchStrategy):
            return value
        if isinstance(value, torch.Size):
            value = tuple(value)
        if not isinstance(value, (tuple, list)) or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0 for s in value
        ):
            raise InvalidArgument(
                f"{where}: got {value!r}; expected a tuple of non-negative ints{' or a strategy of them' if strategy else ''}"
            )
        if len(value) < min_dims:
            raise InvalidArgument(
                f"{where}: got {tuple(value)!r}, {len(value)} dimension(s); expected at least {min_dims}"
            )
        return tuple(int(s) for s in value)

    return check


def device() -> Check:
    """A ``torch.device``; a string or an int (CUDA ordinal) is converted, anything else refused."""

    def check(where: str, value: Any) -> Any:
        if isinstance(value, torch.device):
            return value
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            try:
                return torch.device(value)
            except (RuntimeError, ValueError) as exc:
                raise InvalidArgument(f"{where}: got {value!r}, not a device: {exc}") from None
        raise InvalidArgument(
            f"{where}: got {value!r}; expected a torch.device, a device string such as 'cpu' or 'cuda:0', or a CUDA ordinal"
        )

    return check
