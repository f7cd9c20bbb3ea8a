"""Meta-tests of downstream targets: adapters, source loading, expectations files, the conformance report.

The xfail/report tests run pytest in a subprocess on a small slice of the suite against
a mutant whose failure is known, with expectations files written here, and check the
exit status and the report: each of them fails if the machinery stops doing its job.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from h2d_contracts.contracts import CATALOGUE, ContractViolation, NotApplicable, load_target
from h2d_contracts.contracts import buffer as B
from h2d_contracts.contracts import out as O
from h2d_contracts.contracts.no_target import check_no_target_rejected
from h2d_contracts.contracts.targets import torch_pin_memory_available
from h2d_contracts.contracts.targets.adapters import adapt_device_dtype, adapt_pin_memory
from h2d_contracts.contracts.targets.source import free_globals, load_definitions
from h2d_contracts.contracts.values import check_values
from h2d_contracts.plugin import expectations as R
from h2d_contracts.plugin import report as Rep

pytestmark = pytest.mark.meta

ROOT = Path(__file__).resolve().parents[2]
CPU = torch.device("cpu")


# --------------------------------------------------------------------------- adapters for the old signatures


def _device_dtype_fn(data, device, dtype=None):
    """vLLM 0.27's shape, PIN_MEMORY False."""
    if isinstance(data, np.ndarray):
        data = torch.from_numpy(data)
    t = data if isinstance(data, torch.Tensor) else torch.tensor(data, dtype=dtype, device="cpu")
    return t.to(device=device, dtype=dtype, non_blocking=True)


def _pin_memory_fn(data, dtype, target_device, pin_memory):
    """vLLM 0.20's shape."""
    return torch.tensor(data, dtype=dtype, pin_memory=pin_memory, device="cpu").to(
        device=target_device, non_blocking=True
    )


def test_device_dtype_adapter_passes_values_and_declares_no_out():
    target = adapt_device_dtype(_device_dtype_fn, name="fork-027")
    assert "out" not in target.capabilities and "buffer" not in target.capabilities
    check_values(target, [[1, 2], [3, 4]], {"device": CPU, "dtype": torch.int16})
    check_no_target_rejected(target, [1, 2])  # Python's own TypeError: device is a required argument
    with pytest.raises(NotApplicable):
        O.prop_out_written(target, CPU)
    with pytest.raises(NotApplicable):
        B.prop_buffer_init(target, CPU)


def test_pin_memory_adapter_maps_the_protocol_to_the_functions_own_names():
    """``(data, dtype, target_device, pin_memory)``: dtype and device required (Target.requires), passed by the function's names."""
    seen = []

    def fn(data, dtype, target_device, pin_memory):
        seen.append((dtype, target_device, pin_memory))
        return _pin_memory_fn(data, dtype, target_device, pin_memory)

    target = adapt_pin_memory(fn, name="fork-020", pin_memory=False)
    assert target.requires == {"dtype", "device"} and target.arg_names == {"device": "target_device"}
    check_values(target, [1.5, 2.5], {"device": CPU})  # a valid call completed with the dtype it resolves to
    assert seen[-1] == (torch.float32, CPU, False)
    with pytest.raises(TypeError, match="target_device"):  # Python's own message for the missing positional
        target.call([1], {})
    check_no_target_rejected(target, [1])  # and it names the function's own argument: a clear refusal
    assert not target.pin_memory_available()


def test_adapter_finds_a_real_bug_in_the_old_shape():
    """The 0.27 shape's ``t.to('cpu')`` returns its input on the host: a stand-in for a device copy (host_copy=False), not
    judged there; the CPU-platform variant of a target (host_copy=True) is."""
    from h2d_contracts.contracts.no_alias import check_no_alias

    target = adapt_device_dtype(_device_dtype_fn, name="fork-027")
    assert not target.host_copy
    with pytest.raises(NotApplicable, match="host_copy=False"):
        check_no_alias(target, torch.arange(4), {"device": CPU})
    strict = adapt_device_dtype(_device_dtype_fn, name="fork-027-strict")
    import dataclasses

    with pytest.raises(ContractViolation, match=r"^\[no-alias\]"):
        check_no_alias(dataclasses.replace(strict, host_copy=True), torch.arange(4), {"device": CPU})


# --------------------------------------------------------------------------- loading from source


