"""Meta-tests of what a report says against a user-style engine: every violation states what it got and what it
expected, and every ``call:`` line of a single call, pasted after the report's preamble, runs as the failure says.

The run is the kit against ``examples/mosaic`` (an engine with 18 planted defects), on the host, at a fixed seed
and the ``dev`` profile. A ``call:`` line "reproduces" its failure when, run after the preamble in a fresh
interpreter, it ends the way the violation reports the call ended: raising the exception type the violation names
(``got ValueError: ...``, ``a valid call raised: got ...``), raising something for a failing call, or returning
(every violation about a result: values, dtype, layout, aliasing, ``no exception: got a result``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.meta

ROOT = Path(__file__).resolve().parents[2]

_DRIVER = r"""
import json, sys
calls = json.loads(sys.stdin.read())
namespace = {}
exec(compile(calls.pop(0), "<preamble>", "exec"), namespace)
out = []
for call in calls:
    try:
        eval(compile(call, "<call>", "eval"), dict(namespace))
        out.append("returned")
    except Exception as exc:
        out.append(type(exc).__name__)
print("H2D-OUTCOMES " + json.dumps(out))
"""


@pytest.fixture(scope="module")
def mosaic_report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    where = tmp_path_factory.mktemp("mosaic") / "mosaic"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "examples/mosaic"), os.environ.get("PYTHONPATH")])),
    }
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2", "tests"]
    cmd += ["--ignore=tests/meta", "--ignore=tests/reference", "--hypothesis-profile", "dev"]
    cmd += ["--h2d-impl", "mosaic.h2d_target:target", "--h2d-xfails=none", "--hypothesis-seed=20261201"]
    cmd += ["--h2d-verify=off", "--h2d-report", str(where)]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    return json.loads(Path(f"{where}.json").read_text())


def _violations(report: dict) -> list[dict]:
    return [v for t in report["tests"].values() for v in t["violations"]]


def test_every_violation_says_what_it_got_and_expected(mosaic_report):
    found = _violations(mosaic_report)
    assert len(found) > 50
    for v in found:
        text = v["message"]
        got = re.search(r"got (.*?), expected (\S.*)", text, re.S)
        assert got and got.group(1).strip() and got.group(2).strip(), text[:600]


def _expected_outcome(message: str) -> str | None:
    first = message.splitlines()[0]
    if "nondeterministic target" in first:
        return None  # by definition not the same outcome twice
    raised = re.search(r": got (\w+(?:Error|Exception|Warning))\b", first)
    if raised:
        return raised.group(1)
    if "by a failing call" in first or "bad input" in first and "no exception" not in first:
        return "raised"
    return "returned"


def _single_calls(report: dict) -> list[tuple[str, str]]:
    """(call line, expected outcome) for every violation whose call: line is one call of the target's function or class."""
    names = {"async_tensor_h2d", "async_tensor_h2d_cpu", "CpuGpuBuffer"}
    out = []
    for v in _violations(report):
        line = next(
            (ln.strip()[len("call: ") :] for ln in v["message"].splitlines() if ln.strip().startswith("call: ")), None
        )
        if line is None:
            continue
        code = line.split("  # ")[0]
        try:
            tree = ast.parse(code, mode="eval")
        except SyntaxError:
            continue
        func = tree.body.func if isinstance(tree.body, ast.Call) else None
        while isinstance(func, ast.Attribute):  # CpuGpuBuffer(...).copy_to_gpu(n)
            func = func.value.func if isinstance(func.value, ast.Call) else None
        if not isinstance(func, ast.Name) or func.id not in names:
            continue
        want = _expected_outcome(v["message"])
        if want is not None:
            out.append((code, want))
    return out


def test_every_single_call_line_runs_after_the_preamble_as_the_failure_says(mosaic_report):
    preamble = mosaic_report["preamble"]
    assert "load_target('mosaic.h2d_target:target')" in preamble
    calls = list(dict.fromkeys(_single_calls(mosaic_report)))
    assert len(calls) >= 15, calls
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "examples/mosaic"), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.run(
        [sys.executable, "-c", _DRIVER],
        input=json.dumps([preamble] + [c for c, _ in calls]),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("H2D-OUTCOMES "))
    outcomes = json.loads(line.removeprefix("H2D-OUTCOMES "))
    wrong = [
        (call, want, got)
        for (call, want), got in zip(calls, outcomes)
        if not (got == want or (want == "raised" and got != "returned"))
    ]
    assert not wrong, "\n".join(map(repr, wrong))
