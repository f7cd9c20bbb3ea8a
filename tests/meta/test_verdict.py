"""Meta-tests of the verdict: expectations files end to end, the report, the example database, only the target judged.

Each runs pytest in a subprocess on a small slice of the suite against a mutant whose failure
is known, with expectations files written here, and checks the exit status and the report:
each of them fails if the machinery stops doing its job.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import torch

pytestmark = pytest.mark.meta

ROOT = Path(__file__).resolve().parents[2]
CPU = torch.device("cpu")


# --------------------------------------------------------------------------- end to end: strictness, warnings, report


class _Run(subprocess.CompletedProcess):
    tmp: Path


def _pytest(
    *args: str,
    impl: str,
    xfails: str | None = None,
    report: str | None = None,
    workers: int | None = None,
    verify: bool = False,
) -> _Run:
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="h2d-meta-"))
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "--hypothesis-profile",
        "dev",
        "--h2d-impl",
        impl,
        f"--h2d-verify={'on' if verify else 'off'}",
        *args,
    ]
    if xfails == "none":
        cmd += ["--h2d-xfails", "none"]
    elif xfails is not None:
        (tmp / "x.txt").write_text(xfails)
        cmd += ["--h2d-xfails", str(tmp / "x.txt")]
    if report:
        cmd += ["--h2d-report", str(tmp / report)]
    if workers:
        cmd += ["-n", str(workers)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    run = _Run(proc.args, proc.returncode, proc.stdout + proc.stderr, proc.stderr)
    run.tmp = tmp
    return run


MUTANT = "h2d_contracts.contracts.mutants:broadcast_into_out"
OUT_SHAPE = "tests/test_out.py::test_out_shape_rejected"
BAD_BROADCAST = "tests/test_bad_input.py::test_bad_input[cpu-broadcastable-out]"


def test_node_and_contract_entries_turn_failures_into_xfails():
    """The mutant fails both tests (see the next test); listed, one by node id and one by contract id, they are xfailed."""
    proc = _pytest(
        f"{OUT_SHAPE}[cpu]",
        BAD_BROADCAST,
        impl=MUTANT,
        xfails=f"{OUT_SHAPE}[cpu]  # broadcasts\nbad-input  match=no\\sexception:\\sgot\\sa\\sresult  # broadcasts too\n",
    )
    assert proc.returncode == 0, proc.stdout
    assert "2 xfailed" in proc.stdout


def test_unlisted_failure_fails_and_the_report_has_its_reproduction():
    """An entry for another contract covers nothing: both failures stay failures; the report (under xdist) has the shrunk call."""
    proc = _pytest(
        f"{OUT_SHAPE}[cpu]", BAD_BROADCAST, impl=MUTANT, xfails="values  match=.  # unrelated\n", report="m", workers=2
    )
    assert proc.returncode == 1, proc.stdout
    assert "2 failed" in proc.stdout
    data = json.loads((proc.tmp / "m.json").read_text())
    assert data["contracts"]["out"]["outcome"] == "fail" and data["contracts"]["bad-input"]["outcome"] == "fail"
    failure = data["tests"][f"{OUT_SHAPE}[cpu]"]
    assert failure["status"] == "failed"
    assert "call: async_tensor_h2d(" in "\n".join(v["message"] for v in failure["violations"])
    assert any("Draw" in n for v in failure["violations"] for n in v["notes"])  # Hypothesis's shrunk draws
    assert "call: async_tensor_h2d(" in (proc.tmp / "m.md").read_text()


def test_a_new_kind_of_failure_in_a_listed_contract_is_unexpected():
    """A contract entry whose match= names another failure does not hide this one; an entry whose if= fails is inactive."""
    proc = _pytest(
        BAD_BROADCAST,
        impl=MUTANT,
        xfails="bad-input  match=RuntimeError  # expects another kind\nbad-input  if=cuda,no-cuda  match=.  # never active\n",
        report="m",
    )
    assert proc.returncode == 1, proc.stdout
    assert "1 failed" in proc.stdout and "UNEXPECTED: no entry's match= covers this failure" in proc.stdout
    data = json.loads((proc.tmp / "m.json").read_text())
    assert data["tests"][BAD_BROADCAST]["status"] == "failed"
    assert "UNEXPECTED" in (proc.tmp / "m.md").read_text()


def test_an_entry_not_witnessed_while_its_contract_fails_as_expected_is_a_note():
    """Contract-level strictness: a second entry of a failing contract that saw no failure this run is listed, not a failure."""
    proc = _pytest(
        BAD_BROADCAST,
        impl=MUTANT,
        xfails="bad-input  match=no\\sexception:\\sgot\\sa\\sresult  # broadcasts\nbad-input  match=NeverSeenKind  # another kind, not hit\n",
        report="m",
    )
    assert proc.returncode == 0, proc.stdout
    assert "1 xfailed" in proc.stdout
    assert "expected failure not witnessed this run" in proc.stdout and "NeverSeenKind" in proc.stdout
    data = json.loads((proc.tmp / "m.json").read_text())
    assert [u.split(": ", 1)[1] for u in data["unwitnessed_xfails"]] == ["bad-input match=NeverSeenKind"] and data[
        "xpassed_contracts"
    ] == []


def test_a_fault_entry_covers_its_fault_under_any_contract_and_an_unseen_one_fails_the_run():
    """A ``fault`` entry names a fault by what it is (its message, optionally its input class), so it covers the fault
    under whichever contract's draw meets it; one of another input class covers nothing; a fault no test showed is an
    [XPASS(strict)]."""
    broadcast = (
        "fault  match=(no\\sexception:\\sgot\\sa\\sresult|wrong\\sexception\\stype)"
        "  # out.copy_ broadcasts or torch refuses the shape, met by out and bad-input alike\n"
    )
    proc = _pytest(f"{OUT_SHAPE}[cpu]", BAD_BROADCAST, impl=MUTANT, xfails=broadcast, report="m")
    assert proc.returncode == 0, proc.stdout
    assert "2 xfailed" in proc.stdout
    data = json.loads((proc.tmp / "m.json").read_text())
    assert {data["tests"][t]["status"] for t in (f"{OUT_SHAPE}[cpu]", BAD_BROADCAST)} == {"xfailed"}
    other = broadcast.replace(")  #", ")  input=tensor  #")
    proc = _pytest(BAD_BROADCAST, impl=MUTANT, xfails=other + "fault  match=NeverSeenFault  # listed, never shown\n")
    assert proc.returncode == 1, proc.stdout
    assert "1 failed" in proc.stdout and "UNEXPECTED" in proc.stdout
    # one test of the suite was selected: a fault it never met is a note here; a run of the whole suite fails on it
    assert "NeverSeenFault (a fault; this run selected part of the suite)" in proc.stdout


def test_a_fault_entry_is_strict_in_a_run_of_the_whole_suite():
    """Which runs hold a fault entry strictly: the whole suite, not one narrowed by -k, -m or a test path."""
    from types import SimpleNamespace

    from h2d_contracts import SUITE_DIR
    from h2d_contracts.plugin.verdict import _whole_suite

    def config(args, keyword="", markexpr=""):
        options = {"keyword": keyword, "markexpr": markexpr}
        return SimpleNamespace(
            args=args,
            getoption=lambda name, default=None: options.get(name, default),
            invocation_params=SimpleNamespace(dir=ROOT),
        )

    assert _whole_suite(config(["tests"])) and _whole_suite(config([str(SUITE_DIR)]))
    assert not _whole_suite(config(["tests"], keyword="cuda"))
    assert not _whole_suite(config(["tests"], markexpr="not gpu"))
    assert not _whole_suite(config(["tests/test_values.py"]))
    assert not _whole_suite(config(["tests/test_values.py::test_values"]))


def test_a_test_entry_covers_a_timeout_and_matches_the_id_pytest_prints(tmp_path):
    """A node-id entry covers a test that ran past --timeout (a contract entry never does: a timeout is no violation); an
    entry spelled as pytest prints an installed suite's ids (no ``tests/``) names the same test."""
    test = "tests/test_values.py::test_values[cpu]"
    proc = _pytest(
        test,
        "--timeout=3",
        "-p",
        "no:xdist",
        impl="tests.meta._runner_targets:sleeps",
        xfails="test_values.py::test_values[cpu]  match=ran\\spast\\sits  # every call of this target sleeps\n",
        report="m",
    )
    assert proc.returncode == 0, proc.stdout
    assert "1 xfailed" in proc.stdout
    proc = _pytest(
        test,
        "--timeout=3",
        "-p",
        "no:xdist",
        impl="tests.meta._runner_targets:sleeps",
        xfails="values  match=.  # a contract entry\n",
    )
    assert proc.returncode == 1 and "1 failed" in proc.stdout, proc.stdout


