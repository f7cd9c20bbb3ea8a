"""Each test's outcome in a kit session: which tests run, not applicable, expected failures, a test that never called the target, timeouts."""

from __future__ import annotations

import warnings
from collections.abc import Generator
from typing import Any

import pytest

from h2d_contracts import CHECKOUT
from h2d_contracts.contracts import NotApplicable, TargetTimeout
from h2d_contracts.harness import accounting, domain
from h2d_contracts.plugin import expectations as X
from h2d_contracts.plugin import report as R

from . import device_loss, session
from .state import INTERNAL_DIRS, internal_item, item_state, run_state, suite_item
from .timeouts import hangs, stop_if_hung

__all__ = ["Outcomes", "canonical_id"]


def canonical_id(item: pytest.Item) -> str:
    """A test of the kit's suite named as the checkout names it (``tests/test_values.py::test_values[cpu]``).

    Expectation entries and reports use these ids. pytest's own id of an installed suite
    depends on how it was collected: relative to the package folder with ``--pyargs
    h2d_contracts.tests`` (``test_values.py::...``), to the module with ``--pyargs
    h2d_contracts.tests.test_values`` (``::...``), or with ``..`` segments up to
    site-packages. A test outside the suite (the user's own) keeps pytest's id.
    """
    from pathlib import Path

    from h2d_contracts import SUITE_DIR

    path = Path(item.path).resolve()
    suite = SUITE_DIR.resolve()
    if suite not in path.parents:
        return item.nodeid
    _, sep, rest = item.nodeid.partition("::")
    return f"tests/{path.relative_to(suite).as_posix()}{sep}{rest}"


def _violations_only(exc: BaseException | None) -> bool:
    from h2d_contracts.harness.runner import violations_in

    return exc is not None and violations_in(exc) is not None


