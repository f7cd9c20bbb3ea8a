"""Expected failures per target and the conformance report (``--h2d-report PATH``).

Both are used by the root ``conftest.py``; the functions here are plain and tested on
their own (``tests/test_adapters.py``).

Expectations files (``xfails/<target name>.txt``), one entry a line::

    tests/test_h2d.py::test_bad_input[cpu-nan-to-int]   # NaN into an int dtype gives INT_MIN, no error
    bad-input                                           # a contract id: every test of that contract

An entry is a test node-id prefix or a catalogue id; the ``# reason`` is required.
Strict: a test listed by node id that fails is "xfailed", one that passes is a failure
(``[XPASS(strict)]``). A contract-id entry is strict at the contract's level: a failing
test of that contract is xfailed only when every contract it violated is listed (a
failure of another contract stays a failure); its passing tests stay passes, but if
none of the contract's tests fails the run fails with ``[XPASS(strict)]``. Entries that
match no collected test produce a warning.

Contract of a test: the catalogue ids of the ``prop_*`` or ``check_*`` functions its
body calls (from :data:`contracts.properties.PROPERTIES`), or those named by
``@pytest.mark.contract("id", ...)``; a failing test also counts for every id in the
``[id]`` of its ``ContractViolation`` messages.
"""

from __future__ import annotations

import json
import re
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

__all__ = [
    "XfailEntry",
    "ConformanceReport",
    "contracts_of_function",
    "load_xfails",
    "match_xfails",
    "violations_of",
]

_ID_RE = re.compile(r"^\[([a-z][a-z-]*)\] ", re.M)


# --------------------------------------------------------------------------- contract of a test


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _name_maps() -> tuple[dict[str, str], dict[str, str]]:
    """prop name -> id, check name -> id (first contract in catalogue order whose properties call it)."""
    from .properties import PROPERTIES

    props: dict[str, str] = {}
    checks: dict[str, str] = {}
    for cid, funcs in PROPERTIES.items():
        for func in funcs:
            props[func.__name__] = cid
            for name in sorted(_code_names(func.__code__)):
                if name.startswith("check_"):
                    checks.setdefault(name, cid)
    return props, checks


def contracts_of_function(func: Any, marked: Iterable[str] = ()) -> set[str]:
    """Catalogue ids a test function exercises (see the module docstring)."""
    ids = set(marked)
    code = getattr(getattr(func, "__wrapped__", func), "__code__", None)
    if code is None:
        return ids
    names = _code_names(code)
    props, checks = _name_maps()
    by_prop = {props[n] for n in names if n in props}
    return ids | (by_prop or {checks[n] for n in names if n in checks})


def violations_of(exc: BaseException | None) -> list[dict[str, Any]]:
    """Every ContractViolation in ``exc`` (exception groups walked): id, message, Hypothesis notes."""
    from ._report import ContractViolation

    found: list[dict[str, Any]] = []

    def walk(e: BaseException) -> None:
        if isinstance(e, BaseExceptionGroup):
            for sub in e.exceptions:
                walk(sub)
        elif isinstance(e, ContractViolation):
            found.append({"contract": e.contract, "message": str(e), "notes": list(getattr(e, "__notes__", []))})

    if exc is not None:
        walk(exc)
    return found


def failure_text(exc: BaseException | None, limit: int = 40) -> list[str]:
    """Non-contract failures: exception type, message and Hypothesis notes, shortened."""
    if exc is None:
        return []
    out: list[str] = []

    def walk(e: BaseException) -> None:
        if isinstance(e, BaseExceptionGroup):
            for sub in e.exceptions:
                walk(sub)
            return
        lines = [f"{type(e).__module__}.{type(e).__qualname__}: {e}"] + list(getattr(e, "__notes__", []))
        out.append("\n".join(lines[:limit]))

    walk(exc)
    return out


# --------------------------------------------------------------------------- expectations files


@dataclass(frozen=True)
class XfailEntry:
    """One line of an expectations file."""

    pattern: str
    reason: str
    source: str  # "xfails/vllm.txt:12"
    is_contract: bool


def load_xfails(path: str | Path, catalogue: Iterable[str]) -> list[XfailEntry]:
    """Parse an expectations file; a line without ``# reason`` is an error naming the line."""
    path = Path(path)
    ids = set(catalogue)
    entries = []
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, sep, reason = line.partition("#")
        pattern, reason = pattern.strip(), reason.strip()
        if not sep or not reason or not pattern or " " in pattern:
            raise ValueError(f"{path}:{lineno}: expected 'node-id-prefix-or-contract-id  # one-line reason', got {raw!r}")
        entries.append(XfailEntry(pattern, reason, f"{path.as_posix()}:{lineno}", pattern in ids))
    return entries


