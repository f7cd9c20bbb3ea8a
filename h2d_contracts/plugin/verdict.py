"""The verdict of a run: the conformance report, the digest of distinct problems, reproductions verified in fresh interpreters.

On the controller (or the only process) :class:`Verdict` collects every test report. At the
end of the session it applies the contract-level strictness of the expectations, groups the
failures into distinct problems (:meth:`plugin.report.ConformanceReport.find_problems`),
writes one reproduction script per problem and runs it in a fresh interpreter against the
target (it must fail the same way) and against the reference (it must pass), then writes
the report. The terminal shows the digest before the failures.
"""

from __future__ import annotations

import datetime
import os
import platform
import shlex
import sys
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any, cast

import pytest
import torch

from h2d_contracts import SUITE_DIR
from h2d_contracts.contracts import CATALOGUE
from h2d_contracts.harness.repro import verify
from h2d_contracts.plugin import report as R

from . import device_loss
from .options import profile_name
from .state import run_state

__all__ = ["Verdict"]

#: More distinct problems than this are not verified one by one (each costs two fresh interpreters).
MAX_VERIFIED = 80


def _meta(config: pytest.Config) -> dict[str, Any]:
    import hypothesis

    state = run_state(config)
    target = state.target
    cuda = "no CUDA"
    if torch.cuda.is_available():
        cuda = f"CUDA {torch.version.cuda}: " + ", ".join(
            torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())
        )
    return {
        "target": target.name,
        "target_version": target.version,
        "spec": state.spec,
        "capabilities": sorted(target.capabilities),
        "inputs": sorted(target.inputs),
        "notes": target.notes,
        "pinned": "available"
        if target.pin_memory_available()
        else "unavailable (the target behaves as on a machine without pinned memory)",
        "torch": torch.__version__,
        "python": platform.python_version(),
        "hypothesis": hypothesis.__version__,
        "profile": profile_name(),
        "seed": config.getoption("hypothesis_seed", None),
        "seed_chosen_at_random": state.seed_chosen,
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, {cuda}",
        "command": shlex.join(["pytest", *config.invocation_params.args]),
        "xfails_file": state.xfails_file,
        "preamble": target.preamble() if target.spec else "",
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


class Verdict:
    """Collects the run (xdist-safe: from test reports on the controller) and writes the verdict."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.report = R.ConformanceReport(meta=_meta(config), catalogue=CATALOGUE)
        run_state(config).report = self.report
        self.lost_in: dict[str, tuple[str, str]] = {}  # xdist worker id -> (test, error) of its lost CUDA context

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        """pytest-xdist: a worker that ended itself after losing its CUDA context has its next test run elsewhere."""
        device_loss.handle_crashed_worker(crashitem, report, sched, self.lost_in)

    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        if report.outcome == "rerun":  # type: ignore[comparison-overlap] # set by device_loss.handle_crashed_worker
            return "rerun", "R", "RERUN"
        return None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.outcome == "rerun":  # type: ignore[comparison-overlap] # a test xdist will run again: not an outcome
            return
        loss = dict(report.user_properties).get("h2d_device_lost")  # [test, error] (outcomes.py)
        worker = getattr(getattr(report, "node", None), "gateway", None)
        if isinstance(loss, list) and len(loss) == 2 and worker is not None:
            self.lost_in[worker.id] = (str(loss[0]), str(loss[1]))
        props = {k: v for k, v in report.user_properties if k.startswith("h2d_") and k != "h2d_id"}
        # h2d_id is the canonical id outcomes.py appends, a str (user_properties are typed as object)
        nodeid = cast(str, dict(report.user_properties).get("h2d_id", report.nodeid))
        if report.skipped and isinstance(report.longrepr, tuple):
            text = str(report.longrepr[2])
        else:
            text = report.longreprtext or ""
        self.report.add(nodeid, report.when, report.outcome, props, text, getattr(report, "wasxfail", None))

    def _repro_dir(self) -> Path:
        option = self.config.getoption("--h2d-report")
        if option:
            return self.report.paths(option)[2]
        cache = getattr(self.config, "cache", None)
        if cache is not None:
            return Path(cache.mkdir("h2d-repro"))
        return Path(tempfile.mkdtemp(prefix="h2d-repro-"))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Contract-level strictness, unmatched entries, the problems and their reproductions, then the report (--h2d-report)."""
        config, state, collector = self.config, run_state(self.config), self.report
        ran = set(collector.tests)
        # contracts some test judged: a contract all of whose tests were not applicable (a class the target lacks) or
        # skipped contradicts no entry, so its entries are "matched no test that ran", never [XPASS(strict)]
        tested = {
            c
            for t in collector.tests.values()
            if t["status"] not in ("not applicable", "skipped")
            for c in t["contracts"]
        }
        entries = state.xfails
        collector.unmatched_xfails = [
            f"{e.source}: {e.pattern}"
            for e in entries
            if not e.is_fault and not (e.pattern in tested if e.is_contract else any(e.matches_test(n) for n in ran))
        ]
        # A contract-id entry is strict at the contract's level: some test of its contract must have
        # failed as expected (by any entry of that contract). Not per entry: a property's search is
        # random, so one entry's kind missing from one run is no evidence of a fix; those entries are
        # listed as not witnessed, in the terminal and the report.
        reasons = [t["reason"] or "" for t in collector.tests.values() if t["status"] == "xfailed"]
        witnessed = {e for e in entries if e.is_contract and any(f"{e.source}: {e.pattern}:" in r for r in reasons)}
        covered = {e.pattern for e in witnessed}
        xpassed = [
            f"{e.source}: {e.pattern}"
            for e in entries
            if e.is_contract and e.pattern in tested and e.pattern not in covered
        ]
        # A fault entry is strict on its own: some violation of a run of the whole suite, under any contract, must be
        # it. A run narrowed by -k, -m or test paths may not reach any test that shows it: there it is only a note.
        violations = [v for t in collector.tests.values() for v in t["violations"]]
        unseen = [
            f"{e.source}: {e.pattern} match={e.match}"
            for e in entries
            if e.is_fault and not any(e.covers_violation(v) for v in violations)
        ]
        collector.unwitnessed_xfails = [
            f"{e.source}: {e.pattern} match={e.match}"
            for e in entries
            if e.is_contract and e.pattern in covered and e not in witnessed
        ]
        if _whole_suite(config):
            xpassed += unseen
        else:
            collector.unwitnessed_xfails += [f"{u} (a fault; this run selected part of the suite)" for u in unseen]
        collector.xpassed_contracts = xpassed
        tr = config.pluginmanager.get_plugin("terminalreporter")
        write = tr.write_line if tr is not None else (lambda line, **kw: print(line, file=sys.stderr))
        for line in collector.unmatched_xfails:
            write(f"h2d-contracts WARNING: expected failure matched no test that ran: {line}", yellow=True)
        for line in collector.unwitnessed_xfails:
            write(
                f"h2d-contracts note: expected failure not witnessed this run (its contract failed as expected by another entry, or a fault entry in a partial run): {line}",
                yellow=True,
            )
        for line in xpassed:
            write(
                f"h2d-contracts [XPASS(strict)] contract or fault listed as an expected failure but no test failed by it: {line}",
                red=True,
            )
        if xpassed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        problems = collector.find_problems()
        if problems:
            self._reproductions(problems)
            state.digest = R.digest_lines(problems, f"{state.target.name} {state.target.version}")
            self._annotate_failures(problems)
        if config.getoption("--h2d-report"):
            collector.meta["exitstatus"] = int(session.exitstatus)
            jpath, mpath = collector.write(config.getoption("--h2d-report"))
            write(f"h2d-contracts report: {jpath} and {mpath}")

    def _reproductions(self, problems: list[R.Problem]) -> None:
        """Write each problem's script and, unless ``--h2d-verify=off``, verify it (in parallel, fresh interpreters)."""
        where = self._repro_dir()
        where.mkdir(parents=True, exist_ok=True)
        jobs = []
        for p in problems:
            if (
                not p.repro
                or p.repro.startswith("# not reproducible")
                or p.repro.startswith("# the reproduction could not")
            ):
                p.verified = False
                p.verify_reason = (
                    (p.repro or "no check raised it (a kit error, an error outside the contracts, or a timeout)")
                    .strip()
                    .lstrip("# ")[:300]
                )
                continue
            script = (
                f"# {p.id} [{p.contract}] {p.kind}\n# shown by {len(p.tests)} test(s), first {p.tests[0]}; this reproduction: {p.repro_kind}\n"
                + p.repro
            )
            path = where / f"{p.id}.py"
            path.write_text(script)
            p.repro_path = _shown(path, absolute=Path(str(self.config.getoption("--h2d-report") or "")).is_absolute())
            jobs.append((p, script))
        verify_on = self.config.getoption("--h2d-verify") == "on" and len(jobs) <= MAX_VERIFIED
        if not verify_on:
            for p, _ in jobs:
                p.verify_reason = (
                    "--h2d-verify=off"
                    if self.config.getoption("--h2d-verify") == "off"
                    else f"more than {MAX_VERIFIED} problems: not verified one by one"
                )
            return
        spec = run_state(self.config).spec
        work = where / "verify"
        verdicts = verify(
            [(p.id, script, spec, (p.contract, p.repro_kind or p.kind)) for p, script in jobs],
            str(work),
            timeout_s=float(self.config.getoption("--h2d-verify-timeout")),
        )
        for (p, _), v in zip(jobs, verdicts):
            p.verified, p.verify_reason = v.verified, v.reason
            p.verify_seconds = [r["seconds"] for r in (v.on_target, v.on_reference) if r and "seconds" in r]
            if p.repro_problem and not v.verified:
                p.verify_reason += f" (known loss in the script: {p.repro_problem})"

    def _annotate_failures(self, problems: list[R.Problem]) -> None:
        """Add the problem id and reproduction to each failed test's section in the terminal."""
        by_test: dict[str, list[R.Problem]] = {}
        for p in problems:
            for t in p.tests:
                by_test.setdefault(t, []).append(p)
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        if tr is None:
            return
        for rep in tr.stats.get("failed", []):
            nodeid = dict(rep.user_properties).get("h2d_id", rep.nodeid)
            for p in by_test.get(nodeid, []):
                verdict = (
                    "verified"
                    if p.verified
                    else f"not verified: {p.verify_reason}"
                    if p.verified is False
                    else "not run"
                )
                rep.sections.append(
                    (
                        "h2d problem",
                        f"{p.id} [{p.contract}] {R.said(p)}\nreproduction: {p.repro_path or 'none'} ({verdict})",
                    )
                )

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(
        self, terminalreporter: Any, exitstatus: int, config: pytest.Config
    ) -> Generator[None, None, None]:
        """The digest first, before pytest's failure sections; after them, how to replay."""
        state = run_state(config)
        if state.digest:
            terminalreporter.section("h2d-contracts: distinct problems")
            for line in state.digest:
                terminalreporter.write_line(line)
        try:
            return (yield)
        finally:
            if state.digest:
                seed = config.getoption("hypothesis_seed", None)
                terminalreporter.write_line(
                    f"h2d-contracts: replay a failing test with its test id and --hypothesis-seed {seed}; each reproduction runs alone with python"
                )


def _whole_suite(config: pytest.Config) -> bool:
    """Whether the run collected the whole contract suite: no ``-k``, no ``-m``, no test path below the suite's folder."""
    if config.getoption("keyword", "") or config.getoption("markexpr", ""):
        return False
    suite = SUITE_DIR.resolve()
    for arg in config.args:
        path = Path(arg.split("::")[0])
        path = (Path(config.invocation_params.dir) / path).resolve() if not path.is_absolute() else path.resolve()
        if "::" in arg or (path != suite and suite in path.parents):
            return False
    return True


def _shown(path: Path, *, absolute: bool = False) -> str:
    """``path`` as the user named the report's place: absolute for an absolute ``--h2d-report``, else
    relative to the working folder when it lies under it."""
    if absolute:
        return str(path.resolve())
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path.resolve()) if rel.startswith("..") else rel
