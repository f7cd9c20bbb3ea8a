"""Re-check an expectations file against a recorded conformance report, without rerunning.

Usage: python tools/recheck_xfails.py REPORT.json XFAILS.txt

An edited ``xfails/*.txt`` can be checked against a run made elsewhere (a GPU runner's
``--h2d-report`` JSON) on any machine: the ``if=`` conditions are evaluated against the
facts of the recorded run (CUDA, pinned memory, number of GPUs, torch version, read from
the report's header), and every recorded failure (failed or xfailed, with its
violations and error text) is matched with the same functions the plugin uses
(:func:`plugin.expectations.match_xfails`, :func:`plugin.expectations.expected_failure`).
Prints each failure's covering entries, every UNEXPECTED one, and the listed contracts
none of whose recorded failures an entry covers. Exit status 1 if any failure is
UNEXPECTED or a listed contract is not covered, else 0.

Limits: a test that passed in the recorded run cannot be judged against a node-id entry
added later (the report keeps no passing output), and contract ids come from the report.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from h2d_contracts.contracts import CATALOGUE
from h2d_contracts.plugin import expectations as R


def facts_of(meta: dict) -> dict:
    """The ``if=`` facts of the recorded run, from its report header."""
    machine = meta.get("machine", "")
    gpus = (
        machine.split(":", 1)[1].count(",") + 1
        if "CUDA" in machine and ":" in machine and "no CUDA" not in machine
        else 0
    )
    return {
        "cuda": gpus > 0,
        "pinned": str(meta.get("pinned", "")).startswith("available"),
        "multi-gpu": gpus >= 2,
        "torch": meta.get("torch", "0"),
        "version": meta.get("target_version"),  # the version= conditions (a report's header names the target's version)
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1])
        return 2
    report = json.loads(Path(argv[0]).read_text())
    facts = facts_of(report)
    entries, inactive = R.load_xfails(argv[1], CATALOGUE, facts)
    print(f"facts of the recorded run: {facts}; {len(entries)} active entries, {inactive} inactive")
    unexpected, covered = [], set()
    for nodeid, t in sorted(report["tests"].items()):
        if t["status"] not in ("failed", "xfailed"):
            continue
        found = t.get("violations", [])
        matched = R.with_violated(R.match_xfails(nodeid, set(t.get("contracts", [])), entries), found, entries)
        errors = t.get("errors", []) if not found else []
        if not found and not errors and t.get("reason"):
            errors = [re.sub(r"^.*?: ", "", t["reason"])]
        hits = R.expected_failure(matched, found, errors)
        covered.update(e.pattern if e.is_contract else e.source for e in hits if not e.is_test)
        line = ", ".join(f"{e.source}" for e in hits) if hits else "UNEXPECTED"
        print(f"{nodeid}: {line}")
        if not hits:
            unexpected.append(nodeid)
    listed = {e.pattern for e in entries if e.is_contract}
    ran = {c for t in report["tests"].values() for c in t.get("contracts", [])}
    uncovered = sorted((listed & ran) - covered) + sorted(
        e.source for e in entries if e.is_fault and e.source not in covered
    )
    print(f"UNEXPECTED: {unexpected}")
    print(f"listed contracts with no covered failure: {uncovered}")
    return 1 if unexpected or uncovered else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