def match_xfails(nodeid: str, contract_ids: set[str], entries: list[XfailEntry]) -> list[XfailEntry]:
    """Entries that apply to the test ``nodeid`` exercising ``contract_ids``."""
    return [e for e in entries if (e.pattern in contract_ids if e.is_contract else nodeid.startswith(e.pattern))]


def expected_failure(matched: list[XfailEntry], violated: set[str]) -> bool:
    """Whether a failure is covered: any node-id entry, or contract entries covering every violated id."""
    if any(not e.is_contract for e in matched):
        return True
    listed = {e.pattern for e in matched}
    return bool(violated) and violated <= listed


# --------------------------------------------------------------------------- conformance report


@dataclass
class ConformanceReport:
    """Collects test reports (on the xdist controller too) and writes PATH.json and PATH.md."""

    meta: dict[str, Any]
    catalogue: tuple[str, ...]
    tests: dict[str, dict[str, Any]] = field(default_factory=dict)
    unmatched_xfails: list[str] = field(default_factory=list)
    xpassed_contracts: list[str] = field(default_factory=list)

    def add(self, nodeid: str, when: str, outcome: str, props: dict[str, Any], longrepr: str, wasxfail: str | None) -> None:
        """One phase report of one test; the worst phase wins (failed > xfailed/xpassed > skipped > passed)."""
        if when == "setup" and outcome == "passed":
            return
        if when == "teardown" and outcome != "failed":
            return
        status = outcome
        if wasxfail is not None:  # xfailed, or a non-strict xpass (outcome passed)
            status = "xfailed" if outcome == "skipped" else outcome
        elif outcome == "skipped":
            status = "not applicable" if "not applicable" in longrepr else "skipped"
        rank = {"passed": 0, "skipped": 1, "not applicable": 1, "xfailed": 2, "failed": 3}
        entry = self.tests.setdefault(nodeid, {"status": "passed", "contracts": [], "violations": [], "errors": [], "reason": ""})
        if rank[status] >= rank[entry["status"]]:
            entry["status"] = status
            entry["reason"] = wasxfail if wasxfail else (longrepr.strip().splitlines()[-1][:300] if status != "passed" and longrepr.strip() else "")
        entry["contracts"] = sorted(set(entry["contracts"]) | set(props.get("h2d_contracts", [])) | {v["contract"] for v in props.get("h2d_violations", [])})
        entry["violations"] += props.get("h2d_violations", [])
        entry["errors"] += props.get("h2d_errors", [])
        if when != "call" and outcome == "failed":
            entry["errors"].append(f"error in {when}: {longrepr.strip().splitlines()[-1] if longrepr.strip() else ''}")

    def by_contract(self) -> dict[str, dict[str, Any]]:
        """Catalogue id -> outcome over its tests and counts."""
        out: dict[str, dict[str, Any]] = {}
        for cid in self.catalogue + tuple(sorted({c for t in self.tests.values() for c in t["contracts"]} - set(self.catalogue))):
            statuses = [self._status_for(t, cid) for t in self.tests.values() if cid in t["contracts"]]
            kinds = ("passed", "failed", "xfailed", "not applicable", "skipped", "failed on another contract")
            counts = {s: statuses.count(s) for s in kinds if statuses.count(s)}
            if not statuses:
                outcome = "not collected"
            elif "failed" in statuses:
                outcome = "fail"
            elif "xfailed" in statuses:
                outcome = "fail (expected)"
            elif "passed" in statuses:
                outcome = "pass"
            elif "not applicable" in statuses:
                outcome = "not applicable"
            elif "skipped" in statuses:
                outcome = "skipped"
            else:
                outcome = "inconclusive"  # its only tests stopped on another contract's violation
            out[cid] = {"outcome": outcome, "tests": counts}
        return out

    @staticmethod
    def _status_for(test: dict[str, Any], cid: str) -> str:
        """A test's status as evidence about contract ``cid``.

        A test mapped to several contracts that failed by violating only others (say
        ``values`` in a test mapped to ``values`` and ``out``) is no evidence that ``cid``
        fails: it counts as "failed on another contract", not as a failure of ``cid``.
        """
        if test["status"] in ("failed", "xfailed") and test["violations"]:
            if cid not in {v["contract"] for v in test["violations"]}:
                return "failed on another contract"
        return test["status"]

    def to_json(self) -> dict[str, Any]:
        totals: dict[str, int] = {}
        for t in self.tests.values():
            totals[t["status"]] = totals.get(t["status"], 0) + 1
        return {
            **self.meta,
            "totals": totals,
            "contracts": self.by_contract(),
            "unmatched_xfails": self.unmatched_xfails,
            "xpassed_contracts": self.xpassed_contracts,
            "tests": dict(sorted(self.tests.items())),
        }

    def write(self, path: str | Path) -> tuple[Path, Path]:
        """Write ``PATH.json`` and ``PATH.md``; if PATH is an existing directory, ``PATH/<target>.json`` and ``.md``."""
        path = Path(path)
        if path.is_dir():
            path = path / str(self.meta.get("target", "report"))
        path.parent.mkdir(parents=True, exist_ok=True)
        data = self.to_json()
        jpath, mpath = Path(f"{path}.json"), Path(f"{path}.md")
        jpath.write_text(json.dumps(data, indent=1, sort_keys=False, default=str) + "\n")
        mpath.write_text(to_markdown(data))
        return jpath, mpath