def test_load_definitions_takes_only_the_named_code(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text(
        textwrap.dedent(
            """
            import sys
            SIDE_EFFECT = sys.modules.setdefault("h2d_side_effect", object())

            def f(x: "int") -> int:
                return x + K

            class C:
                def g(self):
                    return torch.zeros(1)
            """
        )
    )
    loaded = load_definitions(src, ["f", "C"], {"K": 2, "torch": torch}, "fake.mod")
    assert loaded["f"](1) == 3 and loaded["C"]().g().shape == (1,)
    assert loaded["C"].__module__ == "fake.mod"
    assert "h2d_side_effect" not in sys.modules  # module-level code did not run
    with pytest.raises(NameError, match="K"):
        load_definitions(src, ["f"], {}, "fake.mod")
    with pytest.raises(LookupError, match="nope"):
        load_definitions(src, ["nope"], {}, "fake.mod")


def test_load_definitions_reads_named_local_imports_from_the_namespace(tmp_path):
    """A function-local ``from M import x`` of a listed module reads ``x`` from the namespace, never importing M."""
    src = tmp_path / "mod.py"
    src.write_text(
        "class C:\n"
        "    def __init__(self):\n"
        "        from h2d_no_such_module.platforms import current_platform\n"
        "        import json\n"
        "        self.kind = current_platform.device_type + json.dumps(1)\n"
    )
    platform = type("P", (), {"device_type": "cpu"})
    with pytest.raises(ModuleNotFoundError):  # unlisted: the import runs as written
        load_definitions(src, ["C"], {}, "fake.mod")["C"]()
    with pytest.raises(NameError, match="current_platform"):  # listed: the namespace must supply it
        load_definitions(src, ["C"], {}, "fake.mod", local_imports=frozenset({"h2d_no_such_module.platforms"}))
    loaded = load_definitions(
        src,
        ["C"],
        {"current_platform": platform},
        "fake.mod",
        local_imports=frozenset({"h2d_no_such_module.platforms"}),
    )
    assert loaded["C"]().kind == "cpu1"


def test_free_globals_ignores_locals_and_builtins():
    import ast

    tree = ast.parse("def f(a):\n    b = len(a)\n    for i in range(b):\n        c = np.x(i)\n    return torch.y(c)\n")
    assert free_globals(tree.body) == {"np", "torch"}


# --------------------------------------------------------------------------- contract ids of tests, expectations files


def test_contract_ids_of_suite_functions():
    from h2d_contracts.tests import test_bad_input, test_buffer, test_edges, test_values

    assert Rep.contracts_of_function(test_values.test_values) == {"values"}
    assert Rep.contracts_of_function(test_bad_input.test_bad_input) == {"bad-input"}
    assert Rep.contracts_of_function(test_buffer.test_buffer_state_machine) == {"buffer"}
    assert Rep.contracts_of_function(test_edges.test_float8_into_integer_dtype) == {
        "values",
        "bad-input",
    }  # by the checks it calls
    assert Rep.contracts_of_function(lambda: None, ["stream"]) == {"stream"}


def test_load_xfails_requires_a_reason_and_a_match_for_contract_entries(tmp_path):
    good = tmp_path / "t.txt"
    good.write_text(
        "# comment\n\nvalues  match=byte\\sorder  # why\ntests/test_no_alias.py::test_no_alias  # because\n"
        "staging  if=cuda  match=Pageable  # GPU only\ntests/test_x.py::test_y  if=torch<1.0  # old torch\n"
    )
    entries, inactive = R.load_xfails(
        good, CATALOGUE, facts={"cuda": False, "pinned": False, "multi-gpu": False, "torch": "2.13.0+cpu"}
    )
    assert [(e.pattern, e.is_contract, e.reason, e.match) for e in entries] == [
        ("values", True, "why", r"byte\sorder"),
        ("tests/test_no_alias.py::test_no_alias", False, "because", None),
    ]
    assert inactive == 2
    entries, inactive = R.load_xfails(
        good, CATALOGUE, facts={"cuda": True, "pinned": True, "multi-gpu": True, "torch": "2.11.0+cu130"}
    )
    assert [e.pattern for e in entries] == [
        "values",
        "tests/test_no_alias.py::test_no_alias",
        "staging",
    ] and inactive == 1
    for text, where in [
        ("values\n", "b.txt:1"),
        ("values  # a contract entry without match=\n", "add match=REGEX"),
        ("values  match=(  # bad regex\n", "not a regular expression"),
        ("values  match=x  if=gpu  # unknown condition\n", "unknown condition 'gpu'"),
        ("values  match=x  extra  # stray token\n", "is not 'match=REGEX'"),
    ]:
        bad = tmp_path / "b.txt"
        bad.write_text(text)
        with pytest.raises(ValueError, match=re.escape(where)):
            R.load_xfails(bad, CATALOGUE, facts={"cuda": False, "pinned": False, "multi-gpu": False, "torch": "2.13.0"})


def test_match_and_expected_failure_rules():
    node = R.XfailEntry("tests/test_values.py::test_values", "r", "f:1", False)
    cid = R.XfailEntry("out", "r", "f:2", True, match=r"no\sexception")
    picky = R.XfailEntry("tests/test_values.py::test_values", "r", "f:3", False, match="RuntimeError")
    out_v = {
        "contract": "out",
        "message": "[out] out.shape=(4,) vs data shape (1,): no exception: got a result, expected ValueError",
    }
    out_new = {"contract": "out", "message": "[out] out was written by a failing call"}
    values_v = {"contract": "values", "message": "[values] result values differ"}
    assert R.match_xfails("tests/test_values.py::test_values[cpu]", {"values"}, [node, cid]) == [node]
    assert R.match_xfails("tests/test_out.py::test_out_written[cpu]", {"out"}, [node, cid]) == [cid]
    assert R.expected_failure([node], [], ["AssertionError"]) == [
        node
    ]  # a node-id entry without match covers any failure
    assert R.expected_failure([picky], [], ["AssertionError"]) == []  # ...with match only the failure it names
    assert R.expected_failure([picky], [], ["RuntimeError: boom"]) == [picky]
    assert R.expected_failure([cid], [out_v], []) == [cid]
    assert R.expected_failure([cid], [out_new], []) == []  # a new kind of failure of a listed contract: UNEXPECTED
    assert R.expected_failure([cid], [out_v, values_v], []) == []  # another contract broke too
    assert R.expected_failure([cid], [], ["TypeError"]) == []  # not a contract violation at all
    fault = R.XfailEntry("fault", "r", "f:4", False, match=r"no\sexception", inputs=("list",))
    assert R.match_xfails("tests/test_values.py::test_values[cpu]", {"values"}, [fault]) == [fault]
    assert R.expected_failure([fault], [{**out_v, "input_class": "list+out"}], []) == [fault]
    assert R.expected_failure([fault], [{**out_v, "input_class": "tensor+out"}], []) == []  # another input class
    assert R.expected_failure([fault], [], ["TimeoutError"]) == []  # a fault entry covers violations only
    assert R.match_xfails(
        "tests/test_values.py::test_values[cpu]",
        set(),
        [node.__class__("test_values.py::test_values", "r", "f:5", False)],
    )
    assert R.condition_holds("torch>=2.12", {"torch": "2.13.0+cpu"}) and not R.condition_holds(
        "torch<2.12", {"torch": "2.13.0+cpu"}
    )
    assert R.condition_holds("no-pinned", {"pinned": False}) and not R.condition_holds("cuda", {"cuda": False})


# --------------------------------------------------------------------------- end to end: strictness, warnings, report


class _Run(subprocess.CompletedProcess):
    tmp: Path


def _pytest(
    *args: str,
    impl: str,
    xfails: str | None = None,
    report: str | None = None,
    workers: int | None = None,
    verify: bool = False,
) -> _Run:
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="h2d-meta-"))
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "--hypothesis-profile",
        "dev",
        "--h2d-impl",
        impl,
        f"--h2d-verify={'on' if verify else 'off'}",
        *args,
    ]
    if xfails == "none":
        cmd += ["--h2d-xfails", "none"]
    elif xfails is not None:
        (tmp / "x.txt").write_text(xfails)
        cmd += ["--h2d-xfails", str(tmp / "x.txt")]
    if report:
        cmd += ["--h2d-report", str(tmp / report)]
    if workers:
        cmd += ["-n", str(workers)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    run = _Run(proc.args, proc.returncode, proc.stdout + proc.stderr, proc.stderr)
    run.tmp = tmp
    return run


MUTANT = "h2d_contracts.contracts.mutants:broadcast_into_out"
OUT_SHAPE = "tests/test_out.py::test_out_shape_rejected"
BAD_BROADCAST = "tests/test_bad_input.py::test_bad_input[cpu-broadcastable-out]"


def test_node_and_contract_entries_turn_failures_into_xfails():
    """The mutant fails both tests (see the next test); listed, one by node id and one by contract id, they are xfailed."""
    proc = _pytest(
        f"{OUT_SHAPE}[cpu]",
        BAD_BROADCAST,
        impl=MUTANT,
        xfails=f"{OUT_SHAPE}[cpu]  # broadcasts\nbad-input  match=no\\sexception:\\sgot\\sa\\sresult  # broadcasts too\n",
    )
    assert proc.returncode == 0, proc.stdout
    assert "2 xfailed" in proc.stdout


def test_unlisted_failure_fails_and_the_report_has_its_reproduction():
    """An entry for another contract covers nothing: both failures stay failures; the report (under xdist) has the shrunk call."""
    proc = _pytest(
        f"{OUT_SHAPE}[cpu]", BAD_BROADCAST, impl=MUTANT, xfails="values  match=.  # unrelated\n", report="m", workers=2
    )
    assert proc.returncode == 1, proc.stdout
    assert "2 failed" in proc.stdout
    data = json.loads((proc.tmp / "m.json").read_text())
    assert data["contracts"]["out"]["outcome"] == "fail" and data["contracts"]["bad-input"]["outcome"] == "fail"
    failure = data["tests"][f"{OUT_SHAPE}[cpu]"]
    assert failure["status"] == "failed"
    assert "call: async_tensor_h2d(" in "\n".join(v["message"] for v in failure["violations"])
    assert any("Draw" in n for v in failure["violations"] for n in v["notes"])  # Hypothesis's shrunk draws
    assert "call: async_tensor_h2d(" in (proc.tmp / "m.md").read_text()


def test_a_new_kind_of_failure_in_a_listed_contract_is_unexpected():
    """A contract entry whose match= names another failure does not hide this one; an entry whose if= fails is inactive."""
    proc = _pytest(
        BAD_BROADCAST,
        impl=MUTANT,
        xfails="bad-input  match=RuntimeError  # expects another kind\nbad-input  if=cuda,no-cuda  match=.  # never active\n",
        report="m",
    )
    assert proc.returncode == 1, proc.stdout
    assert "1 failed" in proc.stdout and "UNEXPECTED: no entry's match= covers this failure" in proc.stdout
    data = json.loads((proc.tmp / "m.json").read_text())
    assert data["tests"][BAD_BROADCAST]["status"] == "failed"
    assert "UNEXPECTED" in (proc.tmp / "m.md").read_text()


def test_an_entry_not_witnessed_while_its_contract_fails_as_expected_is_a_note():
    """Contract-level strictness: a second entry of a failing contract that saw no failure this run is listed, not a failure."""
    proc = _pytest(
        BAD_BROADCAST,
        impl=MUTANT,
        xfails="bad-input  match=no\\sexception:\\sgot\\sa\\sresult  # broadcasts\nbad-input  match=NeverSeenKind  # another kind, not hit\n",
        report="m",
    )
    assert proc.returncode == 0, proc.stdout
    assert "1 xfailed" in proc.stdout
    assert "expected failure not witnessed this run" in proc.stdout and "NeverSeenKind" in proc.stdout
    data = json.loads((proc.tmp / "m.json").read_text())
    assert [u.split(": ", 1)[1] for u in data["unwitnessed_xfails"]] == ["bad-input match=NeverSeenKind"] and data[
        "xpassed_contracts"
    ] == []


def test_a_fault_entry_covers_its_fault_under_any_contract_and_an_unseen_one_fails_the_run():
    """A ``fault`` entry names a fault by what it is (its message, optionally its input class), so it covers the fault
    under whichever contract's draw meets it; one of another input class covers nothing; a fault no test showed is an
    [XPASS(strict)]."""
    broadcast = (
        "fault  match=(no\\sexception:\\sgot\\sa\\sresult|wrong\\sexception\\stype)"
        "  # out.copy_ broadcasts or torch refuses the shape, met by out and bad-input alike\n"
    )
    proc = _pytest(f"{OUT_SHAPE}[cpu]", BAD_BROADCAST, impl=MUTANT, xfails=broadcast, report="m")
    assert proc.returncode == 0, proc.stdout
    assert "2 xfailed" in proc.stdout
    data = json.loads((proc.tmp / "m.json").read_text())
    assert {data["tests"][t]["status"] for t in (f"{OUT_SHAPE}[cpu]", BAD_BROADCAST)} == {"xfailed"}
    other = broadcast.replace(")  #", ")  input=tensor  #")
    proc = _pytest(BAD_BROADCAST, impl=MUTANT, xfails=other + "fault  match=NeverSeenFault  # listed, never shown\n")
    assert proc.returncode == 1, proc.stdout
    assert "1 failed" in proc.stdout and "UNEXPECTED" in proc.stdout
    # one test of the suite was selected: a fault it never met is a note here; a run of the whole suite fails on it
    assert "NeverSeenFault (a fault; this run selected part of the suite)" in proc.stdout


def test_a_fault_entry_is_strict_in_a_run_of_the_whole_suite():
    """Which runs hold a fault entry strictly: the whole suite, not one narrowed by -k, -m or a test path."""
    from types import SimpleNamespace

    from h2d_contracts import SUITE_DIR
    from h2d_contracts.plugin.verdict import _whole_suite

    def config(args, keyword="", markexpr=""):
        options = {"keyword": keyword, "markexpr": markexpr}
        return SimpleNamespace(
            args=args,
            getoption=lambda name, default=None: options.get(name, default),
            invocation_params=SimpleNamespace(dir=ROOT),
        )

    assert _whole_suite(config(["tests"])) and _whole_suite(config([str(SUITE_DIR)]))
    assert not _whole_suite(config(["tests"], keyword="cuda"))
    assert not _whole_suite(config(["tests"], markexpr="not gpu"))
    assert not _whole_suite(config(["tests/test_values.py"]))
    assert not _whole_suite(config(["tests/test_values.py::test_values"]))


def test_a_test_entry_covers_a_timeout_and_matches_the_id_pytest_prints(tmp_path):
    """A node-id entry covers a test that ran past --timeout (a contract entry never does: a timeout is no violation); an
    entry spelled as pytest prints an installed suite's ids (no ``tests/``) names the same test."""
    test = "tests/test_values.py::test_values[cpu]"
    proc = _pytest(
        test,
        "--timeout=3",
        "-p",
        "no:xdist",
        impl="tests.meta._runner_targets:sleeps",
        xfails="test_values.py::test_values[cpu]  match=ran\\spast\\sits  # every call of this target sleeps\n",
        report="m",
    )
    assert proc.returncode == 0, proc.stdout
    assert "1 xfailed" in proc.stdout
    proc = _pytest(
        test,
        "--timeout=3",
        "-p",
        "no:xdist",
        impl="tests.meta._runner_targets:sleeps",
        xfails="values  match=.  # a contract entry\n",
    )
    assert proc.returncode == 1 and "1 failed" in proc.stdout, proc.stdout


def test_unexpected_passes_fail_the_run_and_stale_entries_warn():
    proc = _pytest(
        "tests/test_no_target.py::test_no_target[cpu]",
        "tests/test_values.py::test_values[cpu]",
        impl="reference",
        xfails="tests/test_no_target.py::test_no_target  # wrongly listed\nvalues  match=.  # wrongly listed\ntests/test_nothing.py::test_gone  # stale\n",
    )
    assert proc.returncode == 1, proc.stdout
    assert "[XPASS(strict)] listed as an expected failure but passed" in proc.stdout  # the node-id entry
    assert (
        "[XPASS(strict)] contract or fault listed as an expected failure but no test failed by it" in proc.stdout
    )  # the contract entry
    assert "matched no collected test" in proc.stdout and "test_gone" in proc.stdout


def test_user_adapter_by_module_factory_report_under_xdist():
    """``--h2d-impl examples.fork_adapter:target`` in a real run with -n 2: pass, fail and not applicable in the report."""
    proc = _pytest(
        "tests/test_values.py::test_values[cpu]",
        "tests/test_no_target.py::test_no_target[cpu]",
        "tests/test_out.py::test_out_written[cpu]",
        "tests/test_cpu_path.py::test_cpu_path",
        "tests/test_buffer.py::test_buffer_init[cpu]",
        impl="examples.fork_adapter:target",
        xfails="none",
        report="r",
        workers=2,
    )
    data = json.loads((proc.tmp / "r.json").read_text())
    md = (proc.tmp / "r.md").read_text()
    assert data["target"] == "example-fork" and data["torch"] == torch.__version__ and data["machine"]
    c = data["contracts"]
    # the example passes device=None through, so "neither device nor out" returns a host tensor: a real failure
    assert c["target"]["outcome"] == "fail", c["target"]
    assert (
        c["out"]["outcome"] == "not applicable"
        and c["cpu-path"]["outcome"] == "not applicable"
        and c["buffer"]["outcome"] == "not applicable"
    )
    assert "| target | fail |" in md and "| out | not applicable |" in md
    assert c["values"]["outcome"] in ("pass", "fail")  # byte-swapped arrays may or may not be drawn in 10 examples


# --------------------------------------------------------------------------- the vllm targets (only where vllm is installed)


def test_vllm_target_loads_and_declares_what_it_has():
    """The installed vLLM's helper, found by reading its files: the family, the domain and the pin flag from inspection."""
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        pytest.skip("vllm not installed (docs/targets.md: pip install --no-deps vllm)")
    from h2d_contracts.contracts.targets.vllm import locate

    found = locate()
    target = load_target("vllm")
    assert target.name == found.family and target.version == found.version
    assert target.pin_memory_available() == torch_pin_memory_available()
    if found.family == "vllm":
        assert (
            {"out", "cuda"} <= target.capabilities
            and target.inputs == {"list", "ndarray", "tensor"}
            and not target.requires
        )
    check_values(target, [[1, 2], [3, 4]], {"device": CPU})


def test_vllm_buffer_utils_are_loaded_from_source_with_what_the_kit_supplies(tmp_path, monkeypatch):
    """A release with Model Runner V2's buffer_utils gets capability buffer-utils, its classes run from its source."""
    pkg = tmp_path / "vllm"
    (pkg / "utils").mkdir(parents=True)
    (pkg / "v1" / "worker" / "gpu").mkdir(parents=True)
    for d in (pkg, pkg / "utils", pkg / "v1", pkg / "v1" / "worker", pkg / "v1" / "worker" / "gpu"):
        (d / "__init__.py").write_text("")
    (pkg / "utils" / "torch_utils.py").write_text(
        "def async_tensor_h2d(data: list | np.ndarray | torch.Tensor, device=None, dtype=None, out=None):\n"
        "    return torch.as_tensor(data, dtype=dtype).to(device)\n"
    )
    (pkg / "v1" / "worker" / "gpu" / "buffer_utils.py").write_text(
        "from vllm.platforms import current_platform\n"  # module level: never executed by the loader
        "class NonUvaBuffer:\n"
        "    def __init__(self, size, dtype):\n"
        "        from vllm.platforms import current_platform\n"
        "        self.cpu = torch.zeros(size, dtype=dtype)\n"
        "        self._uva = torch.zeros(size, dtype=dtype, device=current_platform.device_type)\n"
        "    def uva(self, n=None):\n"
        "        return self._uva[:n].copy_(self.cpu[:n])\n"
        "class UvaBuffer(NonUvaBuffer):\n"
        "    pass\n"
        "class UvaBufferPool:\n"
        "    def __init__(self, size, dtype, max_concurrency=None):\n"
        "        self.buf = (UvaBuffer if is_uva_available() else NonUvaBuffer)(size, dtype)\n"
        "class UvaBackedTensor:\n"
        "    pass\n"
        "class StagedWriteTensor:\n"
        "    def apply_write(self):\n"
        "        _apply_write_kernel[(1,)](_num_write_chunks(1))\n"
        "class FusedStagedWriter:\n"
        "    pass\n"
        "def _num_write_chunks(n):\n"
        "    return triton.cdiv(n, _WRITE_BLOCK_SIZE)\n"
        "@triton.jit\n"
        "def _apply_write_kernel(x):\n"
        "    pass\n"
        "@triton.jit\n"
        "def _load_ptr(x):\n"
        "    return tl.load(x)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    target = load_target("vllm")
    assert "buffer-utils" in target.capabilities and "buffer_utils.py (source-loaded)" in target.notes
    pool = target.buffer_utils.UvaBufferPool(4, torch.int32)
    assert type(pool.buf).__name__ == ("UvaBuffer" if torch.cuda.is_available() else "NonUvaBuffer")
    assert pool.buf.uva(2).shape == (2,)
    staged = target.buffer_utils.StagedWriteTensor
    has_triton = importlib.util.find_spec("triton") is not None
    assert (staged is not None) == has_triton
    assert ("triton not installed" in target.notes) == (not has_triton)


def test_a_vllm_family_name_refuses_another_family(tmp_path, monkeypatch):
    """``--h2d-impl vllm-pin-memory`` on a release of another signature says which name fits; ``vllm`` detects it."""
    pkg = tmp_path / "vllm"
    (pkg / "utils").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "utils" / "__init__.py").write_text("")
    (pkg / "utils" / "torch_utils.py").write_text(
        "def async_tensor_h2d(data: list | np.ndarray | torch.Tensor, device, dtype=None):\n"
        "    return torch.as_tensor(data, dtype=dtype).to(device)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from h2d_contracts.contracts import TargetLoadError

    with pytest.raises(TargetLoadError, match=r"use --h2d-impl vllm-device-dtype \(or vllm, which detects it\)"):
        load_target("vllm-pin-memory")
    target = load_target("vllm")
    assert target.name == "vllm-device-dtype" and target.requires == {"device"} and "out" not in target.capabilities
    assert target.inputs == {"list", "ndarray", "tensor"}
    check_values(target, [1, 2], {"device": CPU})


def test_example_database_can_be_private_or_off(tmp_path):
    """--h2d-example-db PATH saves the falsifying example there; 'none' saves nothing (independent seeds replay nothing)."""
    db = tmp_path / "db"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--h2d-verify=off",
            "--h2d-impl",
            MUTANT,
            "--h2d-xfails",
            "none",
            f"{OUT_SHAPE}[cpu]",
            "--h2d-example-db",
            str(db),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1 and db.is_dir() and any(db.iterdir()), proc.stdout[-2000:]
    off = tmp_path / "off"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--h2d-verify=off",
            "--h2d-impl",
            MUTANT,
            "--h2d-xfails",
            "none",
            f"{OUT_SHAPE}[cpu]",
            "--h2d-example-db",
            "none",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "HYPOTHESIS_STORAGE_DIRECTORY": str(off)},
    )
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert not (off / "examples").exists(), sorted(p.name for p in off.rglob("*"))


