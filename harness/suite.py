"""The contract suite's tests as Hypothesis tests: ``test_values = contract_test(prop_values)``.

A property (``prop_values(target, device)``) sets up and then searches one body under
``@given(st.data())`` (:func:`harness.runner.run_given`). :func:`contract_test` turns it
into a pytest test that *is* a Hypothesis test: ``@given(data=st.data())`` and the
property's settings (its registered ``cap`` and ``timed``) on a function of the fixtures
``target`` and ``device`` (or ``cuda_device``) and ``data``, whose every example runs the
property's body (:func:`harness.runner.capture`). So Hypothesis's own tools see each
contract test: ``--hypothesis-show-statistics``, the example database (keyed by the test's
node id), and HypoFuzz, which fuzzes these tests as it fuzzes any ``@given`` test.

In a kit session the plugin runs such a test through :func:`run_test`: the same Hypothesis
test, searched again with each kind of failure found set aside
(:func:`harness.runner.search_kinds`), so one kind cannot hide another, as ``run_given``
does for a property called directly. Under HypoFuzz (no kit session around the call) each
example is one run of the body and every failure it finds goes to the example database,
where the next ``pytest`` run of the same test replays it first.

Deterministic tables (``@prop(..., table=True)``) stay plain tests: they have nothing to draw.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from .registry import contract_of
from .runner import Captured, capture, search_kinds, set_aside, settings_of
from .target import Target

__all__ = ["contract_test", "is_contract_test", "run_test"]

#: (property, target, device, extra arguments) -> the body its setup made, reused by every example of a test.
_BODIES: dict[tuple[str, int, str, str], Captured] = {}


def _key(prop: Callable[..., None], target: Target, device: Any, extra: dict[str, Any]) -> tuple[str, int, str, str]:
    return prop.__name__, id(target), str(device), repr(sorted(extra.items()))


def _body(prop: Callable[..., None], target: Target, device: Any, extra: dict[str, Any]) -> Captured:
    key = _key(prop, target, device, extra)
    if key not in _BODIES:
        _BODIES[key] = capture(prop, target, device, **extra)
    return _BODIES[key]


def contract_test(
    prop: Callable[..., None],
    *,
    device_arg: str = "device",
    params: tuple[str, ...] = (),
    extra: Callable[..., dict[str, Any]] | None = None,
) -> Callable[..., None]:
    """The Hypothesis test of registered property ``prop``: ``test_<name>(target, <device_arg>, *params)`` for pytest.

    Args:
        prop: a ``prop_*`` registered with ``@prop`` that searches with :func:`run_given`.
        device_arg: the fixture naming the device (``device``: host and CUDA; ``cuda_device``: CUDA only).
        params: further arguments of the test (``pytest.mark.parametrize`` gives them).
        extra: maps those arguments to the property's keyword arguments (``kind`` -> ``{"kinds": (kind,)}``).

    Raises:
        ValueError: ``prop`` is a deterministic table (``table=True``), which has nothing to draw.
    """
    if getattr(prop, "table", False) or contract_of(prop.__name__) is None:
        raise ValueError(f"{prop.__name__} is not a registered drawn property (tables stay plain tests)")
    kw, rounds, _ = settings_of(prop)
    name = "test_" + prop.__name__.removeprefix("prop_")

    names = ("target", device_arg, *params)

    def run(*args: Any) -> None:
        *fixtures, data = args
        bound = dict(zip(names, fixtures, strict=True))
        target, device = bound.pop("target"), bound.pop(device_arg)
        captured = _body(prop, target, device, extra(**bound) if extra else {})
        set_aside(captured.body)(data)

    example = _located(name, (*names, "data"), run, prop.__doc__)
    test = settings(**kw)(given(data=st.data())(example))
    test.h2d_property = prop  # type: ignore[attr-defined]
    test.h2d_extra = (device_arg, params, extra)  # type: ignore[attr-defined]
    test.h2d_rounds = rounds  # type: ignore[attr-defined]  # the kinds its search looks for (settings_of)
    return test


def _located(name: str, argnames: tuple[str, ...], run: Callable[..., None], doc: str | None) -> Callable[..., None]:
    """``def <name>(<argnames>): run(<argnames>)``, compiled as if written where :func:`contract_test` was called.

    A plain function with the test's own signature and location (file, line, module): pytest
    reads its fixtures from the signature and reports the test at that line; Hypothesis's
    ``@given`` wraps it like any test. (Generated the way Hypothesis generates its own
    signature-preserving wrappers: pytest and Hypothesis read a function's code object, which
    a closure cannot give another file and line.)
    """
    frame = inspect.stack()[2]
    module = frame.frame.f_globals.get("__name__", __name__)
    source = "\n" * (frame.lineno - 1) + f"def {name}({', '.join(argnames)}):\n    _run({', '.join(argnames)})\n"
    namespace: dict[str, Any] = {"_run": run, "__name__": module}
    exec(compile(source, frame.filename, "exec"), namespace)  # noqa: S102 - our own generated source, no input
    func: Callable[..., None] = namespace[name]
    func.__doc__ = doc
    return func


def is_contract_test(func: Any) -> bool:
    """Whether ``func`` was made by :func:`contract_test`."""
    return getattr(func, "h2d_property", None) is not None


def run_test(test: Callable[..., None], args: dict[str, Any]) -> None:
    """Run contract test ``test`` on its fixture values ``args`` as the kit runs a property: a fresh setup, every
    kind of failure searched for (:func:`harness.runner.search_kinds`), then the property's ``after`` check."""
    prop: Callable[..., None] = test.h2d_property  # type: ignore[attr-defined]
    device_arg, params, extra = test.h2d_extra  # type: ignore[attr-defined]
    target, device = args["target"], args[device_arg]
    kwargs = extra(**{p: args[p] for p in params}) if extra else {}
    key = _key(prop, target, device, kwargs)
    _BODIES.pop(key, None)
    rounds: int = test.h2d_rounds  # type: ignore[attr-defined]
    try:
        search_kinds(lambda: test(**args), prop.contract, prop.__name__, rounds)  # type: ignore[attr-defined]
        captured = _BODIES.get(key)
        if captured is not None and captured.after is not None:
            captured.after()
    finally:
        _BODIES.pop(key, None)