class Outcomes:
    """The hooks of a kit session that decide what runs and what each test's outcome says."""

    @staticmethod
    def pytest_report_header(config: pytest.Config) -> list[str]:
        return session.header(config)

    @staticmethod
    def pytest_sessionstart(session: pytest.Session) -> None:
        """--h2d-example-db: a profile derived from the loaded one (after Hypothesis's plugin loaded --hypothesis-profile)."""
        choice = session.config.getoption("--h2d-example-db")
        if choice is None:
            return
        from hypothesis import settings
        from hypothesis.database import DirectoryBasedExampleDatabase

        from .options import profile_name

        database = None if choice == "none" else DirectoryBasedExampleDatabase(choice)
        name = f"{profile_name()}+db"
        settings.register_profile(name, parent=settings.get_profile(profile_name()), database=database)
        settings.load_profile(name)

    @staticmethod
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
        """Keep only the tests that judge the target; attach contract ids, canonical ids and expectation entries.

        Against any target but the reference, the checkout's ``tests/reference`` and
        ``tests/meta`` (the reference's own tests, the kit's meta-tests) are deselected: they
        never call the target, so they never run or count as its. An installed kit has
        neither; its meta-marked tests (none ship) would be deselected the same way.
        """
        state = run_state(config)
        keep_internal = CHECKOUT and state.target.name == "reference" and state.spec == "reference"
        dropped = [
            i
            for i in items
            if (internal_item(i) and not keep_internal)
            or (not CHECKOUT and i.get_closest_marker("meta") and suite_item(i))
        ]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            kept = set(map(id, dropped))
            items[:] = [i for i in items if id(i) not in kept]
        used: set[X.XfailEntry] = set()
        for item in items:
            info = item_state(item)
            marked = [cid for m in item.iter_markers("contract") for cid in m.args]
            info.contracts = R.contracts_of_function(getattr(item, "function", None), marked)
            info.canonical = canonical_id(item)
            info.xfail = X.match_xfails(info.canonical, info.contracts, state.xfails, item.nodeid)
            used.update(info.xfail)
        for entry in state.xfails:
            if entry not in used and not entry.is_fault:
                warnings.warn(
                    pytest.PytestWarning(
                        f"{entry.source}: expected failure {entry.pattern!r} matched no collected test"
                    ),
                    stacklevel=1,
                )

    @staticmethod
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
        """Under xdist, a worker whose CUDA context an earlier test lost ends before ``item`` (device_loss)."""
        device_loss.exit_worker_if_lost(item)

    @staticmethod
    def pytest_runtest_setup(item: pytest.Item) -> None:
        stop_if_hung(item)
        device_loss.stop_if_device_lost(item)
        accounting.reset()
        domain.reset()

    @staticmethod
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
        """Run the test; a NotApplicable is a skip; after it, whether the calls lost the CUDA context (device_loss)."""
        try:
            result = yield
        except NotApplicable as exc:
            device_loss.check_after_test(item, failed=False)
            pytest.skip(f"not applicable: {exc}")
        except BaseException as exc:
            device_loss.check_after_test(item, failed=True)
            lost = device_loss.renamed(item, exc)
            if lost is not None:
                raise lost from exc
            raise
        device_loss.check_after_test(item, failed=False)
        return result

    @staticmethod
    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
        """A contract test (:func:`harness.suite.contract_test`) runs as the kit runs a property: every kind found."""
        from h2d_contracts.harness.suite import is_contract_test, run_test

        if not is_contract_test(pyfuncitem.obj):
            return None
        run_test(pyfuncitem.obj, {n: pyfuncitem.funcargs[n] for n in pyfuncitem._fixtureinfo.argnames})
        return True

    @staticmethod
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, Any]:
        """Record what the verdict needs on the report (it travels to the xdist controller); apply the expectations, strictly."""
        rep = yield
        state = run_state(item.config)
        info = item_state(item)
        exc = call.excinfo.value if call.excinfo is not None else None
        timed_out = isinstance(exc, TargetTimeout)
        if timed_out and rep.when == "call":
            hangs().append(item.nodeid)
        found = R.violations_of(exc) if rep.failed else []
        rep.user_properties.append(("h2d_contracts", sorted(info.contracts)))
        rep.user_properties.append(("h2d_id", info.canonical or canonical_id(item)))
        if rep.when == "call":
            rep.user_properties.append(("h2d_calls", accounting.count()))
            loss = device_loss.lost()
            if loss is not None and loss[0] == item.nodeid:  # the controller reschedules this worker's next test
                rep.user_properties.append(("h2d_device_lost", list(loss)))
            if domain.skipped():
                rep.user_properties.append(("h2d_outside", domain.skipped()))
            if timed_out:
                rep.user_properties.append(("h2d_timeout", str(exc)))
        if found:
            rep.user_properties.append(("h2d_violations", found))
            if not item.config.getoption("--h2d-full-trace") and _violations_only(exc):
                rep.longrepr = "\n\n".join(_compact(v) for v in found)
        if rep.failed and exc is not None and not found and rep.when == "call":
            rep.user_properties.append(("h2d_errors", R.failure_text(exc)))
        if rep.when == "call" and rep.passed and suite_item(item) and accounting.count() == 0:
            # A contract test that judged a target it never called: a kit defect, never a pass.
            rep.outcome = "failed"
            rep.longrepr = (
                f"[kit] {info.canonical} passed without calling the target {state.target.name!r}: "
                "a test must call the target it reports on (a defect of the kit: please report it)"
            )
            rep.user_properties.append(("h2d_errors", [str(rep.longrepr)]))
            return rep
        matched = X.with_violated(list(info.xfail), found, state.xfails)
        for v in found:  # each kind's own verdict: one uncovered kind must not make the covered ones look new
            v["expected"] = bool(matched) and bool(X.expected_failure(matched, [v], []))
        if not matched or rep.when != "call" or hasattr(rep, "wasxfail"):
            return rep
        reason = "; ".join(f"{e.source}: {e.pattern}: {e.reason}" for e in matched if not e.is_fault or rep.failed)
        if rep.failed:
            errors = R.failure_text(exc) if not found else []
            covering = X.expected_failure(matched, found, errors)
            if covering:  # a timeout or kit error only by a node-id entry (expected_failure)
                rep.outcome = "skipped"
                rep.wasxfail = "; ".join(f"{e.source}: {e.pattern}: {e.reason}" for e in covering)
            else:
                violated = sorted({v["contract"] for v in found})
                rep.sections.append(
                    (
                        "h2d expectations",
                        f"UNEXPECTED: no entry's match= covers this failure (entries for this test: {reason}); violated {violated or 'no contract (another error)'}",
                    )
                )
        elif rep.passed and any(e.is_test for e in matched):
            rep.outcome = "failed"
            rep.longrepr = f"[XPASS(strict)] listed as an expected failure but passed: {reason}"
        return rep


def _compact(violation: dict[str, Any]) -> str:
    """A violation as the failure section shows it: the message, Hypothesis's draws, and where its reproduction is."""
    notes = [n for n in violation.get("notes", []) if not n.startswith("You can reproduce")]
    return "\n".join([violation["message"], *notes])


#: The folders a run against another target leaves out (for the docs and the meta-tests).
LEFT_OUT = INTERNAL_DIRS
