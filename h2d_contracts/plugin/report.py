"""The conformance report (``--h2d-report PATH``): per contract and per test, the digest of distinct problems, reproductions.

Collected by the pytest plugin from test reports (on the xdist controller too) and written
as ``PATH.json`` and ``PATH.md``. The report opens with the digest: one line per distinct
problem (contract, kind, what it is, how many tests show it, its verified reproduction).
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

__all__ = [
    "ConformanceReport",
    "Problem",
    "contracts_of_function",
    "digest_lines",
    "failure_text",
    "said",
    "to_markdown",
    "violations_of",
]

# --------------------------------------------------------------------------- contract of a test


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def contracts_of_function(func: Any, marked: Iterable[str] = ()) -> set[str]:
    """Catalogue ids a test function exercises: the properties its body calls, else the checks it calls, plus ``marked``."""
    from h2d_contracts.harness.checks import CHECKS
    from h2d_contracts.harness.registry import contract_of

    ids = set(marked)
    prop = getattr(func, "h2d_property", None)  # a contract test (harness.suite.contract_test): its property's id
    if prop is not None and (by_test := contract_of(prop.__name__)) is not None:
        return ids | {by_test}
    func = getattr(func, "__wrapped__", func)
    code = getattr(func, "__code__", None)
    if code is None:
        return ids
    names = _code_names(code)
    # one level of the test module's own helpers (``_ok`` calling ``check_values_equal``)
    module_globals = getattr(func, "__globals__", {})
    for name in list(names):
        helper = module_globals.get(name)
        if (
            callable(helper)
            and getattr(helper, "__module__", None) == func.__module__
            and hasattr(helper, "__code__")
            and not name.startswith("test_")
        ):
            names |= _code_names(helper.__code__)
    by_prop = {c for n in names if (c := contract_of(n)) is not None}
    return ids | (by_prop or {CHECKS[n] for n in names if n in CHECKS})


def violations_of(exc: BaseException | None) -> list[dict[str, Any]]:
    """Every ContractViolation in ``exc`` (exception groups walked): id, message, Hypothesis notes."""
    from h2d_contracts.harness.violations import ContractViolation, problem_key

    found: list[dict[str, Any]] = []

    def walk(e: BaseException) -> None:
        if isinstance(e, BaseExceptionGroup):
            for sub in e.exceptions:
                walk(sub)
        elif isinstance(e, ContractViolation):
            found.append(
                {
                    "contract": e.contract,
                    "message": str(e),
                    "notes": list(getattr(e, "__notes__", [])),
                    "input_class": e.input_class,
                    "check": e.check,
                    "kind": problem_key(e)[1],
                    "repro": e.repro,
                    "repro_problem": getattr(e, "repro_problem", ""),
                }
            )

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


# --------------------------------------------------------------------------- conformance report

#: Test statuses, worst first is the last: a test's status is its worst phase's.
_RANK = {"passed": 0, "skipped": 1, "not applicable": 1, "xfailed": 2, "timed out": 3, "failed": 3}


@dataclass
class Problem:
    """One distinct problem of a run: a contract and a kind of failure (what failed, not on which input), with its tests.

    ``classes`` are the kinds of input it showed with (``list``, ``ndarray+out``...); the
    reproduction is of its first failure (the others are in the tests' sections).
    """

    id: str
    contract: str
    kind: str
    description: str
    tests: list[str]
    expected: bool
    repro: str | None
    classes: list[str] = field(default_factory=list)
    repro_problem: str = ""
    repro_kind: str = ""
    repro_path: str = ""
    verified: bool | None = None
    verify_reason: str = ""
    #: Wall seconds of its reproduction's run on the target, then on the reference (empty when not run).
    verify_seconds: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "repro"}
        out["count"] = len(self.tests)
        return out


@dataclass
class ConformanceReport:
    """Collects test reports (on the xdist controller too) and writes PATH.json, PATH.md and the reproductions."""

    meta: dict[str, Any]
    catalogue: tuple[str, ...]
    tests: dict[str, dict[str, Any]] = field(default_factory=dict)
    unmatched_xfails: list[str] = field(default_factory=list)
    xpassed_contracts: list[str] = field(default_factory=list)
    unwitnessed_xfails: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def add(
        self, nodeid: str, when: str, outcome: str, props: dict[str, Any], longrepr: str, wasxfail: str | None
    ) -> None:
        """One phase report of one test; the worst phase wins (failed, timed out > xfailed > skipped > passed)."""
        if when == "setup" and outcome == "passed":
            return
        if when == "teardown" and outcome != "failed":
            return
        status = outcome
        if wasxfail is not None:  # xfailed, or a non-strict xpass (outcome passed)
            status = "xfailed" if outcome == "skipped" else outcome
        elif outcome == "skipped":
            status = "not applicable" if "not applicable" in longrepr else "skipped"
        elif outcome == "failed" and props.get("h2d_timeout"):
            status = "timed out"
        entry = self.tests.setdefault(
            nodeid,
            {
                "status": "passed",
                "contracts": [],
                "violations": [],
                "errors": [],
                "reason": "",
                "calls": None,
                "outside_domain": 0,
            },
        )
        if _RANK[status] >= _RANK[entry["status"]]:
            entry["status"] = status
            entry["reason"] = (
                wasxfail
                if wasxfail
                else (longrepr.strip().splitlines()[-1][:300] if status != "passed" and longrepr.strip() else "")
            )
        entry["contracts"] = sorted(
            set(entry["contracts"])
            | set(props.get("h2d_contracts", []))
            | {v["contract"] for v in props.get("h2d_violations", [])}
        )
        entry["violations"] += props.get("h2d_violations", [])
        entry["errors"] += props.get("h2d_errors", [])
        if "h2d_calls" in props:
            entry["calls"] = props["h2d_calls"]
        entry["outside_domain"] += props.get("h2d_outside", 0)
        if when != "call" and outcome == "failed":
            entry["errors"].append(f"error in {when}: {longrepr.strip().splitlines()[-1] if longrepr.strip() else ''}")

    def by_contract(self) -> dict[str, dict[str, Any]]:
        """Catalogue id -> outcome over its tests and counts."""
        out: dict[str, dict[str, Any]] = {}
        for cid in self.catalogue + tuple(
            sorted({c for t in self.tests.values() for c in t["contracts"]} - set(self.catalogue))
        ):
            statuses = [self._status_for(t, cid) for t in self.tests.values() if cid in t["contracts"]]
            kinds = (
                "passed",
                "failed",
                "xfailed",
                "timed out",
                "not applicable",
                "skipped",
                "failed on other contracts",
            )
            counts = {s: statuses.count(s) for s in kinds if statuses.count(s)}
            if not statuses:
                outcome = "not collected"
            elif "failed" in statuses:
                outcome = "fail"
            elif "timed out" in statuses:
                outcome = "timed out"
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

        A test mapped to several contracts that failed by violating only others (a table of
        ``values`` rows run into ``out``) is no evidence that ``cid`` fails: it counts as
        "failed on other contracts", not as a failure of ``cid``.
        """
        if test["status"] in ("failed", "xfailed") and test["violations"]:
            if cid not in {v["contract"] for v in test["violations"]}:
                return "failed on other contracts"
        return cast(str, test["status"])

    def find_problems(self) -> list[Problem]:
        """Group the failures into distinct problems: one per (contract, kind), in catalogue order, the most common first.

        The kind is what failed (:func:`~harness.violations.kind_of`), across input kinds; the
        input kinds it showed with are listed. A failure that is no contract violation (a kit
        error, an error in setup, a timeout) is a problem of its own, keyed by its first line.
        """
        from h2d_contracts.harness.violations import kind_of

        groups: dict[tuple[str, str], dict[str, Any]] = {}

        def group(key: tuple[str, str], violation: dict[str, Any], nodeid: str, expected: bool) -> None:
            g = groups.setdefault(key, {"tests": [], "expected": True, "violation": violation, "classes": []})
            if nodeid not in g["tests"]:
                g["tests"].append(nodeid)
            g["expected"] &= expected
            cls = violation.get("input_class") or ""
            if cls and cls not in g["classes"]:
                g["classes"].append(cls)

        for nodeid, t in self.tests.items():
            if t["status"] not in ("failed", "xfailed", "timed out"):
                continue
            expected = t["status"] == "xfailed"
            for v in t["violations"]:
                group((v["contract"], kind_of(v["message"])), v, nodeid, expected or bool(v.get("expected")))
            if not t["violations"]:
                first = (t["errors"][0] if t["errors"] else t["reason"]).strip().splitlines()
                what = first[0][:200] if first else "failed"
                contract = "timeout" if t["status"] == "timed out" else "kit" if what.startswith("[kit]") else "error"
                group((contract, re.sub(r"\d+", "#", what)), {"message": what, "repro": None}, nodeid, expected)
        order = {c: i for i, c in enumerate(self.catalogue)}
        ranked = sorted(
            groups.items(),
            key=lambda kv: (kv[1]["expected"], order.get(kv[0][0], len(order)), -len(kv[1]["tests"]), kv[0][1]),
        )
        self.problems = []
        for i, ((contract, kind), g) in enumerate(ranked, 1):
            v = g["violation"]
            self.problems.append(
                Problem(
                    f"P{i:02d}",
                    contract,
                    kind,
                    v["message"].splitlines()[0][:300],
                    g["tests"],
                    g["expected"],
                    v.get("repro"),
                    g["classes"],
                    v.get("repro_problem", ""),
                    v.get("kind", ""),
                )
            )
        return self.problems

    def to_json(self) -> dict[str, Any]:
        totals: dict[str, int] = {}
        for t in self.tests.values():
            totals[t["status"]] = totals.get(t["status"], 0) + 1
        return {
            **self.meta,
            "totals": totals,
            "problems": [p.to_json() for p in self.problems],
            "contracts": self.by_contract(),
            "unmatched_xfails": self.unmatched_xfails,
            "xpassed_contracts": self.xpassed_contracts,
            "unwitnessed_xfails": self.unwitnessed_xfails,
            "tests": dict(sorted(self.tests.items())),
        }

    def paths(self, path: str | Path) -> tuple[Path, Path, Path]:
        """``(PATH.json, PATH.md, PATH.repro/)``; if PATH is an existing directory, ``PATH/<target>.json`` and so on."""
        path = Path(path)
        if path.is_dir():
            path = path / str(self.meta.get("target", "report"))
        return Path(f"{path}.json"), Path(f"{path}.md"), Path(f"{path}.repro")

    def write(self, path: str | Path) -> tuple[Path, Path]:
        """Write ``PATH.json`` and ``PATH.md`` (see :meth:`paths`)."""
        jpath, mpath, _ = self.paths(path)
        jpath.parent.mkdir(parents=True, exist_ok=True)
        data = self.to_json()
        jpath.write_text(json.dumps(data, indent=1, sort_keys=False, default=str) + "\n")
        mpath.write_text(to_markdown(data))
        return jpath, mpath


def said(problem: Problem) -> str:
    """A problem's first failure as the target produced it, without its ``[contract]`` prefix (its kind, digits
    masked, is only the grouping key)."""
    return re.sub(r"^\[[a-z][a-z-]*\] ", "", problem.description)


def digest_lines(problems: list[Problem], target: str, *, expected_in_full: bool = False) -> list[str]:
    """The digest as terminal lines: one line per distinct problem (the expected ones in one line unless ``expected_in_full``)."""
    if not problems:
        return []
    unexpected = [p for p in problems if not p.expected]
    expected = [p for p in problems if p.expected]
    lines = [
        f"{len(problems)} distinct problem{'s' if len(problems) != 1 else ''} of {target}: {len(unexpected)} unexpected, {len(expected)} expected"
    ]
    for p in unexpected + (expected if expected_in_full else []):
        mark = "expected" if p.expected else "UNEXPECTED"
        inputs = f" ({', '.join(p.classes)})" if p.classes else ""
        lines.append(
            f"  {p.id} [{p.contract}] {said(p)[:160]}{inputs}: {mark}, {len(p.tests)} test{'s' if len(p.tests) != 1 else ''}"
        )
        verdict = "verified" if p.verified else f"not verified: {p.verify_reason}" if p.verified is False else "not run"
        lines.append(
            f"      reproduce: python {p.repro_path} ({verdict})"
            if p.repro_path
            else f"      no reproduction ({verdict})"
        )
    if expected and not expected_in_full:
        verified = sum(1 for p in expected if p.verified)
        lines.append(
            f"  {expected[0].id}-{expected[-1].id}: {len(expected)} problems listed as expected ({verified} reproductions verified); the report has each"
        )
    return lines


def _failure_block(t: dict[str, Any]) -> str:
    parts = []
    for v in t["violations"]:
        text = "\n".join([v["message"], *[n for n in v["notes"] if not n.startswith("You can reproduce")]])
        parts.append(text)
    parts += t["errors"]
    body = "\n\n".join(dict.fromkeys(parts)) or t["reason"]
    return f"```\n{body}\n```\n"


def to_markdown(data: dict[str, Any]) -> str:
    """The Markdown view of :meth:`ConformanceReport.to_json`: the digest first, then contracts, failures, not applicable."""
    m = data
    problems = m.get("problems", [])
    lines = (
        _md_header(m) + _md_problems(m, problems) + _md_contracts(m) + _md_failures(m, problems) + _md_not_applicable(m)
    )
    return "\n".join(lines) + "\n"


def _md_header(m: dict[str, Any]) -> list[str]:
    """The report's title and its table of the run (target, machine, command, totals), up to the problems' heading."""
    return [
        f"# Conformance report: {m['target']}",
        "",
        "| | |",
        "|---|---|",
        f"| target | `{m['target']}` {m.get('target_version', '')} |",
        f"| capabilities | {', '.join(m.get('capabilities', [])) or '(none)'} |",
        f"| inputs | {', '.join(m.get('inputs', [])) or '(all)'} |",
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
        "## Distinct problems",
        "",
    ]


def _md_problems(m: dict[str, Any], problems: list[dict[str, Any]]) -> list[str]:
    """The distinct problems, one table row each, and the preamble a failure's ``call:`` line runs after."""
    lines: list[str] = []
    if problems:
        lines += [
            "One line per distinct problem (a contract and a kind of failure). Each reproduction is a script that rebuilds the exact input "
            "and calls the contract's check; *verified* means it was run in a fresh interpreter and failed the same way on the target and passed on the reference.",
            "",
            "| id | contract | kind | inputs | expected | tests | first failure | reproduction |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for p in problems:
            verdict = (
                "verified"
                if p.get("verified")
                else f"not verified: {p.get('verify_reason', '')}"
                if p.get("verified") is False
                else "not run"
            )
            repro = f"`{p['repro_path']}` ({verdict})" if p.get("repro_path") else "none"
            row = [
                p["id"],
                p["contract"],
                p["kind"],
                ", ".join(p.get("classes", [])),
                "yes" if p["expected"] else "**no**",
                str(p["count"]),
                p["description"][:200],
                repro,
            ]
            lines.append("| " + " | ".join(cell.replace("|", "/") for cell in row) + " |")
    else:
        lines.append("None.")
    if m.get("preamble") and problems:
        lines += [
            "",
            "A failure's `call:` line is the call in the target's own names: pasted after this preamble, it runs as printed.",
            "",
            "```python",
            m["preamble"].rstrip("\n"),
            "```",
        ]
    return lines


def _md_contracts(m: dict[str, Any]) -> list[str]:
    """Each contract's outcome, then the calls outside the declared inputs and the expectation entries that did not hold."""
    lines = ["", "## Contracts", "", "| contract | outcome | tests |", "|---|---|---|"]
    for cid, c in m["contracts"].items():
        lines.append(f"| {cid} | {c['outcome']} | {', '.join(f'{k} {v}' for k, v in c['tests'].items())} |")
    lines += [
        "",
        "*failed on other contracts*: a test of several contracts (a table of `values` rows with `out=`, say) that failed on another of them only: no evidence about this one.",
    ]
    outside = sum(t.get("outside_domain", 0) for t in m["tests"].values())
    if outside:
        lines += ["", f"Calls left out as outside the target's declared inputs (not applicable): {outside}."]
    if m.get("xpassed_contracts"):
        lines += [
            "",
            "Contracts listed as expected failures whose tests all passed (a failure of the run): "
            + ", ".join(f"`{u}`" for u in m["xpassed_contracts"]),
        ]
    if m.get("unwitnessed_xfails"):
        lines += [
            "",
            "Expectation entries not witnessed this run (their contract failed as expected by another entry): "
            + ", ".join(f"`{u}`" for u in m["unwitnessed_xfails"]),
        ]
    if m.get("unmatched_xfails"):
        lines += ["", "Expectation entries that matched no test: " + ", ".join(f"`{u}`" for u in m["unmatched_xfails"])]
    return lines


def _md_failures(m: dict[str, Any], problems: list[dict[str, Any]]) -> list[str]:
    """Every failed, expected-to-fail or timed-out test, with its contracts, its verdict, its problem and its failure."""
    failing = {n: t for n, t in m["tests"].items() if t["status"] in ("failed", "xfailed", "timed out")}
    lines = ["", "## Failures", ""]
    if not failing:
        lines.append("None.")
    ids = {t: p["id"] for p in problems for t in p["tests"]}
    for nodeid, t in failing.items():
        tag = (
            "expected: " + t["reason"]
            if t["status"] == "xfailed"
            else t["status"].upper()
            if t["status"] == "timed out"
            else "UNEXPECTED"
        )
        lines += [
            f"### `{nodeid}`",
            "",
            f"{', '.join(t['contracts']) or 'no contract id'}; {tag}; problem {ids.get(nodeid, '?')}",
            "",
            _failure_block(t),
        ]
    return lines


def _md_not_applicable(m: dict[str, Any]) -> list[str]:
    """The tests not applicable or skipped, with their reasons (nothing when there are none)."""
    lines: list[str] = []
    other = {n: t for n, t in m["tests"].items() if t["status"] in ("not applicable", "skipped")}
    if other:
        lines += ["## Not applicable / skipped", "", "| test | status | reason |", "|---|---|---|"]
        lines += [f"| `{n}` | {t['status']} | {t['reason'].replace('|', '/')} |" for n, t in other.items()]
    return lines
