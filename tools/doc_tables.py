"""Tables of docs/ generated from the code, so the documents cannot drift from it.

    python tools/doc_tables.py            # rewrite the tables in place
    python tools/doc_tables.py --check    # exit 1 if a document differs from the code

Each table lives between ``<!-- table:NAME -->`` and ``<!-- /table:NAME -->`` in its
document; the kit's meta-tests run ``--check``.

- ``mutants`` (docs/mutants.md): the catalogue's counts and one row per module;
- ``bad-input-kinds`` (docs/contracts.md): every kind of
  ``strategies.errors.BAD_INPUT_KINDS``, the exception it must raise, and its smallest
  example (Hypothesis's ``find`` over ``strategies.bad_inputs(kinds=[kind])``: the shrunk
  first example, so the row is the same every time).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import torch
from hypothesis import HealthCheck, find, settings

from h2d_contracts.strategies import bad_inputs
from h2d_contracts.strategies.describe import describe_call
from h2d_contracts.strategies.errors import BAD_INPUT_KINDS

ROOT = Path(__file__).resolve().parents[1]


def bad_input_kinds() -> str:
    """The Markdown table of bad-input kinds."""
    rows = ["| kind | must raise | smallest example |", "|---|---|---|"]
    quiet = settings(database=None, max_examples=200, suppress_health_check=list(HealthCheck), derandomize=True)
    for kind in sorted(BAD_INPUT_KINDS):
        example = find(bad_inputs(torch.device("cpu"), kinds=(kind,)), lambda _: True, settings=quiet)
        call, _, note = describe_call(example.data, example.kwargs).partition("  # ")
        call = re.sub(r" at 0x[0-9a-f]+", "", call)  # an object's address differs every run
        note = f" ({note})" if note else ""
        rows.append(f"| `{kind}` | `{example.raises.__name__}` | `{call.replace('|', '/')}`{note.replace('|', '/')} |")
    return "\n".join(rows)


def mutant_catalogue() -> str:
    """The mutant catalogue: the counts by what each needs, then one row per module (contracts, mutants)."""
    from h2d_contracts.contracts.mutants import MUTANTS, NEEDS

    counts = {need: sum(1 for m in MUTANTS.values() if m.needs == need) for need in NEEDS}
    head = f"{len(MUTANTS)} mutants: " + ", ".join(f"{n} `{need}`" for need, n in counts.items() if n) + "."
    modules: dict[str, list] = {}
    for m in MUTANTS.values():
        modules.setdefault(m.factory.__module__.rsplit(".", 1)[-1], []).append(m)
    rows = [head, "", "| module | killed by | mutants |", "|---|---|---|"]
    for module, ms in modules.items():
        killed = ", ".join(dict.fromkeys(c for m in ms for c in m.killed_by))
        names = ", ".join(
            f"`{m.name}`" + (f" ({m.needs})" if m.needs != "cpu" else "") for m in sorted(ms, key=lambda m: m.name)
        )
        rows.append(f"| `{module}` | {killed} | {names} |")
    return "\n".join(rows)


TABLES: dict[str, tuple[str, Callable[[], str]]] = {
    "bad-input-kinds": ("docs/contracts.md", bad_input_kinds),
    "mutants": ("docs/mutants.md", mutant_catalogue),
}


def rewritten(text: str, name: str, table: str) -> str:
    """``text`` with the table ``name`` replaced by ``table``; ValueError if its markers are missing."""
    pattern = re.compile(rf"(<!-- table:{name} -->\n)(?:.*?\n)?(<!-- /table:{name} -->)", re.S)
    if not pattern.search(text):
        raise ValueError(f"no <!-- table:{name} --> ... <!-- /table:{name} --> markers")
    return pattern.sub(lambda m: m.group(1) + table + "\n" + m.group(2), text)


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    stale = []
    for name, (doc, make) in TABLES.items():
        path = ROOT / doc
        text = path.read_text()
        new = rewritten(text, name, make())
        if new != text:
            stale.append(f"{doc}: table {name}")
            if not check:
                path.write_text(new)
    if check and stale:
        print("out of date (run python tools/doc_tables.py): " + "; ".join(stale))
        return 1
    print(("rewritten: " if stale else "up to date: ") + ", ".join(stale or TABLES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
