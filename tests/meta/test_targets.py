"""Meta-tests of downstream targets: adapters, source loading, contract ids, expectations rules, the vLLM targets.

Expectations end to end and the report: test_verdict.py.
"""

from __future__ import annotations

import importlib.util
import re
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


def test_load_xfails_include_reads_a_shared_file_under_its_conditions(tmp_path):
    """``include FILE [if=...]``: the shared file's entries in its place (sources naming that file), all inactive where
    the include's conditions fail; a missing file, a stray option and a cycle are refused naming the line."""
    cpu = {"cuda": False, "pinned": False, "multi-gpu": False, "torch": "2.13.0+cpu"}
    gpu = {"cuda": True, "pinned": True, "multi-gpu": False, "torch": "2.11.0+cu130"}
    (tmp_path / "shared.txt").write_text("pool  match=accepted  # shared\nvalues  if=cuda  match=x  # shared, GPU\n")
    (tmp_path / "a.txt").write_text("out  match=y  # own\ninclude shared.txt  # the shared entries\n")
    (tmp_path / "b.txt").write_text("include shared.txt  if=cuda  # only on a GPU\n")
    entries, inactive = R.load_xfails(tmp_path / "a.txt", CATALOGUE, facts=cpu)
    assert [(e.pattern, e.source.rsplit("/", 1)[-1]) for e in entries] == [("out", "a.txt:1"), ("pool", "shared.txt:1")]
    assert inactive == 1
    entries, inactive = R.load_xfails(tmp_path / "b.txt", CATALOGUE, facts=cpu)
    assert entries == [] and inactive == 2
    entries, inactive = R.load_xfails(tmp_path / "b.txt", CATALOGUE, facts=gpu)
    assert [e.pattern for e in entries] == ["pool", "values"] and inactive == 0
    (tmp_path / "c.txt").write_text("include c.txt  # itself\n")
    for text, where in [
        ("include nowhere.txt  # missing\n", "no such file"),
        ("include shared.txt  match=x  # an option other than if=\n", "expected 'include FILE [if=COND,...]"),
        ("include c.txt  # a cycle\n", "included again while it is being read"),
    ]:
        (tmp_path / "bad.txt").write_text(text)
        with pytest.raises(ValueError, match=re.escape(where)):
            R.load_xfails(tmp_path / "bad.txt", CATALOGUE, facts=cpu)


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


def test_vllm_buffer_utils_of_the_earlier_layout_load_where_uva_is(tmp_path, monkeypatch):
    """0.15-0.29's layout (no NonUvaBuffer; UvaBuffer's view an attribute): not loaded without UVA, with a note; where
    UVA is, loaded with the names those releases import (0.15's get_cuda_view_from_cpu_tensor and next_power_of_2,
    the latter from the release's own math_utils), UvaBuffer withheld (no uva(n))."""
    from h2d_contracts.contracts.targets import vllm_buffer_utils as V
    from h2d_contracts.h2d_impl import buffer_utils as U

    pkg = tmp_path / "vllm"
    (pkg / "v1" / "worker" / "gpu").mkdir(parents=True)
    (pkg / "utils").mkdir(parents=True)
    for d in (pkg, pkg / "utils", pkg / "v1", pkg / "v1" / "worker", pkg / "v1" / "worker" / "gpu"):
        (d / "__init__.py").write_text("")
    (pkg / "utils" / "torch_utils.py").write_text(
        "def async_tensor_h2d(data: list | np.ndarray | torch.Tensor, device=None, dtype=None, out=None):\n"
        "    return torch.as_tensor(data, dtype=dtype).to(device)\n"
    )
    (pkg / "utils" / "math_utils.py").write_text("def next_power_of_2(n):\n    return 1 << (n - 1).bit_length()\n")
    (pkg / "v1" / "worker" / "gpu" / "buffer_utils.py").write_text(
        "class UvaBuffer:\n"
        "    def __init__(self, size, dtype):\n"
        "        self.cpu = torch.zeros(size, dtype=dtype)\n"
        "        self.uva = get_cuda_view_from_cpu_tensor(self.cpu)\n"
        "class UvaBufferPool:\n"
        "    def __init__(self, size, dtype, max_concurrency=2):\n"
        "        self.rows = next_power_of_2(size)\n"
        "class UvaBackedTensor:\n"
        "    pass\n"
        "class StagedWriteTensor:\n"
        "    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert V.find(pkg) is None and V.earlier_layout(pkg) is not None
    monkeypatch.setattr(U, "uva_available", lambda: False)
    target = load_target("vllm")
    assert target.buffer_utils is None and "buffer-utils" not in target.capabilities
    assert "before 0.31 they need UVA" in target.notes
    monkeypatch.setattr(U, "uva_available", lambda: True)
    target = load_target("vllm")
    assert "buffer-utils" in target.capabilities and "the layout before 0.31" in target.notes
    utils = target.buffer_utils
    assert utils.UvaBuffer is None and utils.NonUvaBuffer is None
    assert utils.UvaBufferPool(5, torch.int32).rows == 8  # next_power_of_2, the release's own


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
