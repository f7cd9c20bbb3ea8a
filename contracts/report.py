r"""Expected failures per target and the conformance report (``--h2d-report PATH``).

Both are used by the pytest plugin ``h2d_contracts/plugin.py``; the functions here are plain and tested on
their own (``tests/test_adapters.py``).

Expectations files (``xfails/<target name>.txt``), one entry a line::

    PATTERN [match=REGEX] [if=CONDITION[,CONDITION...]]   # one-line reason

    tests/test_h2d.py::test_bad_input[cpu-nan-to-int]  match=RuntimeError  # NaN into int: RuntimeError, not ValueError
    bad-input  match=wrong\sexception\stype:\sgot\sRuntimeError  # bad values raise RuntimeError
    tests/test_gpu.py::test_staging  if=cuda  match=Pageable  # a strided pinned view is DMA'd from pageable memory

``PATTERN`` is a test node-id prefix or a catalogue id; the ``# reason`` is required.
``match=`` is a regular expression (no spaces: write ``\s``; no ``#``) searched in the
failure it expects: for a contract id in the message of each violation of that
contract, and it is **required** there, so that a new kind of failure in an
already-failing contract is reported as UNEXPECTED instead of being hidden by a
contract-wide entry; for a node id in the whole failure text (violations and other
errors), optional. ``if=`` makes the entry apply only where every condition holds:
``cuda`` / ``no-cuda``, ``pinned`` / ``no-pinned`` (pinned host memory available),
``multi-gpu``, ``torch>=X`` / ``torch<X`` (one file that holds on a CPU-only CI machine
and on a GPU machine with another torch). Entries whose conditions do not hold are
inactive: ignored, and counted in the header.

Strict: a failing test is "xfailed" only if a node-id entry matching it covers it, or
every violation it raised is covered by a contract entry of that contract whose
``match`` finds it; otherwise it stays a failure, marked UNEXPECTED in the report. A
test listed by node id that passes is a failure (``[XPASS(strict)]``). Contract entries
are strict at the contract's level: if no test of a listed contract failed as expected,
the run fails with ``[XPASS(strict)]``; an entry whose kind was not seen while another
entry of its contract was is listed as "not witnessed" (a warning: each failing test
reports its first violation only, and a property's search is random, so one run without
a kind is no evidence that the target was fixed). Active entries that match no collected test produce a warning.

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
    "CONDITIONS",
    "XfailEntry",
    "condition_holds",
    "expected_failure",
    "machine_facts",
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
    """One line of an expectations file (see the module docstring)."""

    pattern: str
    reason: str
    source: str  # "xfails/vllm.txt:12"
    is_contract: bool
    match: str | None = None
    conditions: tuple[str, ...] = ()

    def covers(self, text: str) -> bool:
        """Whether this entry's ``match`` finds ``text`` (no ``match``: any text)."""
        return self.match is None or re.search(self.match, text) is not None


#: The conditions ``if=`` accepts besides ``torch>=X`` / ``torch<X``.
CONDITIONS = ("cuda", "no-cuda", "pinned", "no-pinned", "multi-gpu")


def machine_facts() -> dict[str, Any]:
    """What ``if=`` conditions are evaluated against, read off this process (no CUDA context is created)."""
    import torch

    from .target import torch_pin_memory_available

    cuda = torch.cuda.is_available()
    return {"cuda": cuda, "pinned": torch_pin_memory_available() if cuda else False, "multi-gpu": cuda and torch.cuda.device_count() >= 2, "torch": torch.__version__}


def condition_holds(condition: str, facts: dict[str, Any]) -> bool:
    """Evaluate one ``if=`` condition; ValueError for an unknown one."""
    from packaging.version import Version

    m = re.fullmatch(r"torch(>=|<)(\d+(?:\.\d+)*)", condition)
    if m:
        have = Version(Version(str(facts["torch"])).base_version)
        return have >= Version(m.group(2)) if m.group(1) == ">=" else have < Version(m.group(2))
    if condition.startswith("no-") and condition[3:] in facts:
        return not facts[condition[3:]]
    if condition in facts and condition != "torch":
        return bool(facts[condition])
    raise ValueError(f"unknown condition {condition!r}: use one of {', '.join(CONDITIONS)}, torch>=X, torch<X")