def test_unexpected_passes_fail_the_run_and_stale_entries_warn():
    proc = _pytest(
        "tests/test_no_target.py::test_no_target[cpu]",
        "tests/test_values.py::test_values[cpu]",
        impl="reference",
        xfails="tests/test_no_target.py::test_no_target  # wrongly listed\nvalues  match=.  # wrongly listed\ntests/test_nothing.py::test_gone  # stale\n",
    )
    assert proc.returncode == 1, proc.stdout
    assert "[XPASS(strict)] listed as an expected failure but passed" in proc.stdout  # the node-id entry
    assert (
        "[XPASS(strict)] contract or fault listed as an expected failure but no test failed by it" in proc.stdout
    )  # the contract entry
    assert "matched no collected test" in proc.stdout and "test_gone" in proc.stdout


def test_an_entry_of_a_contract_that_was_not_applicable_is_not_an_unexpected_pass():
    """A contract entry whose contract no test could judge (every test not applicable: a target without the class) is
    "matched no test that ran", not [XPASS(strict)]: an earlier vLLM release without FusedStagedWriter keeps the shared
    fused-writes entry; the same entry with a test that ran and passed is an [XPASS(strict)]."""
    proc = _pytest(
        "tests/test_buffer.py::test_buffer_copy[cpu]",
        impl="tests.meta._runner_targets:corrupts_multi_mb",
        xfails="buffer  match=.  # a class this target does not have\n",
    )
    assert proc.returncode == 0, proc.stdout
    assert "not applicable" in proc.stdout or "1 skipped" in proc.stdout, proc.stdout
    assert "[XPASS(strict)]" not in proc.stdout and "expected failure matched no test that ran" in proc.stdout
    proc = _pytest(
        "tests/test_buffer.py::test_buffer_copy[cpu]", impl="reference", xfails="buffer  match=.  # wrongly listed\n"
    )
    assert proc.returncode == 1 and "[XPASS(strict)] contract or fault listed" in proc.stdout, proc.stdout


