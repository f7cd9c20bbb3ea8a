r"""Expected failures of a target: the expectations file (``xfails/<target name>.txt``), its grammar and its strict rules.

Used by the pytest plugin (``h2d_contracts.plugin``); the functions here are plain and tested on
their own (the kit's meta-tests).

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
and on a GPU machine with another torch), ``version>=X`` / ``version<X`` (the target's
version: one file for every release of an engine). Entries whose conditions do not hold are
inactive: ignored, and counted in the header.

A line ``include FILE [if=CONDITION,...]  # reason`` reads the entries of ``FILE`` (a path
relative to the including file) in its place, with the including file's facts; where the
include's own conditions do not hold, all of them are inactive. Entries shared by several
targets' files (vLLM's Model Runner V2 utilities, judged in every release that has them,
under the targets ``vllm``, ``vllm-device-dtype`` and ``vllm-pin-memory``) are written once.
An included file that includes a file already being read is refused (a cycle).

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
body calls (from :data:`harness.registry.PROPERTIES`), or those named by
``@pytest.mark.contract("id", ...)``; a failing test also counts for every id in the
``[id]`` of its ``ContractViolation`` messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CONDITIONS",
    "FAULT",
    "RENAMED_TESTS",
    "XfailEntry",
    "condition_holds",
    "expected_failure",
    "load_xfails",
    "machine_facts",
    "match_xfails",
    "with_violated",
]


# --------------------------------------------------------------------------- expectations files


#: The PATTERN of an entry that names a fault by what it is, under whichever contract shows it.
FAULT = "fault"


@dataclass(frozen=True)
class XfailEntry:
    """One line of an expectations file (see the module docstring)."""

    pattern: str
    reason: str
    source: str  # "xfails/vllm.txt:12"
    is_contract: bool
    match: str | None = None
    conditions: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()  # a fault entry's input classes (``list``, ``ndarray+out``); empty: any

    @property
    def is_fault(self) -> bool:
        """A ``fault`` entry: covers a violation of any contract by its message and input class."""
        return self.pattern == FAULT

    @property
    def is_test(self) -> bool:
        """A node-id entry."""
        return not self.is_contract and not self.is_fault

    def covers(self, text: str) -> bool:
        """Whether this entry's ``match`` finds ``text`` (no ``match``: any text)."""
        return self.match is None or re.search(self.match, text) is not None

    def covers_violation(self, violation: dict[str, Any]) -> bool:
        """Whether this contract or fault entry covers ``violation`` (a dict of :func:`plugin.report.violations_of`)."""
        if self.is_fault:
            cls = violation.get("input_class") or ""
            return (not self.inputs or cls in self.inputs or cls.split("+")[0] in self.inputs) and self.covers(
                violation["message"]
            )
        return self.is_contract and self.pattern == violation["contract"] and self.covers(violation["message"])

    def matches_test(self, nodeid: str, printed: str | None = None) -> bool:
        """Whether this node-id entry names the test ``nodeid`` (the checkout's id) or ``printed`` (pytest's own).

        An entry may be spelled as the checkout spells it (``tests/test_gpu.py::test_stream``) or as
        pytest prints it for an installed suite (``test_gpu.py::test_stream``).
        """
        if not self.is_test:
            return False
        return (
            nodeid.startswith(self.pattern)
            or (printed is not None and printed.startswith(self.pattern))
            or (not self.pattern.startswith("tests/") and nodeid.startswith("tests/" + self.pattern))
        )


#: The conditions ``if=`` accepts besides ``torch>=X`` / ``torch<X``.
CONDITIONS = ("cuda", "no-cuda", "pinned", "no-pinned", "multi-gpu")


def machine_facts() -> dict[str, Any]:
    """What ``if=`` conditions are evaluated against, read off this process (no CUDA context is created)."""
    import torch

    from h2d_contracts.contracts.targets import torch_pin_memory_available

    cuda = torch.cuda.is_available()
    return {
        "cuda": cuda,
        "pinned": torch_pin_memory_available() if cuda else False,
        "multi-gpu": cuda and torch.cuda.device_count() >= 2,
        "torch": torch.__version__,
    }


