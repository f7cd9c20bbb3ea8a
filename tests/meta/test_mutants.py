"""Meta-tests: every mutant is rejected by the contracts, and every contract rejects some mutant.

A mutant that survives is a failed test. CPU mutants run everywhere; GPU mutants need
CUDA and are run on the H200 (docs/records/). The hunt uses the very properties the
suite runs (``harness.registry.PROPERTIES``) with more examples and no example
database, so a kill here is a kill by the suite.
"""

from __future__ import annotations

import os

import pytest
import torch
from hypothesis import Phase

from h2d_contracts.contracts import CATALOGUE, ContractViolation, NotApplicable
from h2d_contracts.contracts.mutants import MUTANTS
from h2d_contracts.harness.registry import PROPERTIES

pytestmark = pytest.mark.meta

#: Examples per property when hunting a mutant (CPU properties are cheap; GPU ones are capped).
HUNT_EXAMPLES = {"cpu": 300, "no-pinning": 300, "cuda": 25, "2gpu": 15}
#: Contracts whose properties cost milliseconds per example on a GPU too (no busy stream, no
#: profiler, no fresh process): a GPU mutant hunted by them gets the CPU budget. At 25
#: examples the bad-input property, which draws one of 59 kinds per example, reached the
#: kind that kills ``device_index_bound_off_by_one`` about one hunt in three: it survived the
#: hunt on the H200 (docs/records/).
CHEAP_ON_GPU = frozenset({"bad-input", "values", "out", "dtype", "target", "no-alias", "input-untouched"})
#: A hunt only has to find a falsifying example, not shrink it (shrinking a timing
#: failure replays 100 ms busy periods for minutes): generate phase only.
HUNT_PHASES = (Phase.explicit, Phase.generate)


def _violation_in(exc: BaseException) -> ContractViolation | None:
    if isinstance(exc, ContractViolation):
        return exc
    for inner in getattr(exc, "exceptions", ()):  # Hypothesis reports several distinct bugs as an ExceptionGroup
        found = _violation_in(inner)
        if found is not None:
            return found
    return None


def hunt(mutant, device: torch.device, not_applicable: list[str] | None = None) -> tuple[str, ContractViolation] | None:
    """Run the mutant's killer contracts' properties; return (property name, violation) or None if it survived.
    Each property that was not applicable adds its reason to ``not_applicable`` (the survivor's message)."""
    targets = mutant.factory().entry_points()  # every entry point, as the suite runs them (tests/test_cpu_path.py)
    for contract in mutant.killed_by:
        props = [p for p in PROPERTIES[contract] if not mutant.by or p.__name__ in mutant.by]
        for prop in props:  # cheap properties first (each area registers its costliest last)
            for target in targets:
                try:
                    examples = HUNT_EXAMPLES["cpu" if contract in CHEAP_ON_GPU else mutant.needs]
                    prop(target, device, max_examples=examples, database=None, phases=HUNT_PHASES, max_kinds=1)
                except NotApplicable as exc:
                    if not_applicable is not None:
                        not_applicable.append(f"{prop.__name__} on {target.name}: {str(exc).splitlines()[0][:300]}")
                    continue
                except BaseException as exc:  # inspect what the property raised
                    violation = _violation_in(exc)
                    if violation is None:
                        raise
                    return prop.__name__ + (
                        " (CPU variant)" if target.name.endswith("[cpu-variant]") else ""
                    ), violation
    return None


def _device_for(needs: str) -> torch.device:
    if needs == "cpu":
        return torch.device("cpu")
    if needs == "no-pinning":
        from h2d_contracts.strategies import pinning_available

        if pinning_available():
            pytest.skip(
                "the bug only exists on a host without pinned memory (this one has it: the mutant behaves correctly here)"
            )
        return torch.device("cpu")
    if not torch.cuda.is_available():
        pytest.skip("GPU mutant: needs CUDA; its kill is recorded from the H200 run (docs/records/)")
    if needs == "2gpu" and torch.cuda.device_count() < 2:
        pytest.skip(f"needs 2 CUDA devices, this machine has {torch.cuda.device_count()}")
    return torch.device("cuda", torch.cuda.current_device())


