"""Mutation run of the contract suite on a GPU runner: the device half of ``h2d_impl/``.

On a CPU-only machine the contracts never reach the code that runs only for a CUDA
target (``_to_device``, the CUDA branches of ``_async_h2d``/``_resolve_device``,
``CpuGpuBuffer``'s pinning and device copies): mutmut reports those mutants as "no
tests" or lets them survive (docs/records/mutation/README.md). This script runs them where
that code runs, with mutmut's own mutants and trampolines:

    # on the CPU machine: generate the mutants of a revision and pack them
    GPU_PACK=.gpu_carry/mutants.tgz SUITE=contracts bash dev/mutation.sh HEAD
    # on the GPU runner (device tool, carry .gpu_carry):
    python3 dev/gpu_mutation.py --pack .gpu_carry/mutants.tgz --names NAMES.txt --out $OUT

Each mutant is one ``pytest -x`` run in mutmut's ``mutants/`` tree with
``MUTANT_UNDER_TEST=<name>`` (the variable mutmut's trampolines read; mutmut's runner
itself forks workers, which a CUDA context does not survive, so the runs are plain
subprocesses here), several at once on the one GPU. Each run has an empty private
Hypothesis database (no example replayed from another mutant's run), the seed and
profile of the CPU run (``--hypothesis-seed=0``, default profile), and a per-test limit.
Status as mutmut's: exit 1 (a test failed) is ``killed``, exit 0 ``survived``; a run cut
off by the per-run limit is ``timeout``; any other exit is ``error`` (reported, not
counted as killed). Controls run in the same load: the unmutated code (``""``) must
pass and mutmut's ``fail`` sentinel must fail, else the numbers are void.

Results are appended to ``OUT/gpu_mutation.tsv`` as runs finish, so a run cut off by
the device's time limit still returns what it measured; ``--done FILE`` skips mutants
already in an earlier TSV.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

#: The contract tests that reach the device half, fastest and broadest first (``-x`` stops
#: at the first failure). test_reliability.py (concurrent calls: 20-27 s each on the
#: H200; hygiene: 100,000 calls) is left out for time; a mutant only it would catch
#: shows up as a survivor here (a lower bound of what the whole suite kills).
DEFAULT_TESTS = (
    "h2d_contracts/tests/test_values.py",
    "h2d_contracts/tests/test_out.py",
    "h2d_contracts/tests/test_buffer.py",
    "h2d_contracts/tests/test_regressions.py",
    "h2d_contracts/tests/test_gpu.py",
    "h2d_contracts/tests/test_engine.py",
)
DEFAULT_K = "cuda or test_gpu"
CONTROL_EVERY = 60


def _failed_test(output: str) -> str:
    m = re.search(r"^(?:FAILED|ERROR) (\S+)", output, re.M)
    return m.group(1) if m else "-"


#: A third column ``host`` in the names file runs that mutant's tests with ``-k "not cuda"`` on
#: the GPU machine: the host-target cases (plus test_gpu.py's tests, whose ids name no device),
#: for code that runs for a CPU target only where pinned memory and CUDA exist
#: (``_async_h2d``'s device-count branch, a pinned zero-copy to "cpu").
HOST_K = "not cuda"


def run_one(
    name: str, mutants_dir: Path, env: dict[str, str], args: argparse.Namespace, k: str | None = None
) -> tuple[str, str, int, float, str]:
    """One pytest run with ``MUTANT_UNDER_TEST=name``: (name, status, exit code, seconds, first failing test)."""
    with tempfile.TemporaryDirectory() as db:
        run_env = dict(env, MUTANT_UNDER_TEST=name, HYPOTHESIS_STORAGE_DIRECTORY=db)
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-x",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-m",
            "not meta",
            "--hypothesis-seed=0",
            "--timeout",
            str(args.test_timeout),
            "-k",
            k or args.k,
            *args.tests,
        ]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(
                cmd, cwd=mutants_dir, env=run_env, capture_output=True, text=True, timeout=args.run_timeout
            )
            rc, output = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as e:
            rc, output = (
                -9,
                (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""),
            )
        secs = time.monotonic() - t0
    status = {0: "survived", 1: "killed", -9: "timeout"}.get(rc, "error")
    if name == "" and rc != 0:  # an unmutated control that failed: keep its output, it says why
        with open(Path(args.out) / "control_failure.txt", "a") as f:
            f.write(f"=== unmutated control, exit {rc}\n{output[-6000:]}\n")
    if status == "error":
        tail = " | ".join(output.strip().splitlines()[-3:])[:300]
        return name, status, rc, secs, tail
    return name, status, rc, secs, _failed_test(output)


def _run_queue(
    queue: list[str],
    mutants_dir: Path,
    env: dict[str, str],
    args: argparse.Namespace,
    selection: dict[str, str],
    tsv: Path,
    t_start: float,
) -> list[tuple[str, str, int, float, str]]:
    """Run the queue ``args.workers`` at a time, launching none after ``args.budget_s``; each result goes to ``tsv``."""
    results: list[tuple[str, str, int, float, str]] = []
    with ThreadPoolExecutor(args.workers) as pool:
        pending = set()
        it = iter(queue)
        exhausted = False
        while True:
            while not exhausted and len(pending) < args.workers and time.monotonic() - t_start < args.budget_s:
                try:
                    name = next(it)
                    pending.add(pool.submit(run_one, name, mutants_dir, env, args, selection.get(name)))
                except StopIteration:
                    exhausted = True
            if not pending:
                break
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                r = fut.result()
                results.append(r)
                label = {"": "(control: unmutated)", "fail": "(control: fail sentinel)"}.get(r[0], r[0])
                with tsv.open("a") as f:
                    f.write(f"{label}\t{r[1]}\t{r[2]}\t{r[3]:.1f}\t{r[4]}\n")
                print(f"[{time.monotonic() - t_start:6.0f}s] {r[1]:8s} {r[3]:5.1f}s {label} {r[4]}", flush=True)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", required=True, help="tarball from GPU_PACK=... dev/mutation.sh")
    ap.add_argument("--names", required=True, help="file with one mutant name per line (# comments allowed)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--budget-s", type=float, default=480, help="launch no run after this many seconds")
    ap.add_argument("--run-timeout", type=float, default=110)
    ap.add_argument("--test-timeout", type=int, default=60)
    ap.add_argument("--tests", nargs="+", default=list(DEFAULT_TESTS))
    ap.add_argument("-k", default=DEFAULT_K)
    ap.add_argument("--done", help="earlier gpu_mutation.tsv: skip the mutants it holds")
    ap.add_argument("--workdir", default="/tmp/h2d-gpu-mutation")
    args = ap.parse_args()
    t_start = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    with tarfile.open(args.pack) as tf:
        tf.extractall(work, filter="data")
    mutants_dir = work / "mutants"
    lines = [ln.split() for ln in Path(args.names).read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    names = [ln[0] for ln in lines]
    selection = {ln[0]: HOST_K for ln in lines if len(ln) > 2 and ln[2] == "host"}
    done = set()
    if args.done and Path(args.done).exists():
        done = {ln.split("\t")[0] for ln in Path(args.done).read_text().splitlines()[1:] if ln.strip()}
    todo = [n for n in names if n not in done]
    env = dict(
        os.environ,
        PYTHONPATH=str(work / "mutmut_pkg"),
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.pop("H2D_IMPL", None)
    tsv = out / "gpu_mutation.tsv"
    new_file = not tsv.exists()
    with tsv.open("a") as f:
        if new_file:
            f.write("mutant\tstatus\texit\tseconds\tfirst failing test (or error tail)\n")
    # Controls first and last, under the same load as the mutants: the unmutated code must
    # pass (else a "kill" may be the load's doing), mutmut's "fail" sentinel must fail.
    # (and one every CONTROL_EVERY mutants, so a load that grows during the run is seen too).
    queue = ["", "fail"]
    for i, name in enumerate(todo, 1):
        queue.append(name)
        if i % CONTROL_EVERY == 0:
            queue.append("")
    queue.append("")
    print(
        f"revision {(mutants_dir / 'REVISION').read_text().strip()}; {len(todo)} mutants to run ({len(done)} done before), "
        f"{args.workers} at once; tests {args.tests} -k {args.k!r}",
        flush=True,
    )
    results = _run_queue(queue, mutants_dir, env, args, selection, tsv, t_start)
    ran = [r for r in results if r[0] not in ("", "fail")]
    counts = Counter(r[1] for r in ran)
    controls = [(r[0] or "unmutated", r[1]) for r in results if r[0] in ("", "fail")]
    ok = all((n == "unmutated" and s == "survived") or (n == "fail" and s == "killed") for n, s in controls)
    print(f"controls: {controls} -> {'valid' if ok else 'VOID: a control did not behave'}")
    print(
        f"ran {len(ran)} of {len(todo)}: {dict(counts)}; not run (budget): {len(todo) - len(ran)}; {time.monotonic() - t_start:.0f} s"
    )
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main())