def test_recheck_xfails_judges_a_recorded_report_offline():
    """tools/recheck_xfails.py: a recorded failure covered by an edited file exits 0; a file whose match= misses it, 1 (UNEXPECTED)."""
    proc = _pytest(BAD_BROADCAST, impl=MUTANT, xfails="none", report="m")
    assert proc.returncode == 1, proc.stdout
    tool = [sys.executable, str(ROOT / "tools" / "recheck_xfails.py"), str(proc.tmp / "m.json")]
    good, bad = proc.tmp / "good.txt", proc.tmp / "bad.txt"
    good.write_text("bad-input  match=no\\sexception:\\sgot\\sa\\sresult  # broadcasts\n")
    bad.write_text("bad-input  match=RuntimeError  # another kind\n")
    ok = subprocess.run([*tool, str(good)], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "UNEXPECTED: []" in ok.stdout, ok.stdout + ok.stderr
    no = subprocess.run([*tool, str(bad)], capture_output=True, text=True, timeout=120)
    assert no.returncode == 1 and f"UNEXPECTED: ['{BAD_BROADCAST}']" in no.stdout, no.stdout + no.stderr


def test_a_run_without_a_seed_records_the_seed_it_used():
    """No --hypothesis-seed: the kit chooses one, forces it in every xdist worker, and the report records it (replayable)."""
    proc = _pytest(
        "tests/test_no_target.py::test_no_target[cpu]",
        "-m",
        "not meta",
        impl="reference",
        xfails="none",
        report="s",
        workers=2,
    )
    assert proc.returncode == 0, proc.stdout
    data = json.loads((proc.tmp / "s.json").read_text())
    assert isinstance(data["seed"], int) and data["seed_chosen_at_random"] is True
    assert (
        "-m 'not meta'" in data["command"] and shlex.split(data["command"])[0] == "pytest"
    )  # shell-quoted: pastes back


# --------------------------------------------------------------------------- only the target is judged


def test_every_test_reported_as_passed_called_the_target(tmp_path):
    """The whole checkout suite against a target that logs its callers: no test passes without a call.

    Independent of the plugin's own per-test count (which fails such a test as a kit error):
    the log is written by the target itself (``tests/meta/logging_target.py``), and the
    junit XML says what pytest reported. The reference's own tests and the kit's meta-tests
    are left out by folder against any target but the reference, so none of them is in the
    XML at all.
    """
    log, junit = tmp_path / "calls.log", tmp_path / "junit.xml"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "-n",
        "2",
        "--h2d-impl",
        "tests.meta.logging_target:target",
        "--h2d-xfails=none",
        "--h2d-verify=off",
        f"--junitxml={junit}",
        "tests",
    ]
    proc = subprocess.run(
        cmd,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**__import__("os").environ, "H2D_TEST_LOG": str(log)},
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    import xml.etree.ElementTree as ET

    cases = [c.get("classname", "") for c in ET.parse(junit).getroot().iter("testcase")]
    assert cases and not any(".meta." in c or ".reference." in c for c in cases), (
        "the reference's tests or the meta-tests ran against another target"
    )
    check = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "passed_without_calls.py"), str(junit), str(log)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stdout
    assert " 0 of them never called the target" in check.stdout, check.stdout