def test_user_adapter_by_module_factory_report_under_xdist():
    """``--h2d-impl examples.fork_adapter:target`` in a real run with -n 2: pass, fail and not applicable in the report."""
    proc = _pytest(
        "tests/test_values.py::test_values[cpu]",
        "tests/test_no_target.py::test_no_target[cpu]",
        "tests/test_out.py::test_out_written[cpu]",
        "tests/test_cpu_path.py::test_cpu_path",
        "tests/test_buffer.py::test_buffer_init[cpu]",
        impl="examples.fork_adapter:target",
        xfails="none",
        report="r",
        workers=2,
    )
    data = json.loads((proc.tmp / "r.json").read_text())
    md = (proc.tmp / "r.md").read_text()
    assert data["target"] == "example-fork" and data["torch"] == torch.__version__ and data["machine"]
    c = data["contracts"]
    # the example passes device=None through, so "neither device nor out" returns a host tensor: a real failure
    assert c["target"]["outcome"] == "fail", c["target"]
    assert (
        c["out"]["outcome"] == "not applicable"
        and c["cpu-path"]["outcome"] == "not applicable"
        and c["buffer"]["outcome"] == "not applicable"
    )
    assert "| target | fail |" in md and "| out | not applicable |" in md
    assert c["values"]["outcome"] in ("pass", "fail")  # byte-swapped arrays may or may not be drawn in 10 examples


