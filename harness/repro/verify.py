"""Verification: a reproduction run in a fresh interpreter, against the target (it must fail the same way) and the reference (it must pass)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

import torch

from ..violations import ContractViolation, NotApplicable, problem_key

# --------------------------------------------------------------------------- verification in a fresh interpreter

#: Runs a reproduction in a fresh interpreter and prints what happened after this marker.
_MARK = "H2D-REPRO "
_DRIVER = r"""
import json, runpy, sys, traceback
from h2d_contracts.harness.violations import ContractViolation, NotApplicable, problem_key
def walk(e):
    if isinstance(e, BaseExceptionGroup):
        for s in e.exceptions:
            yield from walk(s)
    else:
        yield e
try:
    runpy.run_path(sys.argv[1], run_name="__main__")
    out = {"outcome": "passed"}
except NotApplicable as exc:
    out = {"outcome": "not applicable", "detail": str(exc)}
except BaseException as exc:
    found = [e for e in walk(exc) if isinstance(e, ContractViolation)]
    if found:
        out = {"outcome": "violation", "problems": [list(problem_key(e)) for e in found], "message": str(found[0])[:2000]}
    else:
        out = {"outcome": "error", "detail": "".join(traceback.format_exception(exc))[-3000:]}
print("H2D-REPRO " + json.dumps(out), flush=True)
sys.stderr.flush()
import os
os._exit(0)  # the outcome is out: nothing after it (atexit handlers, threads, CUDA's teardown) may hold the verdict
"""


@dataclass
class Verdict:
    """What running a reproduction showed: ``verified`` and, when not, why."""

    verified: bool
    reason: str
    on_target: dict[str, Any]
    on_reference: dict[str, Any] | None


def run_script(path: str, *, timeout_s: float = 300.0, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run the reproduction at ``path`` in a fresh interpreter (a subprocess); return its outcome (see :data:`_DRIVER`).

    The outcome is a dict: ``outcome`` (``passed``, ``violation``, ``not applicable``,
    ``error``, ``timed out``), its details, and ``seconds`` (wall time of the run, s).
    The driver ends its process as soon as it has printed the outcome (``os._exit``): an
    interpreter's teardown (atexit handlers, non-daemon threads, CUDA's context
    destruction) cannot hold the verdict. The script runs in a session of its own, and at
    ``timeout_s`` (seconds) its whole process group is killed, children included.
    """
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), **(env or {})}
    environment.pop("PYTEST_CURRENT_TEST", None)
    started = time.monotonic()
    # the pipes closed and the process reaped on leaving the block, whichever way it is left
    with subprocess.Popen(
        [sys.executable, "-c", _DRIVER, path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        start_new_session=True,  # its own process group: pgid == pid
    ) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the script and every process it started
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.communicate(timeout=10)  # a child that left the group could still hold the pipes: not waited for
            return {
                "outcome": "timed out",
                "detail": f"still running after {timeout_s:.0f} s",
                "seconds": round(time.monotonic() - started, 2),
            }
    seconds = round(time.monotonic() - started, 2)
    line = next((ln for ln in stdout.splitlines() if ln.startswith(_MARK)), None)
    if line is None:
        return {"outcome": "error", "detail": f"exit {proc.returncode}: {stderr[-2000:]}", "seconds": seconds}
    return {
        **cast("dict[str, Any]", json.loads(line[len(_MARK) :])),
        "seconds": seconds,
    }  # the driver prints one JSON object


def _forked(path: str, conn: Any) -> None:
    """The driver, in a process forked from the preloaded server: run the script, send its outcome, exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        import runpy
        import traceback

        def walk(e: BaseException) -> Any:
            if isinstance(e, BaseExceptionGroup):
                for sub in e.exceptions:
                    yield from walk(sub)
            else:
                yield e

        sys.argv = [path]
        try:
            runpy.run_path(path, run_name="__main__")
            out: dict[str, Any] = {"outcome": "passed"}
        except NotApplicable as exc:
            out = {"outcome": "not applicable", "detail": str(exc)}
        except BaseException as exc:  # noqa: BLE001 - the outcome is reported whatever it is
            found = [e for e in walk(exc) if isinstance(e, ContractViolation)]
            if found:
                out = {
                    "outcome": "violation",
                    "problems": [list(problem_key(e)) for e in found],
                    "message": str(found[0])[:2000],
                }
            else:
                out = {"outcome": "error", "detail": "".join(traceback.format_exception(exc))[-3000:]}
    conn.send(out)
    conn.close()
    os._exit(0)  # as the driver: no teardown (atexit, threads joined by multiprocessing) after the outcome


#: Set while the preloaded verification server starts: the target specs its import loads.
PRELOAD_ENV = "H2D_REPRO_PRELOAD"


def _preloaded_runner(
    specs: list[str], workers: int, timeout_s: float
) -> Callable[[list[str]], list[dict[str, Any]]] | None:
    """A runner that forks each script's process from a server that has imported torch, numpy, the kit and the targets' modules.

    A fork costs milliseconds where a fresh ``python`` costs seconds (importing torch, and
    vLLM's modules for its targets: 4 s). Nothing has run in the server but imports
    (:mod:`contracts.targets.preload` loads the targets, never calls them), so a forked child is
    as fresh for a contract as a new interpreter: torch's once-per-process warnings have not
    fired. Only without CUDA: forking a process that initialised CUDA is unsafe, so a CUDA
    machine runs every script in a new interpreter (:func:`run_script`). None when forking
    is not available here.
    """
    import multiprocessing

    if torch.cuda.is_available() or "forkserver" not in multiprocessing.get_all_start_methods():
        return None
    ctx = multiprocessing.get_context("forkserver")
    previous = os.environ.get(PRELOAD_ENV)
    os.environ[PRELOAD_ENV] = ";".join(specs)
    try:
        ctx.set_forkserver_preload(["h2d_contracts.contracts.targets.preload"])
    except Exception:  # noqa: BLE001 - no preload: each fork imports what it needs
        pass

    def run(paths: list[str]) -> list[dict[str, Any]]:
        results: list[dict[str, Any] | None] = [None] * len(paths)
        pending = list(enumerate(paths))
        running: list[tuple[int, Any, Any, float]] = []

        try:
            while pending or running:
                while pending and len(running) < workers:
                    i, path = pending.pop(0)
                    parent, child = ctx.Pipe(duplex=False)
                    proc = ctx.Process(target=_forked, args=(path, child), daemon=True)
                    proc.start()
                    child.close()
                    running.append((i, proc, parent, time.monotonic()))
                for entry in list(running):
                    i, proc, conn, started = entry
                    if conn.poll(0.02):
                        try:
                            results[i] = conn.recv()
                        except EOFError:
                            results[i] = {
                                "outcome": "error",
                                "detail": f"the process ended without an outcome (exit {proc.exitcode})",
                            }
                    elif not proc.is_alive():
                        results[i] = {
                            "outcome": "error",
                            "detail": f"the process ended without an outcome (exit {proc.exitcode})",
                        }
                    elif time.monotonic() - started > timeout_s:
                        proc.kill()
                        results[i] = {"outcome": "timed out", "detail": f"still running after {timeout_s:.0f} s"}
                    else:
                        continue
                    results[i] = {**cast("dict[str, Any]", results[i]), "seconds": round(time.monotonic() - started, 2)}
                    proc.join(5)
                    conn.close()
                    running.remove(entry)
        finally:
            for _, proc, _conn, _ in running:
                proc.kill()
            if previous is None:
                os.environ.pop(PRELOAD_ENV, None)
            else:
                os.environ[PRELOAD_ENV] = previous
        return [r if r is not None else {"outcome": "error", "detail": "not run"} for r in results]

    return run


_TARGET_LINE = re.compile(r"^target = load_target\((?P<spec>'[^'\n]*'|\"[^\"\n]*\")\)$", re.M)


def reference_twin(script: str, spec: str) -> str:
    """The same script with the target line pointing at the reference (its CPU variant for a CPU-variant entry point)."""
    ref = "reference[cpu-variant]" if spec.endswith("[cpu-variant]") else "reference"
    return _TARGET_LINE.sub(f"target = load_target({ref!r})", script, count=1)


def verify(
    jobs: list[tuple[str, str, str, tuple[str, str]]],
    workdir: str,
    *,
    timeout_s: float = 300.0,
    workers: int | None = None,
) -> list[Verdict]:
    """Run each ``(name, script, spec, expected problem key)`` against its target and the reference, in parallel.

    Verified means: on the target the script raised a violation of the expected
    ``(contract, kind)`` (:func:`harness.violations.problem_key`), and on the
    reference it passed. Scripts are written to ``workdir/<name>.py`` (the target's) and
    ``workdir/<name>.reference.py``.
    """
    os.makedirs(workdir, exist_ok=True)
    workers = workers or max(1, os.cpu_count() or 1)
    paths, refs = [], []
    for name, script, spec, _ in jobs:
        path = os.path.join(workdir, f"{name}.py")
        with open(path, "w") as fh:
            fh.write(script)
        ref_path = os.path.join(workdir, f"{name}.reference.py")
        with open(ref_path, "w") as fh:
            fh.write(reference_twin(script, spec))
        paths.append(path)
        refs.append(ref_path)
    specs = sorted({spec.removesuffix("[cpu-variant]") for _, _, spec, _ in jobs} | {"reference"})
    runner = _preloaded_runner(specs, workers, timeout_s)
    if runner is None:
        with ThreadPoolExecutor(max_workers=workers) as pool:

            def run(ps: list[str]) -> list[dict[str, Any]]:
                return list(pool.map(lambda p: run_script(p, timeout_s=timeout_s), ps))

            on_target, on_reference = run(paths), run(refs)
    else:
        on_target, on_reference = runner(paths), runner(refs)
    verdicts = []
    for (_name, _, spec, key), got, ref in zip(jobs, on_target, on_reference):
        if got["outcome"] != "violation":
            verdicts.append(
                Verdict(
                    False,
                    f"on {spec} it {_ended(got['outcome'])}"
                    + (f": {got.get('detail', '')[-300:]}" if got.get("detail") else ""),
                    got,
                    None,
                )
            )
        elif list(key) not in got["problems"]:
            seen = "; ".join(f"[{c}] {k}" for c, k in got["problems"])
            verdicts.append(Verdict(False, f"on {spec} it failed another way: {seen}", got, None))
        elif ref["outcome"] != "passed":
            detail = ref.get("message") or ref.get("detail") or ""
            verdicts.append(
                Verdict(
                    False,
                    f"on the reference it {_ended(ref['outcome'])} too (a kit error, or an input the reference refuses): {detail[:300]}",
                    got,
                    ref,
                )
            )
        else:
            verdicts.append(Verdict(True, "", got, ref))
    return verdicts


def _ended(outcome: str) -> str:
    """A run's outcome as a verb phrase: ``passed``, ``was not applicable``, ``failed with a violation``, ``ended in an error``."""
    return {
        "violation": "failed with a violation",
        "error": "ended in an error",
        "not applicable": "was not applicable",
    }.get(outcome, outcome)