def test_a_suite_test_that_never_calls_the_target_cannot_pass(tmp_path):
    """The plugin's own rule: a contract-suite test that passes without one call into the target is a failure (a kit error)."""
    import os
    import uuid

    folder = ROOT / "tests" / f"_probe_{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    try:
        (folder / "__init__.py").write_text("")
        (folder / "test_probe.py").write_text(
            "def test_calls(target):\n    target.async_tensor_h2d([1], device='cpu')\n\n\ndef test_never_calls(target):\n    assert target.name\n"
        )
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--h2d-verify=off", str(folder)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ},
        )
    finally:
        import shutil

        shutil.rmtree(folder)
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "1 failed, 1 passed" in proc.stdout and "passed without calling the target 'reference'" in proc.stdout, (
        proc.stdout[-2000:]
    )


def test_the_call_log_check_names_a_pass_without_a_call(tmp_path):
    junit = tmp_path / "j.xml"
    junit.write_text(
        '<testsuites><testsuite><testcase classname="tests.test_values" name="test_values[cpu]"/><testcase classname="tests.test_out" name="test_out_written[cpu]"/><testcase classname="tests.test_out" name="test_out_dense_table[cpu]"><skipped/></testcase></testsuite></testsuites>'
    )
    log = tmp_path / "calls.log"
    log.write_text("../site-packages/h2d_contracts/tests/test_values.py::test_values[cpu]\n")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "passed_without_calls.py"), str(junit), str(log)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and "passed without a call: test_out.py::test_out_written[cpu]" in proc.stdout, (
        proc.stdout
    )


