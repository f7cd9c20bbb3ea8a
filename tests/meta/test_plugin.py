"""Meta-tests of the plugin and of target loading: kit sessions, canonical ids, loading errors, profiles, HypoFuzz."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from h2d_contracts.contracts import load_target

pytestmark = pytest.mark.meta


def test_canonical_id_spells_installed_ids_as_the_checkout_does(tmp_path):
    """Expectation entries name tests as ``tests/...``; every id pytest gives an installed suite maps onto them."""
    import types

    from h2d_contracts import SUITE_DIR
    from h2d_contracts.plugin.outcomes import canonical_id

    module = SUITE_DIR / "test_values.py"
    for nodeid in (
        "test_values.py::test_values[cpu]",  # --pyargs h2d_contracts.tests
        "::test_values[cpu]",  # --pyargs h2d_contracts.tests.test_values
        "../../.venv/lib/python3.11/site-packages/h2d_contracts/tests/test_values.py::test_values[cpu]",
        "tests/test_values.py::test_values[cpu]",  # the checkout
    ):
        item = types.SimpleNamespace(path=module, nodeid=nodeid)
        assert canonical_id(item) == "tests/test_values.py::test_values[cpu]", nodeid
    own = types.SimpleNamespace(path=tmp_path / "tests" / "test_engine.py", nodeid="tests/test_engine.py::test_x")
    assert canonical_id(own) == "tests/test_engine.py::test_x"


def test_plugin_is_active_only_in_kit_sessions(tmp_path, monkeypatch):
    """The plugin acts when a session names a target or runs the kit's suite, and stays inert otherwise."""
    import types

    from h2d_contracts import SUITE_DIR
    from h2d_contracts.plugin.state import _names_kit

    monkeypatch.delenv("H2D_IMPL", raising=False)

    def config(args, impl=None, pyargs=False, cwd=tmp_path):
        return types.SimpleNamespace(
            args=args,
            option=types.SimpleNamespace(pyargs=pyargs),
            invocation_params=types.SimpleNamespace(dir=cwd),
            getoption=lambda name, default=None: impl if name == "--h2d-impl" else default,
        )

    assert not _names_kit(config(["tests"]))  # a user's own tests/ folder
    assert not _names_kit(config(["h2d_contracts_extras.tests"], pyargs=True))
    assert _names_kit(config(["tests"], impl="reference"))
    assert _names_kit(config(["h2d_contracts.tests"], pyargs=True))
    assert _names_kit(config(["h2d_contracts.tests.test_values::test_values"], pyargs=True))
    assert _names_kit(config([str(SUITE_DIR / "test_values.py") + "::test_values"]))
    monkeypatch.setenv("H2D_IMPL", "reference")
    assert _names_kit(config(["tests"]))


def test_run_fresh_returns_the_marked_json_and_names_a_failed_child():
    """The fresh-process plumbing of the hygiene contracts: the child sees the kit, its marked JSON line comes back; no line is an error."""
    from h2d_contracts.contracts.targets import run_fresh

    script = "import sys, h2d_contracts\nprint('noise')\nprint('MARK ' + '{\"arg\": \"' + sys.argv[1] + '\"}')\n"
    assert run_fresh("demo", script, ["x"], "MARK ", timeout_s=60) == {"arg": "x"}
    with pytest.raises(RuntimeError, match=r"^demo: the fresh process \(x\) failed \(exit 3\)"):
        run_fresh("demo", "import sys; sys.exit(3)", ["x"], "MARK ", timeout_s=60)
    with pytest.raises(RuntimeError, match=r"exit 3"):
        run_fresh("demo", "import sys; print('MARK {}'); sys.exit(3)", ["x"], "MARK ", timeout_s=60, exit_zero=True)
    assert run_fresh("demo", "import sys; print('MARK {}'); sys.exit(3)", ["x"], "MARK ", timeout_s=60) == {}


# --------------------------------------------------------------------------- loading errors keep what the user needs