def _hunt_in_a_fresh_process(name: str, device: torch.device) -> tuple[str, str] | None:
    """:func:`hunt` in a fresh interpreter: a mutant whose bug is a process-wide change (the side-effects contract)
    leaves the process changed (its default dtype, grad mode...), which the tests after it would inherit."""
    import json
    import subprocess
    import sys

    code = (
        "import json, torch\n"
        "from tests.meta.test_mutants import hunt\n"
        "from h2d_contracts.contracts.mutants import MUTANTS\n"
        f"found = hunt(MUTANTS[{name!r}], torch.device({str(device)!r}))\n"
        "print('H2D-HUNT ' + json.dumps(None if found is None else [found[0], str(found[1])]))\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=600)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("H2D-HUNT ")), None)
    assert line is not None, proc.stdout[-2000:] + proc.stderr[-3000:]
    found = json.loads(line.removeprefix("H2D-HUNT "))
    return None if found is None else (found[0], found[1])


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_killed(name: str) -> None:
    mutant = MUTANTS[name]
    device = _device_for(mutant.needs)
    if "side-effects" in mutant.killed_by:
        found_text = _hunt_in_a_fresh_process(name, device)
        assert found_text is not None, f"mutant {name!r} ({mutant.doc}) survived contracts {mutant.killed_by}"
        prop, line = found_text[0], found_text[1].splitlines()[0]
        print(f"KILLED {name}: by {prop} -> {line}")
        return
    not_applicable: list[str] = []
    found = hunt(mutant, device, not_applicable)
    assert found is not None, f"mutant {name!r} ({mutant.doc}) survived contracts {mutant.killed_by}" + "".join(
        f"; not applicable: {why}" for why in not_applicable
    )
    prop, violation = found
    line = str(violation).splitlines()[0]
    print(f"KILLED {name}: by {prop} -> {line}")
    table = os.environ.get("H2D_KILL_TABLE")  # a record for README's kill table (one line per mutant)
    if table:
        with open(table, "a") as fh:
            fh.write(f"| `{name}` | {mutant.needs} | {mutant.doc} | `{prop}` | {line.replace('|', '/')[:160]} |\n")


def test_every_named_killer_is_a_property_of_its_contracts() -> None:
    """A mutant's ``by`` names properties of its ``killed_by`` contracts (a typo would hunt with nothing and fail unclearly)."""
    for m in MUTANTS.values():
        names = {p.__name__ for c in m.killed_by for p in PROPERTIES[c]}
        assert set(m.by) <= names, (
            f"mutant {m.name!r}: by={m.by} names properties outside {m.killed_by}: {sorted(set(m.by) - names)}"
        )


def test_every_contract_has_a_mutant() -> None:
    covered = {c for m in MUTANTS.values() for c in m.killed_by}
    missing = [c for c in CATALOGUE if c not in covered]
    assert not missing, f"contracts never shown failing on a mutant: {missing}"


def test_reference_is_not_a_mutant() -> None:
    """The hunt itself is sound: on the reference it finds nothing (same properties, same budget).

    Deterministic tables (``@prop(..., table=True)``) run the same rows at any budget: the
    contract suite runs them against the reference already.
    """
    from h2d_contracts.contracts import load_target

    for ref in load_target("reference").entry_points():
        for contract in (
            "out",
            "dtype",
            "bad-input",
            "input-untouched",
            "buffer",
            "cpu-path",
            "no-alias",
            "values",
            "target",
            "sequence",
        ):
            for prop in PROPERTIES[contract]:
                if getattr(prop, "table", False):
                    continue
                try:
                    prop(ref, torch.device("cpu"), max_examples=60, database=None)
                except NotApplicable:
                    continue


def test_a_survivor_names_why_each_property_was_not_applicable(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hunt that found nothing lists each property that gave up and its reason: a mutant that survived a loaded GPU
    because every row of its check was not applicable (``prop_idle_stream_never_waits`` at d9e3fd5) then says so,
    instead of only "no check raised it"."""
    from types import SimpleNamespace

    def prop_gives_up(target, device, **kwargs) -> None:
        raise NotApplicable("non-blocking: 86 calls outlasted the work\nsecond line")

    target = SimpleNamespace(name="fake-target")
    mutant = SimpleNamespace(
        killed_by=("fake-contract",), by=(), needs="cpu", factory=lambda: SimpleNamespace(entry_points=lambda: [target])
    )
    monkeypatch.setitem(PROPERTIES, "fake-contract", [prop_gives_up])
    reasons: list[str] = []
    assert hunt(mutant, torch.device("cpu"), reasons) is None
    assert reasons == ["prop_gives_up on fake-target: non-blocking: 86 calls outlasted the work"]
