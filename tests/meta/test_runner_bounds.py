"""Meta-tests: a failing or hanging target still ends the run, with a report, in bounded time.

Each test runs pytest in a subprocess on a slice of the suite against a target of
``tests/_runner_targets.py`` and checks the wall time against a stated budget, the exit
status and the ``--h2d-report`` JSON. Budgets are wide (a loaded 2-core CI machine) but
far below what the failure modes cost: before these fixes, one multi-MB failure under
Hypothesis's explain phase took minutes to describe, and a hanging target never let the
run end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

pytestmark = pytest.mark.meta

ROOT = Path(__file__).resolve().parents[2]


def _pytest(
    args: list[str], report: Path, budget_s: float, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess, dict, float]:
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "--h2d-xfails=none",
        "--h2d-verify=off",
        f"--h2d-report={report}",
        *args,
    ]
    t0 = time.monotonic()
    proc = subprocess.run(
        cmd, cwd=ROOT, capture_output=True, text=True, timeout=budget_s * 3, env={**os.environ, **(env or {})}
    )
    wall = time.monotonic() - t0
    assert report.with_suffix(".json").is_file(), (
        f"no report written ({wall:.0f} s):\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
    )
    return proc, json.loads(report.with_suffix(".json").read_text()), wall


def test_multi_mb_failure_is_reported_in_bounded_time(tmp_path):
    """A target that corrupts 4-16 MiB payloads: the run ends within 90 s and the report rebuilds the input in one short line."""
    proc, rep, wall = _pytest(
        [
            "-p",
            "no:xdist",
            "--h2d-impl",
            "tests.meta._runner_targets:corrupts_multi_mb",
            "tests/test_values.py",
            "-k",
            "test_values_multi_mb and cpu",
        ],
        tmp_path / "r",
        budget_s=90,
    )
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert wall < 90, f"took {wall:.0f} s"
    (test,) = rep["tests"].values()
    assert test["status"] == "failed"
    assert test["violations"] and all(
        v["contract"] == "values" for v in test["violations"]
    )  # ndarrays and tensors: a kind each
    for violation in test["violations"]:
        call = next(line for line in violation["message"].splitlines() if line.strip().startswith("call:"))
        assert "np.arange(" in call and len(call) < 300, call  # a verified constructor, not 1-4 Mi literals
    assert len(json.dumps({k: v for k, v in test.items() if k != "violations"})) < 10_000
    assert all(
        len(v["repro"]) < 10_000 for v in test["violations"]
    )  # the reproduction rebuilds it by a constructor too


def test_hanging_target_is_cut_off_per_test_and_the_report_completes(tmp_path):
    """A target whose every call sleeps 10 minutes: each test is cut at --timeout, naming the test and the call; after
    --h2d-max-hangs the rest fail at once as 'not run'; the whole run ends within 120 s."""
    proc, rep, wall = _pytest(
        [
            "-p",
            "no:xdist",
            "--timeout=3",
            "--h2d-impl",
            "tests.meta._runner_targets:sleeps",
            "tests/test_values.py",
            "tests/test_no_alias.py",
            "-k",
            "cpu and (test_values or test_no_alias)",
        ],
        tmp_path / "r",
        budget_s=120,
    )
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert wall < 120, f"took {wall:.0f} s"
    tests = rep["tests"]
    assert len(tests) >= 5 and all(t["status"] in ("failed", "timed out") for t in tests.values()), {
        k: t["status"] for k, t in tests.items()
    }
    texts = {nodeid: "\n".join(t.get("errors", [])) for nodeid, t in tests.items()}
    cut = [n for n, text in texts.items() if "ran past its 3 s budget" in text]
    assert len(cut) == 3, texts  # --h2d-max-hangs default
    assert all(tests[n]["status"] == "timed out" for n in cut)  # a timeout is reported as one, never as a violation
    for nodeid in cut:
        assert nodeid in texts[nodeid] and "call in flight: fn(" in texts[nodeid], texts[nodeid]
    assert all(
        "not run: 3 tests of this process already ran past --timeout" in texts[n] for n in set(texts) - set(cut)
    ), texts


def test_lost_device_context_is_named_once_and_ends_the_process_tests(tmp_path):
    """A target whose third call loses the CUDA context (simulated on the CPU): the test during which it was lost fails
    naming the error ("[device lost]"), every later test of the process fails at once as "not run" naming that test,
    and any test before it passes."""
    proc, rep, wall = _pytest(
        [
            "-p",
            "no:xdist",
            "-p",
            "tests.meta._simulated_device_loss",
            "--h2d-impl",
            "tests.meta._runner_targets:loses_device",
            "tests/test_values.py",
            "-k",
            "cpu and test_values",
        ],
        tmp_path / "r",
        budget_s=120,
    )
    assert proc.returncode == 1, proc.stdout[-3000:]
    tests = rep["tests"]
    texts = {nodeid: "\n".join(t.get("errors", [])) for nodeid, t in tests.items()}
    lost = [n for n, text in texts.items() if "[device lost]" in text]
    assert len(lost) == 1, texts
    assert "an illegal memory access was encountered" in texts[lost[0]]
    later = [n for n, text in texts.items() if f"not run: this process's CUDA context was lost in {lost[0]}" in text]
    assert len(later) >= 5, texts  # every other selected test: the report keeps no run order, so none ran after it
    assert all(tests[n]["status"] == "passed" for n in set(tests) - {lost[0], *later}), texts


def test_lost_device_context_ends_the_worker_and_the_rest_run_in_a_fresh_one(tmp_path):
    """Under xdist, a target that loses the (simulated) CUDA context on its third call and then raises CUDA's sticky
    error on every call: the test during which it was lost fails with one problem whose kind is the loss ("device lost",
    not the "a valid call raised" or "nondeterministic target" its later calls and replays saw), its worker ends, and
    every other test runs in a fresh worker and passes: none is reported "not run". (Six cheap tests, tables and
    properties: whichever a worker runs first loses the context.)"""
    proc, rep, wall = _pytest(
        [
            "-n",
            "2",
            "-p",
            "tests.meta._simulated_device_loss",
            "--h2d-impl",
            "tests.meta._runner_targets:loses_device_then_raises",
            "tests/test_values.py",
            "-k",
            "cpu and (test_values_zero_length or test_values_fields or test_values_first_call or test_values_rows "
            "or test_values_layouts or test_values_int_edges)",
        ],
        tmp_path / "r",
        budget_s=150,
        env={"H2D_META_LOSS_FILE": str(tmp_path / "lost")},
    )
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert (tmp_path / "lost").is_file()  # the target did lose its context once
    tests = rep["tests"]
    failed = [n for n, t in tests.items() if t["status"] != "passed"]
    assert len(failed) == 1, {n: tests[n]["status"] for n in failed}
    assert len(tests) == 6 and not any("not run" in "\n".join(t.get("errors", [])) for t in tests.values()), tests
    problems = rep["problems"]
    lost = [p for p in problems if p["kind"].startswith("device lost: the CUDA context was lost during the calls of ")]
    assert len(lost) == 1 and lost[0]["tests"] == failed, problems
    assert "an illegal memory access was encountered" in lost[0]["description"]
    assert not any("nondeterministic" in p["kind"] or "crashed" in p["description"] for p in problems), problems
    assert "worker ends so that its remaining tests run in a fresh process" in proc.stderr + proc.stdout


def test_hang_the_signal_cannot_reach_ends_the_worker_not_the_run(tmp_path):
    """A hang with SIGALRM blocked (as inside a C call): the worker dumps its stacks and exits, xdist reports the test as
    crashed, and the run and its report complete within 120 s."""
    proc, rep, wall = _pytest(
        [
            "-n",
            "1",
            "--timeout=2",
            "--h2d-impl",
            "tests.meta._runner_targets:hangs_in_c",
            "tests/test_values.py",
            "tests/test_no_alias.py",
            "-k",
            "cpu and (test_values_large or test_no_alias_layouts)",
        ],
        tmp_path / "r",
        budget_s=120,
        env={"H2D_HARD_GRACE_S": "2"},
    )
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert wall < 120, f"took {wall:.0f} s"
    tests = rep["tests"]
    assert set(tests) == {
        "tests/test_values.py::test_values_large[cpu]",
        "tests/test_no_alias.py::test_no_alias_layouts[cpu]",
    }
    for test in tests.values():
        assert test["status"] == "failed" and "crashed while running" in "\n".join(test.get("errors", [])), test
    assert "call in flight: fn(" in proc.stderr, proc.stderr[-2000:]


@pytest.mark.gpu
def test_a_blocking_target_ends_with_a_verified_reproduction_in_under_a_minute(tmp_path):
    """A target whose every call synchronizes the device: the non-blocking contract ends with one shrunk falsifying
    example, both measured times and a verified reproduction well inside a minute, never at --timeout (CUDA only)."""
    if not torch.cuda.is_available():
        pytest.skip("GPU-only: the non-blocking contract needs a CUDA device")
    report = tmp_path / "r"
    t0 = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-q",
            "--timeout=120",
            "--h2d-xfails=none",
            f"--h2d-report={report}",
            "--h2d-impl",
            "tests.meta._runner_targets:blocks",
            "tests/test_gpu.py::test_non_blocking",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    wall = time.monotonic() - t0
    rep = json.loads(report.with_suffix(".json").read_text())
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert wall < 60, f"took {wall:.0f} s"
    (test,) = rep["tests"].values()
    assert test["status"] == "failed" and test["violations"], test
    assert "blocked the host until the stream's queued work had finished, twice" in test["violations"][0]["message"]
    (problem,) = rep["problems"]
    assert problem["verified"], problem