def condition_holds(condition: str, facts: dict[str, Any]) -> bool:
    """Evaluate one ``if=`` condition; ValueError for an unknown one."""
    from packaging.version import InvalidVersion, Version

    m = re.fullmatch(r"(torch|version)(>=|<)(\d+(?:\.\d+)*)", condition)
    if m:
        what, op, bound = m.groups()
        try:
            have = Version(Version(str(facts.get(what))).base_version)
        except InvalidVersion:
            raise ValueError(
                f"{condition!r}: the {'target' if what == 'version' else 'torch'} version {facts.get(what)!r} is not a version number"
            ) from None
        return have >= Version(bound) if op == ">=" else have < Version(bound)
    if condition.startswith("no-") and condition[3:] in facts:
        return not facts[condition[3:]]
    if condition in facts and condition not in ("torch", "version"):
        return bool(facts[condition])
    raise ValueError(
        f"unknown condition {condition!r}: use one of {', '.join(CONDITIONS)}, torch>=X, torch<X, version>=X, version<X"
    )


def load_xfails(
    path: str | Path, catalogue: Iterable[str], facts: dict[str, Any] | None = None
) -> tuple[list[XfailEntry], int]:
    """Parse an expectations file: (active entries, number of inactive ones); ValueError naming the line for a bad one.

    ``facts`` (default :func:`machine_facts`) decides which ``if=`` entries are active.
    """
    facts = machine_facts() if facts is None else facts
    return _load(Path(path), set(catalogue), facts, ())


def _holds(conditions: tuple[str, ...], facts: dict[str, Any], where: str) -> bool:
    """Whether every ``if=`` condition holds (an entry's or an include's); ValueError naming ``where`` for a bad one."""
    try:
        return all(condition_holds(c, facts) for c in conditions)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _load(path: Path, ids: set[str], facts: dict[str, Any], reading: tuple[Path, ...]) -> tuple[list[XfailEntry], int]:
    """:func:`load_xfails` of one file; ``reading`` the files whose ``include`` lines led here (a cycle is refused)."""
    if path.resolve() in reading:
        chain = " -> ".join(p.name for p in (*reading, path.resolve()))
        raise ValueError(f"{path}: included again while it is being read ({chain})")
    reading = (*reading, path.resolve())
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
            raise ValueError(
                f"{where}: expected 'node-id-prefix-or-contract-id [match=REGEX] [if=COND,...]  # one-line reason', got {raw!r}"
            )
        if tokens[0] == "include":
            if len(tokens) not in (2, 3) or (len(tokens) == 3 and not tokens[2].startswith("if=")):
                raise ValueError(f"{where}: expected 'include FILE [if=COND,...]  # reason', got {raw!r}")
            included = path.parent / tokens[1]
            if not included.is_file():
                raise ValueError(f"{where}: include {tokens[1]!r}: no such file {included}")
            more, more_inactive = _load(included, ids, facts, reading)
            holds = _holds(tuple(tokens[2][3:].split(",")) if len(tokens) == 3 else (), facts, where)
            entries += more if holds else []
            inactive += more_inactive + (0 if holds else len(more))
            continue
        pattern, options = tokens[0], dict.fromkeys(("match", "if", "input"))
        for token in tokens[1:]:
            key, eq, value = token.partition("=")
            if not eq or key not in options or not value or options[key] is not None:
                raise ValueError(
                    f"{where}: {token!r} is not 'match=REGEX', 'if=COND,...' or (fault entries) 'input=CLASS,...' (once each; a regex has no spaces: write \\s)"
                )
            options[key] = value
        if options["input"] is not None and pattern != FAULT:
            raise ValueError(f"{where}: input= is for '{FAULT}' entries only")
        if options["match"] is not None:
            try:
                re.compile(options["match"])
            except re.error as exc:
                raise ValueError(f"{where}: match={options['match']!r} is not a regular expression: {exc}") from None
        elif pattern in ids or pattern == FAULT:
            raise ValueError(
                f"{where}: a {'fault' if pattern == FAULT else 'contract-wide'} entry must say which failure it expects: add match=REGEX (a pattern of its message)"
            )
        conditions = tuple(options["if"].split(",")) if options["if"] else ()
        if not _holds(conditions, facts, where):
            inactive += 1
            continue
        inputs = tuple(options["input"].split(",")) if options["input"] else ()
        entries.append(
            XfailEntry(
                pattern, reason, f"{path.as_posix()}:{lineno}", pattern in ids, options["match"], conditions, inputs
            )
        )
    return entries, inactive