def test_example_database_can_be_private_or_off(tmp_path):
    """--h2d-example-db PATH saves the falsifying example there; 'none' saves nothing (independent seeds replay nothing)."""
    db = tmp_path / "db"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--h2d-verify=off",
            "--h2d-impl",
            MUTANT,
            "--h2d-xfails",
            "none",
            f"{OUT_SHAPE}[cpu]",
            "--h2d-example-db",
            str(db),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1 and db.is_dir() and any(db.iterdir()), proc.stdout[-2000:]
    off = tmp_path / "off"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--h2d-verify=off",
            "--h2d-impl",
            MUTANT,
            "--h2d-xfails",
            "none",
            f"{OUT_SHAPE}[cpu]",
            "--h2d-example-db",
            "none",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "HYPOTHESIS_STORAGE_DIRECTORY": str(off)},
    )
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert not (off / "examples").exists(), sorted(p.name for p in off.rglob("*"))


def test_recheck_xfails_judges_a_recorded_report_offline():
    """tools/recheck_xfails.py: a recorded failure covered by an edited file exits 0; a file whose match= misses it, 1 (UNEXPECTED)."""
    proc = _pytest(BAD_BROADCAST, impl=MUTANT, xfails="none", report="m")
    assert proc.returncode == 1, proc.stdout
    tool = [sys.executable, str(ROOT / "tools" / "recheck_xfails.py"), str(proc.tmp / "m.json")]
    good, bad = proc.tmp / "good.txt", proc.tmp / "bad.txt"
    good.write_text("bad-input  match=no\\sexception:\\sgot\\sa\\sresult  # broadcasts\n")
    bad.write_text("bad-input  match=RuntimeError  # another kind\n")
    ok = subprocess.run([*tool, str(good)], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "UNEXPECTED: []" in ok.stdout, ok.stdout + ok.stderr
    no = subprocess.run([*tool, str(bad)], capture_output=True, text=True, timeout=120)
    assert no.returncode == 1 and f"UNEXPECTED: ['{BAD_BROADCAST}']" in no.stdout, no.stdout + no.stderr


def test_a_run_without_a_seed_records_the_seed_it_used():
    """No --hypothesis-seed: the kit chooses one, forces it in every xdist worker, and the report records it (replayable)."""
    proc = _pytest(
        "tests/test_no_target.py::test_no_target[cpu]",
        "-m",
        "not meta",
        impl="reference",
        xfails="none",
        report="s",
        workers=2,
    )
    assert proc.returncode == 0, proc.stdout
    data = json.loads((proc.tmp / "s.json").read_text())
    assert isinstance(data["seed"], int) and data["seed_chosen_at_random"] is True
    assert (
        "-m 'not meta'" in data["command"] and shlex.split(data["command"])[0] == "pytest"
    )  # shell-quoted: pastes back


# --------------------------------------------------------------------------- only the target is judged


def test_every_test_reported_as_passed_called_the_target(tmp_path):
    """The whole checkout suite against a target that logs its callers: no test passes without a call.

    Independent of the plugin's own per-test count (which fails such a test as a kit error):
    the log is written by the target itself (``tests/meta/logging_target.py``), and the
    junit XML says what pytest reported. The reference's own tests and the kit's meta-tests
    are left out by folder against any target but the reference, so none of them is in the
    XML at all.
    """
    log, junit = tmp_path / "calls.log", tmp_path / "junit.xml"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "-n",
        "2",
        "--h2d-impl",
        "tests.meta.logging_target:target",
        "--h2d-xfails=none",
        "--h2d-verify=off",
        f"--junitxml={junit}",
        "tests",
    ]
    proc = subprocess.run(
        cmd,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**__import__("os").environ, "H2D_TEST_LOG": str(log)},
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    import xml.etree.ElementTree as ET

    cases = [c.get("classname", "") for c in ET.parse(junit).getroot().iter("testcase")]
    assert cases and not any(".meta." in c or ".reference." in c for c in cases), (
        "the reference's tests or the meta-tests ran against another target"
    )
    check = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "passed_without_calls.py"), str(junit), str(log)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stdout
    assert " 0 of them never called the target" in check.stdout, check.stdout


