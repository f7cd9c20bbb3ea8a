"""A HypoFuzz campaign over the packaged contract suite against one target, with its record and a replay.

Usage::

    python dev/hypofuzz/campaign.py --target reference --seconds 300 --out docs/records/hypofuzz/reference
    python dev/hypofuzz/campaign.py --target vllm --seconds 300 --out docs/records/hypofuzz/vllm

Runs ``hypothesis fuzz -n WORKERS --port PORT -- tests -p no:xdist -m "not gpu and not meta"
-k "not cuda" --h2d-impl TARGET --h2d-example-db DB`` (the host's contract tests: every
Hypothesis test of the suite; tables and the GPU tests are left out, the workers of a CPU-only
host cannot set up a CUDA fixture) for ``--seconds``, reads HypoFuzz's dashboard API
(``/api/tests/``), saves a screenshot of the dashboard taken by headless Chromium, stops the
campaign, then replays the example database with an ordinary ``pytest -n 2`` run: what the
campaign found fails (or is expected by the target's expectations file) in the reuse phase.
Writes ``campaign.json`` (per test: valid examples, behaviours, fingerprints, failures),
``campaign.md`` and ``dashboard.png`` into ``--out``. HypoFuzz 25.11.1 needs the kit's
workarounds (``h2d_contracts/plugin/hypofuzz_compat.py``), applied by the plugin.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SELECTION = ["tests", "-p", "no:xdist", "-m", "not gpu and not meta", "-k", "not cuda"]


def _api(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tests/", timeout=60) as response:
        return json.loads(response.read())


def _screenshot(port: int, path: Path) -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        return "no Chromium on PATH: no screenshot"
    proc = subprocess.run(
        [
            browser,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1400,1000",
            "--timeout=20000",  # real time for the dashboard's websocket data (a virtual-time budget shot it empty)
            f"--screenshot={path}",
            f"http://127.0.0.1:{port}/",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return f"{Path(browser).name} exit {proc.returncode}"


def _summary(tests: dict) -> dict:
    rows = {}
    for nodeid, test in tests.items():
        reports = [r for worker in test.get("reports_by_worker", {}).values() for r in worker]
        last = max(reports, key=lambda r: r["timestamp"]) if reports else None
        per_worker = [w[-1] for w in test.get("reports_by_worker", {}).values() if w]
        rows[nodeid] = {
            "valid_examples": sum(int(r["status_counts"].get("2", 0)) for r in per_worker),
            "all_examples": sum(sum(int(v) for v in r["status_counts"].values()) for r in per_worker),
            "behaviors": last["behaviors"] if last else 0,
            "fingerprints": last["fingerprints"] if last else 0,
            "failures": len(test.get("failures") or {}),
            "fatal": test.get("fatal_failure") is not None,
        }
    return rows


def _campaign(fuzz: list[str], seconds: int, port: int, out: Path) -> tuple[dict, str]:
    """Run ``fuzz`` for ``seconds`` (its process group stopped whole), read the dashboard API, then shoot the page."""
    log = open(out / "fuzz.log", "w")
    proc = subprocess.Popen(fuzz, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    time.sleep(seconds)
    tests = _api(port)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    log.close()
    # the screenshot from HypoFuzz serving the campaign's database (a shot of the live dashboard of a busy campaign
    # showed the page without its data, twice)
    serve = [fuzz[0], "fuzz", "-d", "--port", str(port + 1), "--", *fuzz[fuzz.index("--") + 1 :]]
    server = subprocess.Popen(
        serve, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    time.sleep(25)
    shot = _screenshot(port + 1, out / "dashboard.png")
    os.killpg(server.pid, signal.SIGKILL)
    return tests, shot


def _replay(target: str, db: Path) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    """The next ordinary pytest run against ``target``, replaying the campaign's database first."""
    replay = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2", "-m", "not meta"]
    replay += ["--h2d-impl", target, "--h2d-example-db", str(db), "tests"]
    return replay, subprocess.run(replay, cwd=ROOT, capture_output=True, text=True)


def _markdown(record: dict, rows: dict) -> list[str]:
    fuzzed = {k: v for k, v in rows.items() if v["all_examples"]}
    return [
        f"# HypoFuzz campaign: {record['target']}, {record['seconds']} s, {record['workers']} workers ({record['started']})",
        "",
        f"- command: `{record['command']}`",
        f"- tests collected: {len(rows)}; fuzzed in the time: {len(fuzzed)}; examples run: "
        f"{sum(v['all_examples'] for v in rows.values())} ({sum(v['valid_examples'] for v in rows.values())} valid)",
        f"- behaviours (HypoFuzz's coverage: branches and events) summed over tests: {sum(v['behaviors'] for v in rows.values())}",
        f"- tests with failures found: {sum(1 for v in rows.values() if v['failures'])} "
        f"({sum(v['failures'] for v in rows.values())} failures); fatal worker errors: {sum(1 for v in rows.values() if v['fatal'])}",
        f"- replay (`{record['replay_command']}`): exit {record['replay_exit']}, {record['replay_result']}",
        f"- dashboard screenshot: `dashboard.png` ({record['screenshot']})",
        "",
        "| test | examples (valid) | behaviours | failures |",
        "|---|---|---|---|",
        *(
            f"| `{k}` | {v['all_examples']} ({v['valid_examples']}) | {v['behaviors']} | {v['failures']} |"
            for k, v in sorted(fuzzed.items())
        ),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="reference")
    ap.add_argument("--seconds", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--port", type=int, default=9311)
    ap.add_argument("--out", required=True)
    ap.add_argument("--db", default="", help="example database directory (default: OUT/db, not kept in git)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    db = Path(args.db) if args.db else Path("/tmp") / f"h2d-hypofuzz-{args.target}-db"
    shutil.rmtree(db, ignore_errors=True)
    fuzz = [
        str(Path(sys.executable).with_name("hypothesis")),  # the console script (hypothesis has no __main__)
        "fuzz",
        "-n",
        str(args.workers),
        "--port",
        str(args.port),
        "--",
        *SELECTION,
        "--h2d-impl",
        args.target,
        "--h2d-example-db",
        str(db),
    ]
    started = datetime.datetime.now(datetime.UTC)
    tests, shot = _campaign(fuzz, args.seconds, args.port, out)
    rows = _summary(tests)
    replay, rp = _replay(args.target, db)
    tail = [ln for ln in rp.stdout.splitlines() if " passed" in ln or " failed" in ln][-1:]
    record = {
        "target": args.target,
        "started": started.isoformat(timespec="seconds"),
        "seconds": args.seconds,
        "workers": args.workers,
        "command": "hypothesis " + shlex.join(fuzz[1:]),
        "replay_command": "python " + shlex.join(replay[1:]),
        "replay_exit": rp.returncode,
        "replay_result": tail[0] if tail else "",
        "screenshot": shot,
        "tests": rows,
    }
    (out / "campaign.json").write_text(json.dumps(record, indent=1) + "\n")
    md = _markdown(record, rows)
    (out / "campaign.md").write_text("\n".join(md) + "\n")
    print("\n".join(md[:9]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