def load_xfails(path: str | Path, catalogue: Iterable[str], facts: dict[str, Any] | None = None) -> tuple[list[XfailEntry], int]:
    """Parse an expectations file: (active entries, number of inactive ones); ValueError naming the line for a bad one.

    ``facts`` (default :func:`machine_facts`) decides which ``if=`` entries are active.
    """
    path = Path(path)
    ids = set(catalogue)
    facts = machine_facts() if facts is None else facts
    entries: list[XfailEntry] = []
    inactive = 0
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{path}:{lineno}"
        head, sep, reason = line.partition("#")
        tokens, reason = head.split(), reason.strip()
        if not sep or not reason or not tokens:
            raise ValueError(f"{where}: expected 'node-id-prefix-or-contract-id [match=REGEX] [if=COND,...]  # one-line reason', got {raw!r}")
        pattern, options = tokens[0], dict.fromkeys(("match", "if"))
        for token in tokens[1:]:
            key, eq, value = token.partition("=")
            if not eq or key not in options or not value or options[key] is not None:
                raise ValueError(f"{where}: {token!r} is not 'match=REGEX' or 'if=COND,...' (once each; a regex has no spaces: write \\s)")
            options[key] = value
        if options["match"] is not None:
            try:
                re.compile(options["match"])
            except re.error as exc:
                raise ValueError(f"{where}: match={options['match']!r} is not a regular expression: {exc}") from None
        elif pattern in ids:
            raise ValueError(f"{where}: a contract-wide entry must say which failure it expects: add match=REGEX (a pattern of its message)")
        conditions = tuple(options["if"].split(",")) if options["if"] else ()
        try:
            active = all(condition_holds(c, facts) for c in conditions)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if not active:
            inactive += 1
            continue
        entries.append(XfailEntry(pattern, reason, f"{path.as_posix()}:{lineno}", pattern in ids, options["match"], conditions))
    return entries, inactive


def match_xfails(nodeid: str, contract_ids: set[str], entries: list[XfailEntry]) -> list[XfailEntry]:
    """Entries that apply to the test ``nodeid`` exercising ``contract_ids``."""
    return [e for e in entries if (e.pattern in contract_ids if e.is_contract else nodeid.startswith(e.pattern))]


def with_violated(matched: list[XfailEntry], violations: list[dict[str, Any]], entries: list[XfailEntry]) -> list[XfailEntry]:
    """``matched`` plus the contract entries of every contract a violation names: a test can violate a
    contract through a helper the static mapping of tests to contracts cannot see."""
    violated = {v["contract"] for v in violations}
    return matched + [e for e in entries if e.is_contract and e.pattern in violated and e not in matched]


def expected_failure(matched: list[XfailEntry], violations: list[dict[str, Any]], errors: list[str]) -> list[XfailEntry]:
    """The entries that cover a failure (empty: it is UNEXPECTED).

    Covered by a node-id entry whose ``match`` finds the whole failure text, or else
    when every violation is covered by a contract entry of its contract whose ``match``
    finds its message (a failure that is no contract violation needs a node-id entry).
    """
    text = "\n".join([v["message"] for v in violations] + list(errors))
    by_node = [e for e in matched if not e.is_contract and e.covers(text)]
    if by_node:
        return by_node
    used: list[XfailEntry] = []
    for v in violations:
        hits = [e for e in matched if e.is_contract and e.pattern == v["contract"] and e.covers(v["message"])]
        if not hits:
            return []
        used += [e for e in hits if e not in used]
    return used


# --------------------------------------------------------------------------- conformance report


@dataclass
class ConformanceReport:
    """Collects test reports (on the xdist controller too) and writes PATH.json and PATH.md."""

    meta: dict[str, Any]
    catalogue: tuple[str, ...]
    tests: dict[str, dict[str, Any]] = field(default_factory=dict)
    unmatched_xfails: list[str] = field(default_factory=list)
    xpassed_contracts: list[str] = field(default_factory=list)
    unwitnessed_xfails: list[str] = field(default_factory=list)

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
            "unwitnessed_xfails": self.unwitnessed_xfails,
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
    if m.get("unwitnessed_xfails"):
        lines += ["", "Expectation entries not witnessed this run (their contract failed as expected by another entry; a random search or an earlier violation in the same test can hide a kind): " + ", ".join(f"`{u}`" for u in m["unwitnessed_xfails"])]
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
