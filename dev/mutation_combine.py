"""One status per mutant of ``h2d_impl/``: the CPU run of the contract suite, its GPU runs, the triage.

mutmut on a CPU-only machine cannot reach the device half (``dev/mutation.sh``:
"no tests" or survivors in CUDA-only branches); ``dev/gpu_mutation.py`` runs those
mutants on a GPU runner; what neither kills is classified by reading (a triage file).
This script joins them, so the score is computed from files, not by hand:

    python dev/mutation_combine.py docs/records/mutation/results-<rev>-contracts.txt \\
        --gpu OUT/gpu_mutation.tsv ... --triage docs/records/mutation/triage.json \\
        --out docs/records/mutation/combined-<rev>.tsv

A GPU kill counts only if the run's unmutated controls passed the test that killed it:
a run whose controls failed test T (or did not reach tests after T, under ``-x``) voids
every kill by those tests (``--void-from TSV=T1,T2,...``).

Triage JSON: ``{mutant name: [class, reason]}`` with class one of ``equivalent-message``,
``equivalent-logic``, ``outside-protocol``, ``2-gpu``, ``non-equivalent``; a survivor
missing from it is ``untriaged``. Prints the counts and two scores: killed / (killed +
non-equivalent + untriaged) over the mutants measured, and the same with every mutant
not measured (``2-gpu``, a void GPU kill) counted as a miss.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path


def _gpu_rows(path: str) -> list[list[str]]:
    return [ln.rstrip("\n").split("\t") for ln in Path(path).read_text().splitlines()[1:] if ln.strip()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cpu_results", help="mutmut results --all true of the CPU run")
    ap.add_argument(
        "--extra-cpu", nargs="*", default=[], help="dev/gpu_mutation.py TSVs run on the CPU machine (host re-runs)"
    )
    ap.add_argument("--gpu", nargs="*", default=[], help="dev/gpu_mutation.py TSVs of GPU runs")
    ap.add_argument(
        "--void-from", nargs="*", default=[], help="TSV=TEST[,TEST...]: that run's kills by these tests are void"
    )
    ap.add_argument("--triage", nargs="*", default=[])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    status: dict[str, str] = {}
    for ln in Path(args.cpu_results).read_text().splitlines():
        m = re.match(r"\s*(\S+): (killed|survived|no tests|timeout|suspicious|not checked)", ln)
        if m:
            status[m.group(1)] = "killed" if m.group(2) in ("killed", "timeout") else m.group(2)
    how = {n: "cpu run" for n, s in status.items() if s == "killed"}
    # --void-from PATH=TEST1,TEST2: kills in that run by a test whose id contains one of them are void
    void_tests = {p: t.split(",") for p, t in (v.split("=", 1) for v in args.void_from)}
    void: dict[str, str] = {}
    for path in [*args.extra_cpu, *args.gpu]:
        where = "host re-run" if path in args.extra_cpu else "gpu run"
        for name, st, _rc, _secs, test, *_ in _gpu_rows(path):
            if name.startswith("(") or status.get(name) == "killed":
                continue
            if st in ("killed", "timeout"):
                if any(t in test for t in void_tests.get(path, [])):
                    void.setdefault(
                        name,
                        f"{where} {Path(path).parent.name}: killed by {test}, which the run's unmutated controls failed too",
                    )
                    continue
                status[name] = "killed"
                how[name] = f"{where} {Path(path).parent.name}: {test}"
                void.pop(name, None)
    triage: dict[str, list[str]] = {}
    for t in args.triage:
        triage.update(json.loads(Path(t).read_text()))
    final: dict[str, tuple[str, str]] = {}
    for name, st in status.items():
        if st == "killed":
            final[name] = ("killed", how[name])
        elif name in triage:
            final[name] = (triage[name][0], triage[name][1])
        elif name in void:
            final[name] = ("not-measured", void[name])
        else:
            final[name] = ("untriaged", st)
    with open(args.out, "w") as f:
        f.write("mutant\tclass\thow / why\n")
        for name in sorted(final):
            f.write(f"{name}\t{final[name][0]}\t{final[name][1]}\n")
    counts = Counter(c for c, _ in final.values())
    killed = counts["killed"]
    misses = counts["non-equivalent"] + counts["untriaged"]
    unmeasured = counts["2-gpu"] + counts["not-measured"]
    print(f"{len(final)} mutants: {dict(sorted(counts.items()))}")
    print(f"score over the measured: {killed} / {killed + misses} = {killed / max(1, killed + misses):.1%}")
    print(
        f"score with the unmeasured as misses: {killed} / {killed + misses + unmeasured} = {killed / max(1, killed + misses + unmeasured):.1%}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
