"""Run the contract suite against published engine releases and build the conformance matrix.

Usage::

    python tools/releases.py install vllm==0.15.1 sglang==0.5.23 ...   # one folder per release
    python tools/releases.py run vllm==0.15.1 ... [--seed N] [--out docs/records/conformance]
    python tools/releases.py carry vllm==0.15.1 ...     # slim source tarballs for a GPU machine (.gpu_carry/)
    python tools/releases.py matrix [--out docs/records/conformance] [--gpu DIR ...] > docs/conformance.md

``install`` puts each release, without its dependency tree, in a folder of its own
(``pip install --no-deps --target $H2D_RELEASES/<name>-<version>``, default
``.releases/``): the built-in targets read the helpers' files (``docs/targets.md``), so
nothing else is needed. ``run`` runs the contract suite against the engine's built-in
target (``--h2d-impl vllm`` or ``sglang``) with that folder first on ``PYTHONPATH`` and
the kit's expectations file for the detected target, at one seed, with a report
(``<out>/<name>-<version>.json``, the markdown beside it) and exit status; it prints one
line per release. ``matrix`` reads every report in ``<out>`` and writes the table
release x contract (pass / fail: the kinds / not applicable / not run here) as markdown.
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RELEASES = Path(os.environ.get("H2D_RELEASES", ROOT / ".releases"))
TARGET_OF = {"vllm": "vllm", "sglang": "sglang"}


def _split(release: str) -> tuple[str, str]:
    name, sep, version = release.partition("==")
    if not sep or name not in TARGET_OF or not re.fullmatch(r"[0-9][0-9a-z.]*", version):
        raise SystemExit(f"{release!r}: expected NAME==VERSION with NAME one of {sorted(TARGET_OF)}")
    return name, version


def install(releases: list[str]) -> None:
    for release in releases:
        name, version = _split(release)
        folder = RELEASES / f"{name}-{version}"
        if (folder / name).is_dir():
            print(f"{release}: already in {folder}")
            continue
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(folder), release], check=True
        )
        print(f"{release}: installed in {folder}")


def run(releases: list[str], seed: int, out: Path, workers: str) -> int:
    out.mkdir(parents=True, exist_ok=True)
    worst = 0
    for release in releases:
        name, version = _split(release)
        folder = RELEASES / f"{name}-{version}"
        if not (folder / name).is_dir():
            raise SystemExit(f"{release}: not installed; run: python tools/releases.py install {release}")
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(
                os.pathsep
            ),
        }
        full = Path(tempfile.mkdtemp(prefix="h2d-release-")) / f"{name}-{version}"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-n",
            workers,
            f"--hypothesis-seed={seed}",
            f"--h2d-impl={TARGET_OF[name]}",
            f"--h2d-report={full}",
            "-o",
            "addopts=--strict-markers",
            "tests",
        ]
        t0 = time.monotonic()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.monotonic() - t0
        tail = [ln for ln in proc.stdout.splitlines() if re.search(r"\d+ (passed|failed|xfailed|skipped)", ln)]
        print(
            f"{release}: exit {proc.returncode} in {wall:.0f} s: {tail[-1] if tail else proc.stdout.strip().splitlines()[-1:]}",
            flush=True,
        )
        report = Path(f"{full}.json")  # not with_suffix: the version's dots
        if report.is_file():
            slim(report, out / f"{name}-{version}.json")
            print(f"  full report: {full}.md, reproductions {full}.repro/", flush=True)
        if proc.returncode:
            (out / f"{name}-{version}.log").write_text(proc.stdout[-20000:] + proc.stderr[-5000:])
        worst = max(worst, proc.returncode)
    return worst


#: What a record keeps of a report: the matrix's inputs and each problem's one-line description.
RECORD_KEYS = (
    "target",
    "target_version",
    "spec",
    "capabilities",
    "inputs",
    "notes",
    "pinned",
    "torch",
    "python",
    "hypothesis",
    "profile",
    "seed",
    "machine",
    "command",
    "xfails_file",
    "date",
    "exitstatus",
    "totals",
    "contracts",
    "unmatched_xfails",
    "unwitnessed_xfails",
)
PROBLEM_KEYS = (
    "id",
    "contract",
    "kind",
    "description",
    "tests",
    "expected",
    "verified",
    "verify_reason",
    "verify_seconds",
    "count",
)


def slim(src: Path, dst: Path) -> None:
    """Write the record of report ``src`` to ``dst``: :data:`RECORD_KEYS`, and per problem :data:`PROBLEM_KEYS`
    (the description and the reason a reproduction was not verified cut to 300 characters, at most 5 test ids;
    ``verify_seconds``: its reproduction's wall seconds on the target, then the reference). The full report (every test, every reproduction)
    stays where the run wrote it; a record is what the matrix and a reader need, a few kB a release."""
    data = json.loads(src.read_text())
    record = {k: data[k] for k in RECORD_KEYS if k in data}
    record["problems"] = [
        {
            k: (v[:300] if k in ("description", "verify_reason") else v[:5] if k == "tests" else v)
            for k, v in p.items()
            if k in PROBLEM_KEYS
        }
        for p in data.get("problems", [])
    ]
    dst.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v))


def _reports(out: Path) -> list[tuple[str, dict[str, Any]]]:
    reports = []
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text())
        if "contracts" in data and "target" in data:
            reports.append((path.stem, data))
    reports.sort(key=_release_order)
    return reports


def _release_order(report: tuple[str, dict[str, Any]]) -> tuple[str, tuple[int, ...]]:
    """A report's place in a matrix: by engine (the stem's first word), then by version."""
    return report[0].split("-")[0], _version_key(report[1].get("target_version", ""))


def _table(reports: list[tuple[str, dict[str, Any]]], contracts: list[str]) -> tuple[list[str], list[str]]:
    """The matrix's rows for ``reports`` over ``contracts``, and the kinds of failure they list."""
    lines = [
        "| release | target | exit | " + " | ".join(contracts) + " |",
        "|---|---|---|" + "---|" * len(contracts),
    ]
    legend = {"pass": "pass", "not applicable": "n/a", "skipped": "not run here", "not collected": "not run here"}
    details: list[str] = []
    for stem, d in reports:
        # the kit's device-loss report: later tests fail as "not run: this process's CUDA context was lost in ..."
        lost = any(
            p.get("contract") == "error" and "CUDA context was lost" in p.get("kind", "") for p in d.get("problems", [])
        )
        cells = []
        for c in contracts:
            entry = d["contracts"].get(c)
            if entry is None:
                cells.append("-")
                continue
            outcome = entry.get("outcome", "?")
            cell = legend.get(outcome, outcome)
            if outcome.startswith("fail"):
                own = [p for p in d.get("problems", []) if p.get("contract") == c]
                kinds = sorted({p["kind"] for p in own})
                cell = f"fail ({len(kinds)})" if outcome == "fail (expected)" else f"**UNEXPECTED FAIL** ({len(kinds)})"
                if outcome == "fail" and lost and all(p.get("expected") for p in own):
                    # the contract's only unexpected outcomes are tests "not run" after a lost CUDA context: not a
                    # failure of the contract, and not a pass either (the kit's device-loss report)
                    cell = (
                        f"fail ({len(kinds)}), some tests not run (context lost)" if kinds else "not run (context lost)"
                    )
                if kinds:
                    details.append(f"- {stem} `{c}`: " + "; ".join(k[:140] for k in kinds))
            cells.append(cell)
        lines.append(f"| {stem} | {d['target']} | {d.get('exitstatus', '?')} | " + " | ".join(cells) + " |")
    return lines, details


