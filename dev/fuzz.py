"""Time-boxed fuzz campaign: every contract property against one target, round after round.

Usage (normally through ``dev/fuzz.sh TARGET MINUTES``)::

    python dev/fuzz.py --target reference --minutes 10 --json out.json

Each round runs every property of ``harness.registry.PROPERTIES`` (the same
properties the suite runs) on every device the machine has (the host, plus the
primary CUDA device where there is one) with ``--chunk`` fresh random examples, no
deadline and no health checks, until the time budget is spent. Unlike ``pytest
--hypothesis-profile fuzz``, the example count is passed to each property as an
override, so the per-property caps of the everyday suite (e.g. 10 examples per
bad-input kind, 25 state-machine runs) do not apply and ``bad-input`` draws across
all kinds at once.

What is counted: examples requested (rounds x chunk, per property) and calls into the
target (``async_tensor_h2d``, the CPU variant and ``CpuGpuBuffer`` constructions),
counted by wrapping the target. A property that fails is recorded once (contract id,
first line, the reproduction ``call:`` line, Hypothesis's ``@reproduce_failure``
blob) and not run again in that campaign. Failing examples are also kept in the
example database ``.hypothesis/fuzz`` (git-ignored), which replays them first on the
next campaign.

Exit status: 0 when no property failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import hypothesis
import torch
from hypothesis.database import DirectoryBasedExampleDatabase

from h2d_contracts.contracts import ContractViolation, NotApplicable, load_target
from h2d_contracts.harness.registry import PROPERTIES

ROOT = Path(__file__).resolve().parents[1]  # the kit installed (pip install -e .): h2d_contracts is importable

CALLS: Counter[str] = Counter()


def _counting(name: str, fn: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        CALLS[name] += 1
        return fn(*args, **kwargs)

    wrapper.__name__ = getattr(fn, "__name__", name)
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    return wrapper


def counted(target: Any) -> Any:
    """The same target with every entry point counting its calls."""
    changes: dict[str, Any] = {"async_tensor_h2d": _counting("async_tensor_h2d", target.async_tensor_h2d)}
    if target.cpu_variant is not None:
        changes["cpu_variant"] = _counting("cpu_variant", target.cpu_variant)
    if target.buffer_cls is not None:
        changes["buffer_cls"] = _counting("CpuGpuBuffer", target.buffer_cls)
    return dataclasses.replace(target, **changes)


def _violation(exc: BaseException) -> ContractViolation | None:
    if isinstance(exc, ContractViolation):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = _violation(inner)
        if found is not None:
            return found
    return None


def _describe_failure(exc: BaseException) -> dict[str, Any]:
    violation = _violation(exc)
    text = str(violation if violation is not None else exc)
    notes = [n for e in (exc, violation) if e is not None for n in getattr(e, "__notes__", [])]
    call = next(
        (line.strip()[len("call: ") :] for line in text.splitlines() if line.strip().startswith("call: ")), None
    )
    return {
        "contract": getattr(violation, "contract", None),
        "exception": type(violation or exc).__name__,
        "first_line": text.splitlines()[0] if text else type(exc).__name__,
        "call": call,
        "notes": notes,
        "traceback": "".join(traceback.format_exception(exc))[-4000:],
    }


def _git() -> dict[str, Any]:
    def run(*cmd: str) -> str:
        try:
            return subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True, timeout=20).stdout.rstrip()
        except (OSError, subprocess.SubprocessError):
            return ""

    return {
        "head": run("rev-parse", "HEAD"),
        "dirty": run("status", "--porcelain", "--untracked-files=no").splitlines(),
    }


def markdown(record: dict[str, Any]) -> str:
    """A short human summary of a campaign record."""
    lines = [
        f"# Fuzz campaign: {record['target']} ({record['started_utc']})",
        "",
        f"- command: `{record['command']}`",
        f"- code (at start): HEAD `{record['git']['head'][:12]}`"
        + (
            f", uncommitted changes in {', '.join(d[3:] for d in record['git']['dirty'])}"
            if record["git"]["dirty"]
            else ", clean tree"
        ),
        f"- environment: python {record['environment']['python']}, torch {record['environment']['torch']}, hypothesis {record['environment']['hypothesis']}, CUDA {'yes' if record['environment']['cuda'] else 'no'}, 1 process",
        f"- devices: {', '.join(record['devices'])}",
        f"- budget {record['budget_minutes']} min, ran {record['elapsed_seconds']} s, {record['rounds_started']} rounds of {record['chunk']} examples per property",
        f"- examples requested: {record['examples_requested']}; calls into the target: {record['target_calls_total']} ({', '.join(f'{k} {v}' for k, v in record['target_calls'].items())})",
        f"- failing properties: {len(record['failures'])}",
        "",
        "| property | contract | rounds | examples | target calls | seconds |",
        "|---|---|---|---|---|---|",
    ]
    for key, rec in record["properties"].items():
        lines.append(
            f"| `{key}` | {rec['contract']} | {rec['rounds']} | {rec['examples_requested']} | {rec.get('target_calls', 0)} | {rec['seconds']} |"
        )
    if record["not_applicable"]:
        lines += [
            "",
            f"Not applicable here ({len(record['not_applicable'])}): "
            + ", ".join(f"`{k}`" for k in record["not_applicable"])
            + ".",
        ]
    for f in record["failures"]:
        lines += [
            "",
            f"## FAIL `{f['property']}` (round {f['round']}, {f['elapsed_s']} s)",
            "",
            "```",
            f["first_line"],
            f"call: {f['call']}",
            *f["notes"],
            "```",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--target", default=os.environ.get("H2D_IMPL", "reference"), help="reference, reference-cpu or module:factory"
    )
    ap.add_argument(
        "--minutes", type=float, required=True, help="time budget (a property running when it ends finishes its chunk)"
    )
    ap.add_argument("--chunk", type=int, default=200, help="examples per property per round (default 200)")
    ap.add_argument("--json", type=Path, help="write the campaign record here")
    ap.add_argument("--md", type=Path, help="write a markdown summary here")
    ap.add_argument("--devices", default="auto", help="'auto' (host + primary CUDA device if any), 'cpu' or 'cuda'")
    args = ap.parse_args(argv)

    target = counted(load_target(args.target))
    devices = []
    if args.devices in ("auto", "cpu"):
        devices.append(torch.device("cpu"))
    if args.devices in ("auto", "cuda") and torch.cuda.is_available():
        devices.append(torch.device("cuda", torch.cuda.current_device()))

    db = DirectoryBasedExampleDatabase(str(ROOT / ".hypothesis" / "fuzz"))
    overrides = {
        "max_examples": args.chunk,
        "database": db,
        "print_blob": True,
        "deadline": None,
        "suppress_health_check": list(hypothesis.HealthCheck),
    }
    props = [(cid, prop, dev) for cid, group in PROPERTIES.items() for prop in group for dev in devices]
    stats: dict[str, dict[str, Any]] = {}
    failures: list[dict[str, Any]] = []
    failed: set[str] = set()
    not_applicable: dict[str, str] = {}
    started_utc = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    git_at_start = _git()  # the code was imported now: record the revision now, not at the end
    start = time.monotonic()
    deadline = start + args.minutes * 60
    rounds = 0
    print(
        f"fuzz: target {target.name} ({target.version}), devices {[str(d) for d in devices]}, {args.minutes} min, chunk {args.chunk}",
        flush=True,
    )
    while time.monotonic() < deadline:
        ran = 0
        for cid, prop, dev in props:
            key = f"{prop.__name__}[{dev}]"
            if key in failed or key in not_applicable or time.monotonic() >= deadline:
                continue
            rec = stats.setdefault(key, {"contract": cid, "rounds": 0, "examples_requested": 0, "seconds": 0.0})
            t0, calls0 = time.monotonic(), sum(CALLS.values())
            try:
                prop(target, dev, **overrides)
            except NotApplicable as exc:
                not_applicable[key] = str(exc)
                stats.pop(key, None)
                continue
            except BaseException as exc:  # a falsifying example (or a crash) is the finding
                if isinstance(exc, KeyboardInterrupt):
                    raise
                failed.add(key)
                info = {
                    "property": key,
                    "round": rounds + 1,
                    "elapsed_s": round(time.monotonic() - start, 1),
                    **_describe_failure(exc),
                }
                failures.append(info)
                print(f"FAIL {key}: {info['first_line']}", flush=True)
            rec["rounds"] += 1
            rec["examples_requested"] += args.chunk
            rec["seconds"] = round(rec["seconds"] + time.monotonic() - t0, 2)
            rec["target_calls"] = rec.get("target_calls", 0) + sum(CALLS.values()) - calls0
            ran += 1
        rounds += 1
        print(
            f"round {rounds} done at {time.monotonic() - start:.0f} s, target calls so far {sum(CALLS.values())}",
            flush=True,
        )
        if not ran:
            break
    elapsed = time.monotonic() - start
    record = {
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT), *sys.argv[1:]]) if argv is None else " ".join(argv),
        "started_utc": started_utc,
        "git": git_at_start,
        "target": target.name,
        "target_version": target.version,
        "devices": [str(d) for d in devices],
        "budget_minutes": args.minutes,
        "elapsed_seconds": round(elapsed, 1),
        "rounds_started": rounds,
        "chunk": args.chunk,
        "examples_requested": sum(r["examples_requested"] for r in stats.values()),
        "target_calls": dict(CALLS),
        "target_calls_total": sum(CALLS.values()),
        "properties": stats,
        "not_applicable": not_applicable,
        "failures": failures,
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "hypothesis": hypothesis.__version__,
            "cuda": torch.cuda.is_available(),
            "machine": platform.machine(),
            "pid": os.getpid(),
        },
    }
    print(
        f"fuzz: {elapsed:.0f} s, {rounds} rounds, {record['examples_requested']} examples requested, "
        f"{record['target_calls_total']} target calls, {len(failures)} failing properties",
        flush=True,
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(record, indent=2, default=str) + "\n")
    if args.md:
        args.md.parent.mkdir(parents=True, exist_ok=True)
        args.md.write_text(markdown(record))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
