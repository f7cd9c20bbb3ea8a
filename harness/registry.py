"""Which property checks which contract: filled by the ``@prop(contract)`` decorator, never by hand.

Each contract area (``contracts/values/``, ``contracts/out.py``, ...) declares its
properties with ``@prop("values")``; importing :mod:`h2d_contracts.contracts` imports
every area, so :data:`PROPERTIES` is complete once the package is imported. The test
that runs ``prop_<name>`` is ``test_<name>`` (a meta-test checks it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["GPU_CONTRACTS", "PROPERTIES", "contract_of", "prop", "properties_of", "property_named", "run_property"]

F = TypeVar("F", bound=Callable[..., Any])

#: catalogue id -> the properties that check it, in the order their areas declare them.
PROPERTIES: dict[str, tuple[Callable[..., None], ...]] = {}
_BY_NAME: dict[str, str] = {}

#: Contracts that only mean something on CUDA.
GPU_CONTRACTS = frozenset({"staging", "non-blocking", "snapshot", "stream", "hygiene", "device-hygiene"})


def prop(
    contract: str, *, table: bool = False, ladder: bool = False, cap: int | None = None, timed: bool = False
) -> Callable[[F], F]:
    """Register ``prop_<name>(target, device, **overrides)`` as a property of catalogue id ``contract``.

    ``table``: a deterministic table (the same rows every run, whatever the Hypothesis
    settings): the kit's meta-tests need not run it again at another example budget.
    ``ladder``: a size-ladder table, which also takes ``ladder="sparse"`` (:func:`strategies.ladder`).
    ``cap``: a heavy property's examples under the default profile (scaled with the loaded
    one: :func:`harness.runner.capped_examples`); ``timed``: a property whose examples wait
    out queued GPU work (:data:`harness.runner.TIMED_SETTINGS`). Both are read by
    :func:`harness.runner.run_given` and by the property's test
    (:func:`harness.suite.contract_test`), whose Hypothesis settings they set.
    """

    def register(func: F) -> F:
        if not func.__name__.startswith("prop_"):
            raise ValueError(f"a property's name starts with 'prop_': {func.__name__}")
        if func.__name__ in _BY_NAME:
            raise ValueError(f"property {func.__name__} is registered twice")
        _BY_NAME[func.__name__] = contract
        PROPERTIES[contract] = (*PROPERTIES.get(contract, ()), func)
        func.contract = contract  # type: ignore[attr-defined]
        func.table = table  # type: ignore[attr-defined]
        func.ladder = ladder  # type: ignore[attr-defined]
        func.cap = cap  # type: ignore[attr-defined]
        func.timed = timed  # type: ignore[attr-defined]
        return func

    return register


def contract_of(name: str) -> str | None:
    """The catalogue id of the property named ``name`` (``prop_values`` -> ``values``), or None."""
    return _BY_NAME.get(name)


def property_named(name: str) -> Callable[..., None] | None:
    """The registered property ``name`` (``prop_values``), or None."""
    contract = _BY_NAME.get(name)
    return next((f for f in PROPERTIES.get(contract, ()) if f.__name__ == name), None) if contract else None


def properties_of(contract: str) -> tuple[Callable[..., None], ...]:
    """Every property of ``contract`` (KeyError naming the known ids for an unknown one)."""
    try:
        return PROPERTIES[contract]
    except KeyError:
        raise KeyError(f"no properties for contract {contract!r}; known: {sorted(PROPERTIES)}") from None


def run_property(contract: str, target: Any, device: Any, **overrides: Any) -> None:
    """Run every property of catalogue id ``contract`` against ``target`` on ``device``."""
    for func in properties_of(contract):
        func(target, device, **overrides)
