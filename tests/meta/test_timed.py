"""The timed contracts' decisions, proved on the host with the stream's answers simulated.

On a GPU the non-blocking and step-loop contracts read whether a call waited off the
stream itself (an event queried when the call returns). Here the CUDA parts are replaced by
their answers (waited / still busy), so the rules that turn those answers into a verdict run
in CI: a wait seen once is confirmed behind four times the work before failing, a step whose
preparation outlasted the work is not judged, and a timed property ends at its first
failure after shrinking a handful of draws, never at ``--timeout``.
"""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from h2d_contracts.contracts import ContractViolation
from h2d_contracts.contracts import engine as E
from h2d_contracts.contracts.gpu import timing as G
from h2d_contracts.harness.runner import run_given
from h2d_contracts.harness.violations import fail

pytestmark = pytest.mark.meta


def _answers(monkeypatch: pytest.MonkeyPatch, waited: list[bool]) -> list[float]:
    """Make ``_timed_behind_busy`` answer ``waited`` in turn; returns the list of ms of work each attempt queued."""
    queued: list[float] = []

    def timed(fn, device, busy_ms):
        queued.append(busy_ms)
        result = fn()
        return result, busy_ms + 1.0 if waited[len(queued) - 1] else 0.5, waited[len(queued) - 1]

    monkeypatch.setattr(G, "_timed_behind_busy", timed)
    return queued


def test_a_call_that_waits_twice_fails_with_both_times(monkeypatch):
    queued = _answers(monkeypatch, [True, True])
    with pytest.raises(ContractViolation, match=r"blocked the host until the stream's queued work had finished, twice"):
        G._returns_while_busy(lambda: 7, None, G.BUSY_MS, 1.0, "the call", "f(x)")
    assert queued == [G.BUSY_MS, G.BUSY_MS * G.CONFIRM_FACTOR]


def test_a_call_slowed_once_is_confirmed_and_passes(monkeypatch):
    queued = _answers(monkeypatch, [True, False])
    assert G._returns_while_busy(lambda: 7, None, G.BUSY_MS, 1.0, "the call", "f(x)") == (7, 0.5)
    assert queued == [G.BUSY_MS, G.BUSY_MS * G.CONFIRM_FACTOR]


def test_a_call_that_does_not_wait_is_timed_once_behind_calibrated_work(monkeypatch):
    queued = _answers(monkeypatch, [False])
    G._returns_while_busy(lambda: 7, None, G.BUSY_MS, 30.0, "the call", "f(x)")
    assert queued == [G.CALIBRATION_FACTOR * 30.0]  # ten times the warm call: a slow host gets more work
    queued = _answers(monkeypatch, [False])
    G._returns_while_busy(lambda: 7, None, G.BUSY_MS, 1e6, "the call", "f(x)")
    assert queued == [G.MAX_BUSY_MS]


def test_a_wait_far_slower_than_its_work_is_no_evidence(monkeypatch):
    """A call that waited but took far longer than the queued work (a host slowed by other load) is not counted: the
    work grows and the call is tried again; a correct call on such a host is never failed by those tries."""
    queued: list[float] = []
    host = iter([2055.0, 1241.0 * 4, 900.0])  # the H200 run sharing its host with 30 others: slow, slow, then quick

    def timed(fn, device, busy_ms):
        queued.append(busy_ms)
        ms = next(host)
        return fn(), ms, ms > busy_ms  # it "waited" only because it was slower than the work

    monkeypatch.setattr(G, "_timed_behind_busy", timed)
    assert G._returns_while_busy(lambda: 7, None, 269.0, 1.0, "the call", "f(x)") == (7, 900.0)
    assert queued == [269.0, 269.0 * G.CONFIRM_FACTOR, G.MAX_BUSY_MS]


def test_a_blocking_call_on_a_slow_host_still_fails(monkeypatch):
    """A call that returns right after the work ends is judged a wait, slow tries between its judged ones skipped."""
    queued: list[float] = []
    extra = iter([1.0, 5000.0, 1.0])

    def timed(fn, device, busy_ms):
        queued.append(busy_ms)
        return fn(), busy_ms + next(extra), True

    monkeypatch.setattr(G, "_timed_behind_busy", timed)
    with pytest.raises(ContractViolation, match="twice"):
        G._returns_while_busy(lambda: 7, None, G.BUSY_MS, 1.0, "the call", "f(x)")
    assert len(queued) == 3


def test_never_judged_twice_is_no_verdict(monkeypatch):
    """Every try far slower than its work: MAX_ATTEMPTS tries, then no verdict (the load's, not the target's)."""
    queued: list[float] = []

    def timed(fn, device, busy_ms):
        queued.append(busy_ms)
        return fn(), 10 * busy_ms + 10_000.0, True

    monkeypatch.setattr(G, "_timed_behind_busy", timed)
    G._returns_while_busy(lambda: 7, None, G.BUSY_MS, 1.0, "the call", "f(x)")
    assert len(queued) == G.MAX_ATTEMPTS


