"""Run every standalone reproduction in docs/findings/<engine>/ against the engine and against the reference.

Usage::

    python tools/findings.py vllm==0.33.0 [--deps DIR] [--out docs/findings/RESULTS-vllm.md]
    python tools/findings.py sglang==0.5.23 --deps DIR

Each script is run twice in a fresh interpreter: as it is (it imports the engine; the release
folder of ``tools/releases.py install`` first on ``PYTHONPATH``, then ``--deps``, a folder holding
the engine's import dependencies where the script needs more than the helper's module), where
it must fail with an ``AssertionError`` (the fault is there), and with ``--reference``, where
it must pass. A script that fails another way (an ImportError: a dependency missing) is
reported as such, never as a witnessed fault. Writes a markdown table with the date, the
machine and each outcome; exit 0 only if every script behaved as described.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
RELEASES = Path(os.environ.get("H2D_RELEASES", ROOT / ".releases"))


def _run(script: Path, env: dict[str, str], *extra: str) -> tuple[str, str]:
    proc = subprocess.run(
        [sys.executable, str(script), *extra], capture_output=True, text=True, env=env, timeout=300, cwd=script.parent
    )
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    last = lines[-1] if lines else ""
    if proc.returncode == 0:
        return "passed", last
    return ("fails (AssertionError)" if last.startswith("AssertionError") else f"error (exit {proc.returncode})"), last


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("release", help="NAME==VERSION, installed with tools/releases.py install")
    ap.add_argument(
        "--deps", type=Path, help="a folder with the engine's import dependencies (pip install --no-deps --target)"
    )
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    name, _, version = args.release.partition("==")
    folder = RELEASES / f"{name}-{version}"
    scripts = sorted((ROOT / "docs" / "findings" / name).glob("*.py"))
    if not folder.is_dir() or not scripts:
        raise SystemExit(
            f"need {folder} (tools/releases.py install {args.release}) and scripts in docs/findings/{name}/"
        )
    path = [str(folder)] + ([str(args.deps)] if args.deps else [])
    engine_env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    ref_env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rows, ok = [], True
    for script in scripts:
        on_engine, why = _run(script, engine_env)
        on_ref, why_ref = _run(script, ref_env, "--reference")
        good = on_engine == "fails (AssertionError)" and on_ref == "passed"
        ok &= good
        rows.append(
            f"| `{script.name}` | {on_engine}: {why[:160].replace('|', '/')} | {on_ref} | {'yes' if good else '**no**'} |"
        )
        print(f"{script.name}: {name} {on_engine}; reference {on_ref}", flush=True)
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no CUDA"
    text = "\n".join(
        [
            f"# {name} {version}: the standalone reproductions, run",
            "",
            f"{datetime.date.today().isoformat()}, {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, {gpu}, torch {torch.__version__}.",
            f"Command: `python tools/findings.py {args.release}"
            + (" --deps DIR`" if args.deps else "`")
            + " (each script in a fresh interpreter).",
            "",
            f"| script | against {name} {version} | with --reference | as described |",
            "|---|---|---|---|",
            *rows,
            "",
        ]
    )
    if args.out:
        args.out.write_text(text)
    else:
        print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