def match_xfails(
    nodeid: str, contract_ids: set[str], entries: list[XfailEntry], printed: str | None = None
) -> list[XfailEntry]:
    """Entries that apply to the test ``nodeid`` (``printed``: pytest's own id of it) exercising ``contract_ids``.

    Fault entries apply to every test: they cover a fault under whichever contract shows it.
    """
    return [
        e
        for e in entries
        if e.is_fault or (e.pattern in contract_ids if e.is_contract else e.matches_test(nodeid, printed))
    ]


def with_violated(
    matched: list[XfailEntry], violations: list[dict[str, Any]], entries: list[XfailEntry]
) -> list[XfailEntry]:
    """``matched`` plus the contract entries of every contract a violation names: a test can violate a
    contract through a helper the static mapping of tests to contracts cannot see."""
    violated = {v["contract"] for v in violations}
    return matched + [e for e in entries if e.is_contract and e.pattern in violated and e not in matched]


def expected_failure(
    matched: list[XfailEntry], violations: list[dict[str, Any]], errors: list[str]
) -> list[XfailEntry]:
    """The entries that cover a failure (empty: it is UNEXPECTED).

    Covered by a node-id entry whose ``match`` finds the whole failure text (a timeout or
    another error too: only a node-id entry can cover a failure that is no violation), or else
    when every violation is covered by a contract entry of its contract, or a fault entry,
    whose ``match`` finds its message.
    """
    text = "\n".join([v["message"] for v in violations] + list(errors))
    by_node = [e for e in matched if e.is_test and e.covers(text)]
    if by_node:
        return by_node
    if not violations:
        return []
    used: list[XfailEntry] = []
    for v in violations:
        hits = [e for e in matched if e.covers_violation(v)]
        if not hits:
            return []
        used += [e for e in hits if e not in used]
    return used


# --------------------------------------------------------------------------- renamed tests

_AREA_OF_OLD_H2D = {
    "test_values": "test_values",
    "test_values_zero_length": "test_values",
    "test_values_pure_copy_bits": "test_values",
    "test_values_large": "test_values",
    "test_values_multi_mb": "test_values",
    "test_values_typed_leaves": "test_values",
    "test_values_autograd_and_default_dtype": "test_values",
    "test_values_dtype_matrix": "test_values",
    "test_values_layouts": "test_values",
    "test_values_product": "test_values",
    "test_values_first_call": "test_values",
    "test_out_dense_table": "test_out",
    "test_out_shape_rejected": "test_out",
    "test_out_shape_table": "test_out",
    "test_no_alias": "test_no_alias",
    "test_bad_input_value_table": "test_bad_input",
    "test_bad_input": "test_bad_input",
    "test_input_untouched": "test_input_untouched",
    "test_input_untouched_table": "test_input_untouched",
    "test_cpu_variant": "test_cpu_path",
    "test_dtype_resolution": "test_dtype",
}