class _Event:
    def __init__(self, done: bool) -> None:
        self.done = done

    def query(self) -> bool:
        return self.done


def _loop() -> E._Loop:
    loop = E._Loop.__new__(E._Loop)  # the judging state alone: no target, no streams
    loop.busy_ms, loop.suspect, loop.blocked, loop.unjudged = 20.0, None, [], 0
    return loop


def test_step_loop_concludes_only_on_two_judged_waits_in_a_row():
    loop = _loop()
    loop.forward_done = _Event(True)
    loop._judge_wait(3, "calls of step 3")
    assert loop.blocked == [] and loop.suspect == (3, "calls of step 3", 20.0) and loop.busy_ms == 80.0
    loop._judge_wait(4, "calls of step 4")
    assert [b[0] for b in loop.blocked] == [3, 4] and loop.blocked[1][2] == 80.0


def test_step_loop_forgets_a_suspicion_the_next_step_clears():
    loop = _loop()
    loop.forward_done = _Event(True)
    loop._judge_wait(3, "calls")
    loop.forward_done = _Event(False)  # the next step returned while its (longer) forward pass still ran
    loop._judge_wait(4, "calls")
    assert loop.suspect is None and loop.blocked == [] and loop.busy_ms == 80.0
    loop.forward_done = _Event(True)
    loop._judge_wait(5, "calls")
    assert loop.blocked == []  # one more wait is a new suspicion, not a conclusion


def test_a_timed_property_ends_at_its_first_failure_after_a_bounded_shrink():
    """A body that always fails (as a blocking target does): one violation, the shrunk draw, a few dozen examples at most."""
    calls: list[tuple[int, str, bool]] = []

    def body(data: st.DataObject) -> None:
        size = data.draw(st.sampled_from((4 << 20, 16 << 20, 64 << 20)), label="bytes")
        kind = data.draw(st.sampled_from(("pageable", "pinned", "pinned-transposed", "ndarray")), label="kind")
        out = data.draw(st.booleans(), label="with out")
        calls.append((size, kind, out))
        fail("non-blocking", f"the call blocked the host ({kind})", got="110 ms", expected="a return", call="f()")

    with pytest.raises(ContractViolation) as info:
        run_given(body, {"max_examples": 8, "database": None}, timed=True)
    assert not isinstance(info.value, BaseExceptionGroup)  # one failure, not every kind the search met
    assert len(calls) <= 40, len(calls)
    assert "(pageable)" in str(info.value)  # shrunk to the first choice of each draw
    assert calls[-1] == (4 << 20, "pageable", False)


def test_an_untimed_property_still_reports_every_kind():
    def body(data: st.DataObject) -> None:
        n = data.draw(st.integers(0, 3), label="n")
        if n:
            fail("values", f"kind {'even' if n % 2 == 0 else 'odd'}", got=n, expected=0)

    with pytest.raises(BaseExceptionGroup) as info:
        run_given(body, {"max_examples": 30, "database": None})
    assert len(info.value.exceptions) == 2


def _cap_wait(monkeypatch: pytest.MonkeyPatch, answers: list[bool]) -> list[float]:
    """``check_cap_wait_for_oldest_copy`` with CUDA replaced (in ``timing.calls_behind_queued_work``): each ``busy`` returns an event whose ``query`` gives the
    next of ``answers``; calls return their payload as a tensor. Returns the ms of work each ``busy`` queued."""
    import numpy as np
    import torch

    from h2d_contracts.contracts.gpu import non_blocking as N

    queued: list[float] = []
    it = iter(answers)

    def busy(ms, device):
        queued.append(ms)
        return _Event(next(it))

    monkeypatch.setattr(G, "busy", busy)
    monkeypatch.setattr(N, "requires_cuda", lambda *a, **k: None)
    monkeypatch.setattr(G, "synchronize", lambda: None)
    monkeypatch.setattr(G, "call_valid", lambda contract, target, data, kwargs: torch.from_numpy(np.asarray(data)))

    class _T:
        def require_input(self, *a):
            return None

    N.check_cap_wait_for_oldest_copy(_T(), torch.device("cpu"), 64, 3, busy_ms=10.0)
    return queued


def test_cap_wait_passes_when_the_later_work_still_runs(monkeypatch):
    # first work still queued after the first calls (False), later work still running at the last return (False)
    assert _cap_wait(monkeypatch, [False, False]) == [10.0, 80.0]


def test_cap_wait_fails_when_the_last_call_outlasts_the_later_work(monkeypatch):
    with pytest.raises(ContractViolation, match="waited for the work queued after the oldest"):
        _cap_wait(monkeypatch, [False, True])


def test_cap_wait_needs_the_first_calls_queued_and_says_so(monkeypatch):
    """The first calls finished before their work three times (a slow host): not applicable, never a verdict."""
    from h2d_contracts.harness.violations import NotApplicable

    with pytest.raises(NotApplicable, match="took longer on this host"):
        _cap_wait(monkeypatch, [True, True, True, True, True, True])
