"""How properties run: Hypothesis settings, the search for every kind of failure, deterministic tables.

- :func:`run_given` runs a property body under ``@given(st.data())`` with the loaded
  profile. When it finds a failure it keeps searching with that kind of failure set aside
  (:func:`~harness.violations.problem_key`), so one kind cannot hide another: a
  target with an aliasing bug for ndarrays and another for tensors gets both reported in
  one run (a user's engine needed two runs before). All kinds found are raised together.
- :class:`Rows` runs a deterministic table's rows to the end and reports one failing row
  per kind.
- :func:`capped_examples` scales a heavy property's budget with the profile.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NamedTuple

import torch
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky

from . import device
from .contexts import CONTEXT_CONTRACTS, CONTEXTS, calling_context
from .domain import out_of_domain
from .registry import contract_of, property_named
from .target import last_call
from .violations import ContractViolation, NotApplicable, OutOfDomain, problem_key

__all__ = [
    "DEFAULT_EXAMPLES",
    "MAX_KINDS",
    "PHASES",
    "TIMED_PHASES",
    "TIMED_SETTINGS",
    "Captured",
    "Rows",
    "accepted",
    "capped_examples",
    "capture",
    "nondeterministic",
    "require_device",
    "run_given",
    "search_kinds",
    "set_aside",
    "settings_of",
    "violations_in",
]

SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

#: Hypothesis phases of every property: no ``explain`` (it re-runs a failing example under
#: ``sys.settrace``, which turned one multi-MB failure on an H200 into minutes of tracing).
PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
#: Timed properties (each example queues ~100 ms of GPU work and waits it out) keep the shrink
#: phase: their draws are a few ``sampled_from`` choices (a size, a kind, a flag), so the shrinker
#: tries a few dozen examples at most, seconds against a blocking target. What bounds them is
#: :data:`TIMED_SETTINGS`: the first kind of failure ends the search.
TIMED_PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)
#: Settings of a timed property (Hypothesis's own means of failing fast): one failure is reported,
#: not every distinct one (``report_multiple_bugs=False``), and :func:`run_given` does not search
#: again for other kinds (``max_kinds`` 1). A target whose copies block then ends with one shrunk
#: falsifying example, its measured times and a reproduction in seconds, never at ``--timeout``.
TIMED_SETTINGS: dict[str, Any] = {"report_multiple_bugs": False, "max_kinds": 1}

#: The default profile's examples per property (h2d_contracts.plugin): a property's ``cap`` is
#: its budget under that profile and scales with any other (fuzz: 5000 / 40 = 125 times as many).
DEFAULT_EXAMPLES = 40
#: A property that found this many kinds of failure stops searching for more.
MAX_KINDS = 6


def capped_examples(cap: int, profile_examples: int | None = None) -> int:
    """Examples for a property capped at ``cap`` under the default profile, scaled by the loaded one.

    ``cap * profile / DEFAULT_EXAMPLES``, at least 1 and at most the profile's own
    ``max_examples`` (default profile: ``cap`` itself; ``fuzz`` with 5000: 125 x ``cap``;
    ``dev`` with 10: a quarter). ``profile_examples`` defaults to the loaded profile's.
    """
    prof = settings().max_examples if profile_examples is None else profile_examples
    return max(1, min(prof, cap * prof // DEFAULT_EXAMPLES))


def violations_in(exc: BaseException) -> list[ContractViolation] | None:
    """The violations ``exc`` is made of (exception groups walked), or None if anything else is in it."""
    if isinstance(exc, ContractViolation):
        return [exc]
    if isinstance(exc, BaseExceptionGroup):
        found: list[ContractViolation] = []
        for sub in exc.exceptions:
            inner = violations_in(sub)
            if inner is None:
                return None
            found += inner
        return found
    return None


def _contract_of(func: Callable[..., Any]) -> str:
    """The catalogue id of the property whose body ``func`` is (``prop_values.<locals>.body`` -> ``values``)."""
    return contract_of(func.__qualname__.split(".")[0]) or "values"


def nondeterministic(exc: BaseException, contract: str, prop: str) -> ContractViolation:
    """A violation for a target whose outcome changed when Hypothesis replayed the same input.

    Hypothesis reports that as ``Flaky`` (``FlakyFailure``: failed once, passed on replay;
    ``FlakyStrategyDefinition``: the draws diverged). The kit's strategies are
    deterministic, so the changing party is the target: say so, with the first outcome
    and the last call made.
    """
    lost = device.context_error()
    if lost is not None:
        return device_lost(exc, contract, prop, lost)
    inner = [e for e in getattr(exc, "exceptions", ()) if isinstance(e, ContractViolation)]
    head = (
        f"nondeterministic target: {prop} got a different outcome when Hypothesis replayed the same input "
        f"(the kit's strategies are deterministic, so the target answered differently on the same call)"
    )
    return _after_first_outcome(contract, head, inner, exc)


def device_lost(exc: BaseException, contract: str, prop: str, error: str) -> ContractViolation:
    """A violation naming the loss of the CUDA context during ``prop``'s calls (``error``: :func:`harness.device.context_error`).

    CUDA's error is sticky: after a kernel fault every call raises it, so what Hypothesis saw
    after the fault (a replay that "answered differently", a shrunk example that cannot
    complete) is the loss, not the input that caused it. The kind is the loss; the first
    outcome and the last call made are kept, and the first violation's reproduction (run
    in a fresh process, it may reproduce the fault).
    """
    inner = [e for e in _flat_exceptions(exc) if isinstance(e, ContractViolation)]
    head = (
        f"device lost: the CUDA context was lost during the calls of {prop} ({error}); the error is sticky, so every "
        "later call of this process raised it and the replays by Hypothesis saw the loss, not the input that caused it "
        "(a kernel fault: an out-of-bounds access?)"
    )
    return _after_first_outcome(contract, head, inner, exc)


def _after_first_outcome(
    contract: str, head: str, inner: list[ContractViolation], exc: BaseException
) -> ContractViolation:
    """A violation of ``contract`` saying ``head``, then the first outcome (``inner[0]``, else ``exc``'s first line) and
    the last call made; it carries the first violation's reproduction, input class and check."""
    first = str(inner[0]) if inner else f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    msg = f"{head}; first outcome:\n    {first.replace(chr(10), chr(10) + '    ')}"
    last = last_call()
    if last:
        msg += f"\n  last call made: {last}"
    violation = ContractViolation(contract, msg)
    if inner:
        violation.repro, violation.input_class, violation.check = inner[0].repro, inner[0].input_class, inner[0].check
    return violation


def _flat_exceptions(exc: BaseException) -> list[BaseException]:
    """``exc`` and, for an exception group, its leaves, in order."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _flat_exceptions(sub)]
    return [exc]


def _in_drawn_context(body: Callable[[st.DataObject], None]) -> Callable[[st.DataObject], None]:
    """``body`` with a calling context drawn first (:mod:`harness.contexts`; shrinks to ``none``)."""

    def in_context(data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(CONTEXTS), label="calling context")
        with calling_context(name):
            body(data)

    in_context.__qualname__ = body.__qualname__
    return in_context


class Captured(NamedTuple):
    """A property's body as :func:`run_given` would run it (its calling context drawn first where it has one),
    and the check to run once its search ends without a failure (``after``)."""

    body: Callable[[st.DataObject], None]
    after: Callable[[], None] | None


#: Set by :func:`capture`: :func:`run_given` hands its body over instead of running it.
_CAPTURE: ContextVar[list[Captured] | None] = ContextVar("h2d_capture", default=None)
#: The kinds of failure already found by the search under way (:func:`search_kinds`): an example failing with one
#: of them passes, so the next round looks for another kind.
_SET_ASIDE: ContextVar[dict[tuple[str, str], ContractViolation] | None] = ContextVar("h2d_set_aside", default=None)


def capture(prop: Callable[..., None], *args: Any, **kwargs: Any) -> Captured:
    """Run ``prop(*args, **kwargs)``'s setup and return the body its :func:`run_given` would search, without searching.

    Raises:
        NotApplicable: the property does not apply to the target (its setup said so).
        RuntimeError: the property returned without calling :func:`run_given` (a table, or a kit error).
    """
    sink: list[Captured] = []
    token = _CAPTURE.set(sink)
    try:
        prop(*args, **kwargs)
    finally:
        _CAPTURE.reset(token)
    if len(sink) != 1:
        raise RuntimeError(f"{prop.__name__} ran {len(sink)} Hypothesis searches; a contract test captures exactly one")
    return sink[0]


def set_aside(body: Callable[[st.DataObject], None]) -> Callable[[st.DataObject], None]:
    """``body`` with the kinds of failure the search under way has found passing (none outside a search)."""

    def search(data: st.DataObject) -> None:
        found = _SET_ASIDE.get()
        try:
            body(data)
        except ContractViolation as exc:
            if found is not None and problem_key(exc) in found:
                return  # a kind already found: look for others
            raise
        except BaseExceptionGroup as group:
            known = violations_in(group)
            if found is not None and known is not None and all(problem_key(v) in found for v in known):
                return
            raise

    search.__qualname__ = body.__qualname__
    return search


def settings_of(prop: Callable[..., Any], overrides: dict[str, Any] | None = None) -> tuple[dict[str, Any], int, bool]:
    """The Hypothesis settings of registered property ``prop`` (its ``cap`` and ``timed``, :func:`harness.registry.prop`)
    plus ``overrides``, the kinds its search looks for, and whether it draws a calling context."""
    return _settings(getattr(prop, "cap", None), bool(getattr(prop, "timed", False)), dict(overrides or {}))


def _settings(cap: int | None, timed: bool, overrides: dict[str, Any]) -> tuple[dict[str, Any], int, bool]:
    overrides = {**TIMED_SETTINGS, **overrides} if timed else overrides
    rounds = overrides.pop("max_kinds", MAX_KINDS)
    with_contexts = overrides.pop("contexts", True)
    kw: dict[str, Any] = {
        "suppress_health_check": SUPPRESS,
        "deadline": None,
        "phases": TIMED_PHASES if timed else PHASES,
    }
    if cap is not None and "max_examples" not in overrides:
        kw["max_examples"] = capped_examples(cap)
    kw.update(overrides)
    return kw, rounds, with_contexts


def search_kinds(run_once: Callable[[], None], contract: str, prop: str, rounds: int) -> None:
    """Call ``run_once()`` (one whole Hypothesis search) until it passes, each kind it fails with set aside, finding up
    to ``rounds`` kinds; raise them (one violation, or an ``ExceptionGroup`` of one per kind). A target answering
    differently on the same input (Hypothesis's ``Flaky``) is reported as a nondeterministic target; a search during
    which the CUDA context was lost (:func:`harness.device.context_error`) ends there, its last kind the loss
    (:func:`device_lost`), the kinds found before it kept."""
    found: dict[tuple[str, str], ContractViolation] = {}
    token = _SET_ASIDE.set(found)
    try:
        for _ in range(rounds):
            try:
                run_once()
                break
            except (Flaky, ContractViolation, BaseExceptionGroup) as exc:
                lost = device.context_error()
                # every call after a kernel fault fails: the loss is the last kind, not its replays
                if lost is not None:
                    found[("device lost", "")] = device_lost(exc, contract, prop, lost)
                    break
                if isinstance(exc, Flaky):
                    raise nondeterministic(exc, contract, prop) from exc
                new = violations_in(exc)
                if new is None:
                    raise
                fresh = [v for v in new if problem_key(v) not in found]
                if not fresh:
                    raise
                for v in fresh:
                    found.setdefault(problem_key(v), v)
    finally:
        _SET_ASIDE.reset(token)
    kinds = list(found.values())
    if len(kinds) == 1:
        raise kinds[0]
    if kinds:
        raise ExceptionGroup(
            f"{prop}: {len(kinds)} kinds of failure (each found with the earlier ones set aside)", kinds
        )


def run_given(
    body: Callable[[st.DataObject], None],
    overrides: dict[str, Any],
    cap: int | None = None,
    *,
    timed: bool | None = None,
    after: Callable[[], None] | None = None,
) -> None:
    """Run ``body`` under ``@given(st.data())`` with the current profile plus ``overrides``, finding every kind of failure.

    ``cap`` is a heavy property's budget under the default profile, scaled with the
    loaded one (:func:`capped_examples`); ``timed`` runs :data:`TIMED_PHASES` with
    :data:`TIMED_SETTINGS` (the first failure ends the search). Both default to what the
    property registered (``@prop(..., cap=, timed=)``). A property of a contract in
    :data:`~harness.contexts.CONTEXT_CONTRACTS` draws its calling context first (the
    override ``contexts=False`` turns that off). After a failure the search runs again with the kinds already
    found passing, up to :data:`MAX_KINDS` kinds (``overrides["max_kinds"]``: a mutant hunt
    needs one); then every kind found is raised (:func:`search_kinds`). ``after`` runs
    when the search found nothing (a property's judgement of the whole run). Under
    :func:`capture` the body is handed over instead of searched.
    """
    prop = body.__qualname__.split(".")[0]
    registered = property_named(prop)
    if cap is None:
        cap = getattr(registered, "cap", None)
    if timed is None:
        timed = bool(getattr(registered, "timed", False))
    kw, rounds, with_contexts = _settings(cap, timed, dict(overrides))
    if with_contexts and _contract_of(body) in CONTEXT_CONTRACTS:
        body = _in_drawn_context(body)
    sink = _CAPTURE.get()
    if sink is not None:
        sink.append(Captured(body, after))
        return

    def run_once() -> None:
        given(data=st.data())(settings(**kw)(set_aside(body)))()

    search_kinds(run_once, _contract_of(body), prop, rounds)
    if after is not None:
        after()


def accepted(target: Any, kinds: list[str] | tuple[str, ...], contract: str) -> list[str]:
    """The input kinds among ``kinds`` inside ``target``'s declared inputs; NotApplicable naming the contract when none is."""
    inside = [k for k in kinds if k in target.inputs]
    if not inside:
        raise NotApplicable(
            f"contract '{contract}': draws {list(kinds)}, none of them inside target '{target.name}''s declared inputs {sorted(target.inputs)}"
        )
    return inside


def require_device(target: Any, device: torch.device, contract: str) -> None:
    """Raise NotApplicable unless ``target``'s main function may be pointed at ``device``."""
    if not target.supports_device(device):
        target.require("cuda", contract)


class Rows:
    """Runs a deterministic table's rows to the end and reports one failing row per kind.

    A table that stopped at its first failing row would hide every later kind behind it:
    a target with one known fault (an expectation entry) and one new fault in a later row
    would be reported as the known one only. Each row runs inside :meth:`row`; a row's
    ContractViolation is kept if its kind is new (:func:`~harness.violations.problem_key`),
    up to ``cap`` kinds; rows of further kinds are counted and reported as one more
    violation that no expectation covers. :meth:`finish` raises the single violation, or an
    ``ExceptionGroup`` of one per kind. Anything else a row raises propagates at once.
    """

    def __init__(self, table: str, cap: int = 32) -> None:
        self.table, self.cap = table, cap
        self.rows = self.failed = self.unshown = self.outside = 0
        self.kinds: dict[tuple[str, str], ContractViolation] = {}

    def row(self, check: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Run ``check(*args, **kwargs)``; a row the check finds outside the target's domain (:class:`OutOfDomain`) is skipped and counted."""
        try:
            check(*args, **kwargs)
        except OutOfDomain:
            # the check's own domain test (the data's kind, the target's required arguments)
            self.outside += 1
            out_of_domain()
            return
        except ContractViolation as exc:
            self.rows += 1
            self.failed += 1
            key = problem_key(exc)
            if key not in self.kinds:
                if len(self.kinds) < self.cap:
                    self.kinds[key] = exc
                else:
                    self.unshown += 1
            return
        self.rows += 1

    def finish(self) -> None:
        found = list(self.kinds.values())
        if not found:
            if not self.rows and self.outside:
                raise NotApplicable(
                    f"{self.table}: all {self.outside} rows have data outside the target's declared inputs"
                )
            return
        if self.unshown:
            # kinds past the cap are not shown, so they must not pass as expected either: this
            # violation matches no expectation entry's kind and keeps the failure UNEXPECTED
            found.append(
                ContractViolation(
                    found[0].contract,
                    f"{self.table}: {self.unshown} more failing rows of kinds beyond the first {self.cap}, not shown",
                )
            )
        if len(found) == 1 and self.failed == 1:
            raise found[0]
        raise ExceptionGroup(
            f"{self.table}: {self.failed} of {self.rows} rows failed; the first row of each of {len(self.kinds)} kinds",
            found,
        )