#: Old test-id prefix -> new one, for expectations files written before the suite was laid out by
#: contract area (``tests/test_h2d.py`` split into one file per area, tests named after their
#: properties). An entry using an old id is translated, with a note naming the new id.
RENAMED_TESTS: dict[str, str] = {
    **{f"tests/test_h2d.py::{name}": f"tests/{area}.py::{name}" for name, area in _AREA_OF_OLD_H2D.items()},
    "tests/test_h2d.py::test_values_wide_numpy_sources": "tests/test_values.py::test_values_wide_numpy",
    "tests/test_h2d.py::test_dtype_mismatch_rejected": "tests/test_dtype.py::test_dtype_mismatch",
    "tests/test_h2d.py::test_out_written_exactly": "tests/test_out.py::test_out_written",
    "tests/test_h2d.py::test_no_target_rejected": "tests/test_no_target.py::test_no_target",
    "tests/test_h2d.py::test_no_alias_every_layout": "tests/test_no_alias.py::test_no_alias_layouts",
    "tests/test_h2d.py::test_cpu_path_agrees": "tests/test_cpu_path.py::test_cpu_path",
    "tests/test_buffer.py::test_buffer_numpy_view_rejected": "tests/test_buffer.py::test_buffer_numpy_rejected",
    "tests/test_buffer.py::test_buffer_bad_constructor_args": "tests/test_buffer.py::test_buffer_bad_args",
    "tests/test_buffer.py::test_buffer_roundtrip_bits": "tests/test_buffer.py::test_buffer_roundtrip",
    "tests/test_buffer.py::test_buffer_copy_rows": "tests/test_buffer.py::test_buffer_copy",
    "tests/test_buffer.py::test_buffer_bad_row_counts": "tests/test_buffer.py::test_buffer_bad_rows",
    "tests/test_gpu.py::test_staging_strided_pinned_view": "tests/test_gpu.py::test_staging_strided_pinned",
    "tests/test_gpu.py::test_pinned_input_not_restaged": "tests/test_gpu.py::test_pinned_not_restaged",
    "tests/test_gpu.py::test_buffer_copies_non_blocking": "tests/test_gpu.py::test_buffer_non_blocking",
    "tests/test_gpu.py::test_snapshot_back_to_back": "tests/test_gpu.py::test_back_to_back",
    "tests/test_gpu.py::test_pinned_hazard_documented": "tests/test_gpu.py::test_pinned_hazard",
    "tests/test_gpu.py::test_buffer_hazard_documented": "tests/test_gpu.py::test_buffer_hazard",
    "tests/test_gpu.py::test_stream_current": "tests/test_gpu.py::test_stream",
    "tests/test_gpu.py::test_snapshot_of_converted_pinned_inputs": "tests/test_gpu.py::test_snapshot_converted_pinned",
    "tests/test_reliability.py::test_concurrent_calls[cpu-own-streams]": "tests/test_reliability.py::test_concurrency[cpu]",
    "tests/test_reliability.py::test_concurrent_calls[cuda-own-streams]": "tests/test_reliability.py::test_concurrency[cuda]",
    "tests/test_reliability.py::test_concurrent_calls[cuda-default-stream]": "tests/test_reliability.py::test_concurrency_default_stream[cuda]",
    "tests/test_reliability.py::test_resource_hygiene": "tests/test_reliability.py::test_hygiene",
    "tests/test_regressions.py::test_nan_scalar_warns_nothing": "tests/test_regressions.py::test_nan_scalar",
    "tests/test_h2d_impl_edges.py::": "tests/test_edges.py::",
}


def translate_renamed(entries: list[XfailEntry]) -> tuple[list[XfailEntry], list[str]]:
    """``entries`` with old test ids rewritten to the new ones (:data:`RENAMED_TESTS`, longest prefix first), and a note for each."""
    import dataclasses

    out: list[XfailEntry] = []
    notes: list[str] = []
    olds = sorted(RENAMED_TESTS, key=len, reverse=True)
    for entry in entries:
        if entry.is_contract:
            out.append(entry)
            continue
        old = next((o for o in olds if entry.pattern.startswith(o)), None)
        if old is None:
            if entry.pattern.startswith("tests/test_h2d.py"):
                notes.append(
                    f"{entry.source}: {entry.pattern!r}: tests/test_h2d.py was split into one file per contract area (tests/test_values.py, test_out.py, ...); name the test there"
                )
            out.append(entry)
            continue
        new = RENAMED_TESTS[old] + entry.pattern[len(old) :]
        notes.append(f"{entry.source}: the test id {entry.pattern!r} is now {new!r} (translated; write the new id)")
        out.append(dataclasses.replace(entry, pattern=new))
    return out, notes