def _repro_block(t: dict[str, Any]) -> str:
    parts = []
    for v in t["violations"]:
        text = "\n".join([v["message"], *[n for n in v["notes"] if not n.startswith("You can reproduce")]])
        parts.append(text)
    parts += t["errors"]
    body = "\n\n".join(dict.fromkeys(parts)) or t["reason"]
    return f"```\n{body}\n```\n"


def to_markdown(data: dict[str, Any]) -> str:
    """The Markdown view of :meth:`ConformanceReport.to_json`."""
    m = data
    lines = [
        f"# Conformance report: {m['target']}",
        "",
        "| | |",
        "|---|---|",
        f"| target | `{m['target']}` {m.get('target_version', '')} |",
        f"| capabilities | {', '.join(m.get('capabilities', [])) or '(none)'} |",
        f"| notes | {m.get('notes', '')} |",
        f"| pinned memory | {m.get('pinned', '')} |",
        f"| torch | {m.get('torch', '')} |",
        f"| machine | {m.get('machine', '')} |",
        f"| python / hypothesis | {m.get('python', '')} / {m.get('hypothesis', '')} (profile {m.get('profile', '')}, seed {m.get('seed', '')}) |",
        f"| command | `{m.get('command', '')}` |",
        f"| expectations | {m.get('xfails_file') or '(none)'} |",
        f"| date | {m.get('date', '')} |",
        f"| tests | {', '.join(f'{k}: {v}' for k, v in sorted(m['totals'].items()))} |",
        "",
        "## Contracts",
        "",
        "| contract | outcome | tests |",
        "|---|---|---|",
    ]
    for cid, c in m["contracts"].items():
        lines.append(f"| {cid} | {c['outcome']} | {', '.join(f'{k} {v}' for k, v in c['tests'].items())} |")
    if m.get("xpassed_contracts"):
        lines += ["", "Contracts listed as expected failures whose tests all passed (a failure of the run): " + ", ".join(f"`{u}`" for u in m["xpassed_contracts"])]
    if m.get("unmatched_xfails"):
        lines += ["", "Expectation entries that matched no test: " + ", ".join(f"`{u}`" for u in m["unmatched_xfails"])]
    failing = {n: t for n, t in m["tests"].items() if t["status"] in ("failed", "xfailed")}
    lines += ["", "## Failures", ""]
    if failing:
        lines += ["Each failure: the contract's message, the call as Python source (`call:`), then Hypothesis's shrunk draws."]
        if m.get("repro_preamble"):
            lines += ["Paste this first, then the `call:` line:", "", "```python", m["repro_preamble"], "```", ""]
    else:
        lines.append("None.")
    for nodeid, t in failing.items():
        tag = "expected: " + t["reason"] if t["status"] == "xfailed" else "UNEXPECTED"
        lines += [f"### `{nodeid}`", "", f"{', '.join(t['contracts']) or 'no contract id'}; {tag}", "", _repro_block(t)]
    other = {n: t for n, t in m["tests"].items() if t["status"] in ("not applicable", "skipped")}
    if other:
        lines += ["## Not applicable / skipped", "", "| test | status | reason |", "|---|---|---|"]
        lines += [f"| `{n}` | {t['status']} | {t['reason'].replace('|', '/')} |" for n, t in other.items()]
    return "\n".join(lines) + "\n"
