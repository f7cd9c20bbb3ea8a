"""Measure the kit against held-out bugs (targets it has never seen), seed by seed.

Usage: python tools/heldout.py OUT.json BUGS_DIR PACKAGE [--seeds 1 2] [--kit DIR]

``BUGS_DIR`` holds ``PACKAGE/bNN_*.py`` modules, each with a ``target()`` factory (the
format of the held-out rounds under reports/power/). For every bug and seed it runs the
contract suite only (``-m "not meta"``, reference unit tests deselected: they never
call the target) against ``PACKAGE.bNN:target`` at the default profile, with an empty,
private Hypothesis example database (``HYPOTHESIS_STORAGE_DIRECTORY`` in a fresh temp
dir: independent seeds must not replay each other's failures), no expectations file,
stopping at the first failure (``-x``). Caught = the run failed; the first failing test
is recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_one(kit: Path, bugs: Path, spec: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as db:
        env = {**os.environ, "PYTHONPATH": f"{kit}:{bugs}", "HYPOTHESIS_STORAGE_DIRECTORY": db}
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
            "tests",
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
    args = ap.parse_args()
    bugs = Path(args.bugs_dir).resolve()
    names = sorted(p.stem for p in (bugs / args.package).glob("b[0-9]*.py"))
    results = {}
    for name in names:
        spec = f"{args.package}.{name}:target"
        results[name] = [run_one(Path(args.kit), bugs, spec, s) for s in args.seeds]
        row = results[name]
        print(
            name,
            " ".join(
                f"seed {r['seed']}: {'caught' if r['caught'] else 'MISSED'} ({r['first_failure']}, {r['wall_s']} s)"
                for r in row
            ),
            flush=True,
        )
        Path(args.out).write_text(json.dumps(results, indent=1))
    caught = {s: sum(results[n][i]["caught"] for n in names) for i, s in enumerate(args.seeds)}
    print("caught per seed:", {s: f"{c}/{len(names)}" for s, c in caught.items()})


if __name__ == "__main__":
    main()