#: The planted defects of tests/meta/_runner_targets.py:several_defects, as (contract, a piece of the kind, an input kind it shows on).
SEVERAL_DEFECTS = [
    ("no-alias", "result memory overlaps the input", "ndarray"),
    ("no-alias", "result memory overlaps the input", "tensor"),
    ("out", "no exception", "+out"),
    ("bad-input", "no exception", ""),
    ("dtype", "dtype disagrees with out.dtype: no exception", "+out"),
    ("target", "wrong exception type", ""),
    ("buffer", "of .gpu was written", "buffer"),
]


def test_every_defect_of_a_target_is_reported_in_one_run(tmp_path):
    """Seven independent defects, two of one message kind on different inputs: all in one run's digest, at the default profile.

    A property that found one kind keeps searching with it set aside (harness.runner), so
    the tensor aliasing is not hidden behind the ndarray aliasing (a user had to fix one to see
    the other); each problem's reproduction is verified.
    """
    report = tmp_path / "several"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "-n",
        "2",
        "--h2d-impl",
        "tests.meta._runner_targets:several_defects",
        "--h2d-xfails=none",
        f"--h2d-report={report}",
        "tests/test_no_alias.py",
        "tests/test_out.py",
        "tests/test_dtype.py",
        "tests/test_no_target.py",
        "tests/test_bad_input.py",
        "tests/test_buffer.py",
        "-k",
        "cpu",
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1, proc.stdout[-3000:]
    data = json.loads(report.with_suffix(".json").read_text())
    problems = data["problems"]
    for contract, kind, cls in SEVERAL_DEFECTS:
        hits = [
            p
            for p in problems
            if p["contract"] == contract and kind in p["kind"] and (not cls or any(cls in c for c in p["classes"]))
        ]
        assert hits, (
            f"defect ({contract}, {kind}, {cls}) missing from the digest: {[(p['contract'], p['kind'], p['classes']) for p in problems]}"
        )
        assert any(p["verified"] for p in hits), [(p["id"], p["verify_reason"]) for p in hits]
    assert "distinct problems of runner:several_defects" in proc.stdout