def _gpu_reports(dirs: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    """Each release's GPU record from the last of ``dirs`` that has it, its stem suffixed with that folder (the
    commit of its run: records of several runs in one table say which run each row is) and, where the run did not
    verify reproductions (``--h2d-verify=off``), saying so."""
    latest: dict[str, tuple[str, dict[str, Any]]] = {}
    for folder in dirs:
        label = folder.parent.name if folder.name == "releases" else folder.name  # records/gpu/DATE-COMMIT/releases
        if folder.is_dir():
            for stem, data in _reports(folder):
                note = ", reproductions not run" if "--h2d-verify=off" in str(data.get("command", "")) else ""
                latest[stem] = (f"{stem} ({label}{note})", data)
    return sorted(latest.values(), key=_release_order)


def matrix(out: Path, gpu: list[Path] | Path | None = None) -> str:
    """The conformance matrix as markdown: the CPU records of ``out``, then the GPU records of the folders ``gpu``
    (if any; a release in several takes its record from the last)."""
    reports = _reports(out)
    if not reports:
        raise SystemExit(f"no reports in {out}")
    contracts = sorted({c for _, d in reports for c in d["contracts"]})
    lines, details = _table(reports, contracts)
    head = [
        "# Conformance matrix: published vLLM and SGLang releases against the contract suite",
        "",
        "Written by `python tools/releases.py matrix > docs/conformance.md` from the records in",
        "docs/records/conformance/ (made by `python tools/releases.py run vllm==X ... sglang==Y`: each release",
        "installed with `pip install --no-deps`, the contract suite against its built-in target, the kit's",
        "expectations file for that target). What each kind is, real fault or the kit's strictness:",
        "[findings/README.md](findings/README.md).",
        "",
        f"Seed {reports[0][1].get('seed')}; torch {reports[0][1].get('torch')}; machine: {reports[0][1].get('machine', '?')}; {reports[0][1].get('date', '')}.",
        "Cells: pass; fail (n): n distinct kinds, listed below, each expected by the target's expectations",
        "file; **UNEXPECTED FAIL**: a kind no entry expects (the run's exit is then not 0); n/a: not",
        "applicable to that release (a capability or input kind it does not declare); not run here:",
        "needs a GPU (or two).",
        "",
    ]
    gpu_part: list[str] = []
    gpu_dirs = [gpu] if isinstance(gpu, Path) else list(gpu or [])
    gpu_reports = _gpu_reports(gpu_dirs)
    if gpu_reports:
        ran = sorted(
            {c for _, d in gpu_reports for c, e in d["contracts"].items() if e.get("outcome") != "not collected"}
        )
        g_lines, g_details = _table(gpu_reports, ran)
        first = gpu_reports[0][1]
        gpu_part = [
            "",
            "## On a GPU: the contracts of Model Runner V2's utilities ("
            + ", ".join(str(g.relative_to(ROOT) if g.is_relative_to(ROOT) else g) for g in gpu_dirs)
            + ")",
            "",
            "Releases whose `buffer_utils.py` needs UVA (0.15 to 0.29: no `NonUvaBuffer`) are judged only where CUDA",
            "runs. Written from the records of `RELEASE_TGZS=... bash tools/gpu_runner.sh releases` (tests/test_buffer_utils.py,",
            "its CPU and CUDA halves, against each release's slim source tarball). Each row names the record folder",
            "(the run's date and commit) it comes from.",
            "",
            f"Seed {first.get('seed')}; torch {first.get('torch')}; machine: {first.get('machine', '?')}; {first.get('date', '')}.",
            "",
            *g_lines,
            "",
            "Kinds of failure:",
            "",
            *g_details,
        ]
    return (
        "\n".join(
            head + lines + ["", "Kinds of failure (the digest's one-line descriptions):", ""] + details + gpu_part
        )
        + "\n"
    )


#: What a slim source tarball of a vLLM release keeps: the files the vllm target reads (contracts/targets/vllm.py,
#: vllm_buffer_utils.py) and the wheel's METADATA (its version), a few dozen kB instead of a 300 MB wheel.
SLIM_MEMBERS = (
    r"vllm/__init__\.py",
    r"vllm/_version\.py",
    r"vllm/version\.py",
    r"vllm/utils/[^/]+\.py",
    r"vllm/v1/utils\.py",
    r"vllm/v1/worker/cpu/shm\.py",
    r"vllm/v1/worker/gpu/buffer_utils\.py",
    r"vllm-[^/]+\.dist-info/METADATA",
)


def carry(releases: list[str], dest: Path) -> None:
    """Write ``dest/vllm-X-slim.tgz`` for each ``vllm==X``: the release's wheel downloaded (``pip download --no-deps``)
    and cut to :data:`SLIM_MEMBERS`, for a GPU machine that cannot reach a package index (tools/gpu_runner.sh's
    ``releases`` stage, ``RELEASE_TGZS``)."""
    import io
    import tarfile
    import zipfile

    dest.mkdir(parents=True, exist_ok=True)
    for release in releases:
        name, version = _split(release)
        if name != "vllm":
            raise SystemExit(f"{release}: only vLLM releases have a slim tarball")
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"vllm=={version}", "-d", tmp], check=True
            )
            wheel = next(Path(tmp).glob("vllm-*.whl"))
            out = dest / f"vllm-{version}-slim.tgz"
            with zipfile.ZipFile(wheel) as zf, tarfile.open(out, "w:gz") as tf:
                for member in zf.namelist():
                    if any(re.fullmatch(p, member) for p in SLIM_MEMBERS):
                        data = zf.read(member)
                        info = tarfile.TarInfo(member)
                        info.size = len(data)
                        tf.addfile(info, io.BytesIO(data))
        print(f"{release}: {out} ({out.stat().st_size:,} bytes)", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("install")
    p.add_argument("releases", nargs="+")
    p = sub.add_parser("run")
    p.add_argument("releases", nargs="+")
    p.add_argument("--seed", type=int, default=20261201)
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "records" / "conformance")
    p.add_argument("-n", dest="workers", default="auto")
    p = sub.add_parser("carry")
    p.add_argument("releases", nargs="+")
    p.add_argument("--dest", type=Path, default=ROOT / ".gpu_carry")
    p = sub.add_parser("matrix")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "records" / "conformance")
    p.add_argument(
        "--gpu",
        type=Path,
        nargs="+",
        default=[ROOT / "docs" / "records" / "conformance" / "gpu"],
        help="folders of GPU release records; a release in several takes its record from the last",
    )
    args = ap.parse_args()
    if args.cmd == "install":
        install(args.releases)
        return 0
    if args.cmd == "carry":
        carry(args.releases, args.dest)
        return 0
    if args.cmd == "run":
        return run(args.releases, args.seed, args.out, args.workers)
    sys.stdout.write(matrix(args.out, args.gpu))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