def test_a_suite_test_that_never_calls_the_target_cannot_pass(tmp_path):
    """The plugin's own rule: a contract-suite test that passes without one call into the target is a failure (a kit error)."""
    import os
    import uuid

    folder = ROOT / "tests" / f"_probe_{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    try:
        (folder / "__init__.py").write_text("")
        (folder / "test_probe.py").write_text(
            "def test_calls(target):\n    target.async_tensor_h2d([1], device='cpu')\n\n\ndef test_never_calls(target):\n    assert target.name\n"
        )
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--h2d-verify=off", str(folder)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ},
        )
    finally:
        import shutil

        shutil.rmtree(folder)
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "1 failed, 1 passed" in proc.stdout and "passed without calling the target 'reference'" in proc.stdout, (
        proc.stdout[-2000:]
    )


def test_the_call_log_check_names_a_pass_without_a_call(tmp_path):
    junit = tmp_path / "j.xml"
    junit.write_text(
        '<testsuites><testsuite><testcase classname="tests.test_values" name="test_values[cpu]"/><testcase classname="tests.test_out" name="test_out_written[cpu]"/><testcase classname="tests.test_out" name="test_out_dense_table[cpu]"><skipped/></testcase></testsuite></testsuites>'
    )
    log = tmp_path / "calls.log"
    log.write_text("../site-packages/h2d_contracts/tests/test_values.py::test_values[cpu]\n")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "passed_without_calls.py"), str(junit), str(log)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and "passed without a call: test_out.py::test_out_written[cpu]" in proc.stdout, (
        proc.stdout
    )


#: The planted defects of tests/meta/_runner_targets.py:several_defects, as (contract, a piece of the kind, an input kind it shows on).
SEVERAL_DEFECTS = [
    ("no-alias", "result memory overlaps the input", "ndarray"),
    ("no-alias", "result memory overlaps the input", "tensor"),
    ("out", "no exception", "+out"),
    ("bad-input", "no exception", ""),
    ("dtype", "dtype disagrees with out.dtype: no exception", "+out"),
    ("target", "wrong exception type", ""),
    ("buffer", "of .gpu was written", "buffer"),
]


def test_every_defect_of_a_target_is_reported_in_one_run(tmp_path):
    """Seven independent defects, two of one message kind on different inputs: all in one run's digest, at the default profile.

    A property that found one kind keeps searching with it set aside (harness.runner), so
    the tensor aliasing is not hidden behind the ndarray aliasing (a user had to fix one to see
    the other); each problem's reproduction is verified.
    """
    report = tmp_path / "several"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "-n",
        "2",
        "--h2d-impl",
        "tests.meta._runner_targets:several_defects",
        "--h2d-xfails=none",
        f"--h2d-report={report}",
        "tests/test_no_alias.py",
        "tests/test_out.py",
        "tests/test_dtype.py",
        "tests/test_no_target.py",
        "tests/test_bad_input.py",
        "tests/test_buffer.py",
        "-k",
        "cpu",
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1, proc.stdout[-3000:]
    data = json.loads(report.with_suffix(".json").read_text())
    problems = data["problems"]
    for contract, kind, cls in SEVERAL_DEFECTS:
        hits = [
            p
            for p in problems
            if p["contract"] == contract and kind in p["kind"] and (not cls or any(cls in c for c in p["classes"]))
        ]
        assert hits, (
            f"defect ({contract}, {kind}, {cls}) missing from the digest: {[(p['contract'], p['kind'], p['classes']) for p in problems]}"
        )
        assert any(p["verified"] for p in hits), [(p["id"], p["verify_reason"]) for p in hits]
    timed = [p["verify_seconds"] for p in problems if p["verified"]]
    assert timed and all(len(s) == 2 and min(s) >= 0 for s in timed), timed  # the target's run, then the reference's
    assert "distinct problems of runner:several_defects" in proc.stdout
