"""Measure the kit against held-out bugs (targets it has never seen), seed by seed.

Usage: python dev/heldout.py OUT.json BUGS_DIR PACKAGE [--seeds 1 2] [--kit DIR] [--jobs N] [--only PATH ...] [-k EXPR]

    python dev/heldout.py /tmp/r26.json dev/heldout r26 --seeds 1 2          # a CPU round
    python dev/heldout.py /tmp/r23.json dev/heldout r23 --jobs 4 -k cuda       # a GPU round, four bugs at a time

``BUGS_DIR`` holds ``PACKAGE/bNN_*.py`` modules, each with a ``target()`` factory (the
format of the held-out rounds under dev/heldout/ (see CONTRIBUTING.md)). For every bug and seed it runs the
contract suite only (``-m "not meta"``, reference unit tests deselected: they never
call the target) against ``PACKAGE.bNN:target`` at the default profile, with an empty,
private Hypothesis example database (``HYPOTHESIS_STORAGE_DIRECTORY`` in a fresh temp
dir: independent seeds must not replay each other's failures), no expectations file,
stopping at the first failure (``-x``). Caught = the run failed; the first failing test
is recorded.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_one(kit: Path, bugs: Path, spec: str, seed: int, only: list[str], k: str | None) -> dict:
    with tempfile.TemporaryDirectory() as db:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(kit), str(bugs), os.environ.get("PYTHONPATH", "")])),
            "HYPOTHESIS_STORAGE_DIRECTORY": db,
        }
        # the contract suite only: against any target but the reference the plugin deselects tests/reference/
        # and tests/meta/ (they never call the target); no reproductions are verified (-x stops at the first failure)
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-x",
            "-q",
            "-n",
            "0",
            "--h2d-verify=off",
            f"--hypothesis-seed={seed}",
            f"--h2d-impl={spec}",
            "--h2d-xfails=none",
            "-o",
            "addopts=",
            *(["-k", k] if k else []),
            *only,
        ]
        t0 = time.monotonic()
        proc = subprocess.run(cmd, cwd=kit, env=env, capture_output=True, text=True, timeout=900)
        wall = time.monotonic() - t0
    out = proc.stdout + proc.stderr
    failed = re.findall(r"^FAILED (\S+)", out, re.M) or re.findall(r"^(tests/\S+) F", out, re.M)
    first = failed[0] if failed else None
    if first is None and proc.returncode not in (0, 1):
        first = f"<pytest exit {proc.returncode}>: " + out.strip().splitlines()[-1][:200] if out.strip() else ""
    return {
        "seed": seed,
        "caught": proc.returncode != 0,
        "rc": proc.returncode,
        "first_failure": first,
        "wall_s": round(wall, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("bugs_dir")
    ap.add_argument("package")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--kit", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--jobs", type=int, default=1, help="bugs run at a time (a GPU host: set OMP_NUM_THREADS)")
    ap.add_argument("--only", nargs="+", default=["tests"], help="test paths (default: the contract suite)")
    ap.add_argument("--bugs", nargs="+", default=None, help="only these bugs (module names), e.g. a round's misses")
    ap.add_argument("-k", default=None, help="pytest -k expression, e.g. cuda for a GPU-only round")
    args = ap.parse_args()
    bugs = Path(args.bugs_dir).resolve()
    names = sorted(p.stem for p in (bugs / args.package).glob("b[0-9]*.py") if args.bugs is None or p.stem in args.bugs)
    results: dict[str, list[dict]] = {}

    def measure(name: str, seed: int) -> tuple[str, dict]:
        return name, run_one(Path(args.kit), bugs, f"{args.package}.{name}:target", seed, args.only, args.k)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(measure, n, s) for n in names for s in args.seeds]
        for future in concurrent.futures.as_completed(futures):
            name, r = future.result()
            results.setdefault(name, []).append(r)
            results[name].sort(key=lambda x: x["seed"])
            print(
                name,
                f"seed {r['seed']}: {'caught' if r['caught'] else 'MISSED'} ({r['first_failure']}, {r['wall_s']} s)",
                flush=True,
            )
            Path(args.out).write_text(json.dumps(dict(sorted(results.items())), indent=1))  # what a time limit leaves
    caught = {s: sum(r["caught"] for row in results.values() for r in row if r["seed"] == s) for s in args.seeds}
    print("caught per seed:", {s: f"{c}/{len(names)}" for s, c in caught.items()})


if __name__ == "__main__":
    main()