def test_a_factory_that_raises_keeps_its_type_and_traceback(tmp_path, monkeypatch):
    from h2d_contracts.contracts import TargetLoadError

    (tmp_path / "broken_engine_h2d.py").write_text(
        "def target():\n    return helper()\n\ndef helper():\n    raise KeyError('CUDA_VISIBLE_DEVICES')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(TargetLoadError) as info:
        load_target("broken_engine_h2d:target")
    text = str(info.value)
    assert "raised KeyError: 'CUDA_VISIBLE_DEVICES'" in text and "Traceback" in text and "in helper" in text


def test_a_function_that_is_not_a_factory_is_named_so(tmp_path, monkeypatch):
    from h2d_contracts.contracts import TargetLoadError

    (tmp_path / "plain_engine_h2d.py").write_text(
        "def async_tensor_h2d(data, device=None, dtype=None, out=None):\n    return data\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(
        TargetLoadError,
        match=r"expected a factory returning h2d_contracts\.contracts\.Target.*got a function taking \(data, device=None, dtype=None, out=None\).*wrap it",
    ):
        load_target("plain_engine_h2d:async_tensor_h2d")


def test_a_module_that_cannot_be_imported_gets_a_hint_right_for_pytest():
    with pytest.raises(
        ModuleNotFoundError,
        match=r"No module named 'no_such_engine_x'.*PYTHONPATH=\..*python -m pytest.*plain `pytest` does not",
    ):
        load_target("no_such_engine_x.h2d:target")


def test_an_unknown_profile_lists_the_kits_profiles():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--hypothesis-profile",
            "defualt",
            "tests/test_no_target.py",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 4, proc.stdout + proc.stderr
    err = proc.stderr + proc.stdout
    assert (
        "'defualt' is not a registered profile" in err and "default (" in err and "dev (" in err and "fuzz (" in err
    ), err[-2000:]
    assert "INTERNALERROR" not in err


def test_the_kits_profiles_keep_the_chosen_seed_under_ci():
    """With a CI variable set, Hypothesis loads its ``ci`` profile (derandomize=True); the kit's profiles must not
    inherit it: the printed seed would not be the one used, and HypoFuzz would refuse every test."""
    code = (
        "from hypothesis import settings\n"
        "assert settings.get_current_profile_name() == 'ci' and settings.default.derandomize\n"
        "from h2d_contracts.plugin.options import PROFILES, register\n"
        "register()\n"
        "print([settings.get_profile(n).derandomize for n in PROFILES], settings().derandomize)\n"
    )
    env = {**os.environ, "CI": "true"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "[False, False, False] False", proc.stdout


def test_generated_tables_in_the_docs_are_current():
    """docs/ tables generated from the code (tools/doc_tables.py: the bad-input kinds) match the code."""
    proc = subprocess.run(
        [sys.executable, "tools/doc_tables.py", "--check"],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_drawn_property_is_a_hypothesis_test_of_the_suite():
    """Each property that searches with run_given has a test in tests/ made by contract_test, and that test is a
    Hypothesis test (HypoFuzz and --hypothesis-show-statistics see it); tables and state machines stay plain tests."""
    import importlib
    import inspect
    import pathlib

    from hypothesis.internal.detection import is_hypothesis_test

    from h2d_contracts.harness.registry import PROPERTIES
    from h2d_contracts.harness.suite import is_contract_test

    drawn = {p.__name__ for ps in PROPERTIES.values() for p in ps if "run_given(" in inspect.getsource(p)}
    tested = set()
    for path in sorted(pathlib.Path(__file__).resolve().parents[1].glob("test_*.py")):
        module = importlib.import_module(f"h2d_contracts.tests.{path.stem}")
        for name, obj in vars(module).items():
            if name.startswith("test_") and is_contract_test(obj):
                assert is_hypothesis_test(obj), name
                assert name == "test_" + obj.h2d_property.__name__.removeprefix("prop_"), name
                tested.add(obj.h2d_property.__name__)
    assert drawn and drawn == tested, (sorted(drawn - tested), sorted(tested - drawn))


def test_hypofuzz_workarounds_only_inside_a_hypofuzz_worker(monkeypatch):
    """The plugin's HypoFuzz workarounds patch nothing outside a HypoFuzz worker (no ``hypofuzz.hypofuzz`` module)."""
    import sys

    from h2d_contracts.plugin import hypofuzz_compat

    monkeypatch.delitem(sys.modules, "hypofuzz.hypofuzz", raising=False)
    assert hypofuzz_compat.apply() is False
    assert "25.11.1" in hypofuzz_compat.AFFECTED


def test_entering_a_calling_context_the_first_time_is_not_the_targets_side_effect():
    """Each calling context is judged from a fresh process, as an xdist worker meets it first: the first
    ``torch.use_deterministic_algorithms(True)`` imports sympy, which adds a warnings filter; the kit warms each
    context before its snapshot, so the side-effects contract judges the reference clean in every one (CI's SGLang
    run failed the other way once)."""
    code = (
        "import sys\n"
        "from h2d_contracts.contracts import load_target\n"
        "from h2d_contracts.contracts.side_effects import check_side_effects\n"
        "from h2d_contracts.harness.contexts import CONTEXTS, calling_context\n"
        "target = load_target('reference')\n"
        "assert 'sympy' not in sys.modules, 'the check needs a process where sympy is not imported yet'\n"
        "for name in CONTEXTS:\n"
        "    with calling_context(name):\n"
        "        check_side_effects(target, [1, 2], {'device': 'cpu'})\n"
        "print('clean')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "clean", proc.stdout
