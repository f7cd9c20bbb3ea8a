"""Meta-tests of the reproductions: a script rebuilds exactly what a check was called with, and verification tells apart
a real failure, a failure of another kind and a kit error.

The scripts are written by :mod:`harness.repro` from the arguments a check captured on entry;
here they call a recording check (``tests/meta/repro_probe.py``) instead of a contract, and
what they rebuild is compared with what was captured: every byte of the memory, dtype (byte
order included), shape, strides, storage offset, flags, inference mode, ``requires_grad``,
and which arguments share memory.
"""

from __future__ import annotations

import decimal
import fractions
import os
import runpy
import struct
import time
import warnings

import numpy as np
import pytest
import torch

from h2d_contracts.harness import repro
from h2d_contracts.harness.calling import raw_storage

from . import repro_probe

pytestmark = pytest.mark.meta


def _script(*args, **kwargs) -> str:
    source, problem = repro.write_script(
        repro.capture(args, kwargs), check_module="tests.meta.repro_probe", check_name="check_probe", spec="reference"
    )
    assert not problem, problem
    return source


def _run(source: str, tmp_path) -> tuple:
    path = tmp_path / "repro.py"
    path.write_text(source)
    repro_probe.SEEN.clear()
    runpy.run_path(str(path), run_name="__main__")
    (seen,) = repro_probe.SEEN
    return seen


def _facts(obj):
    """What must survive the round trip, bit for bit."""
    if isinstance(obj, torch.Tensor):
        if obj.is_nested:
            return ("nested", [_facts(c) for c in obj.unbind()])
        if obj.device.type == "meta":
            return ("meta", obj.dtype, tuple(obj.shape), obj.stride())
        if obj.is_quantized:
            return ("quantized", obj.dtype, obj.q_scale(), obj.q_zero_point(), obj.int_repr().tolist())
        if obj.layout != torch.strided:
            return ("sparse", str(obj.layout), _facts(obj.to_dense()))
        return (
            "tensor",
            obj.dtype,
            tuple(obj.shape),
            obj.stride(),
            obj.storage_offset(),
            str(obj.device),
            obj.is_inference(),
            obj.requires_grad,
            obj.is_leaf,
            obj.is_conj(),
            obj.is_neg(),
            raw_storage(obj).numpy().tobytes(),
        )
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "O":
            return ("objects", obj.shape, [type(v).__name__ for v in obj.ravel()])
        return ("ndarray", obj.dtype.str, obj.dtype.descr, obj.shape, obj.strides, obj.flags.writeable, obj.tobytes())
    if isinstance(obj, np.generic):
        return ("np", obj.dtype.str, obj.tobytes())
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_facts(v) for v in obj])
    if isinstance(obj, dict):
        return ("dict", [(k, _facts(v)) for k, v in obj.items()])
    if isinstance(obj, float):
        return ("float", struct.pack("<d", obj))
    if type(obj).__name__ == "generator":
        return ("generator",)
    return (
        type(obj).__name__,
        obj
        if not isinstance(obj, object)
        or isinstance(
            obj, (int, str, bytes, complex, decimal.Decimal, fractions.Fraction, torch.dtype, torch.device, type)
        )
        or obj is None
        else type(obj).__name__,
    )


def _cases() -> list:
    base = torch.arange(12, dtype=torch.float32)
    shared = torch.arange(8, dtype=torch.float32)
    viewed = torch.arange(8, dtype=torch.float32)
    s = np.zeros(3, dtype=[("a", "i1"), ("b", "<f4")])
    s["b"] = [1.5, -2.0, 3.25]
    ro = np.arange(4, dtype=">i2")
    ro.setflags(write=False)
    with torch.inference_mode():
        inference_out = torch.zeros(3)
    leaf = torch.arange(6, dtype=torch.float64).view(2, 3).requires_grad_(True)
    nan = struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000001))[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nested = torch.nested.nested_tensor([torch.ones(2), torch.arange(3.0)])
        quantized = torch.quantize_per_tensor(torch.tensor([0.5, 1.0, -1.5]), 0.5, 3, torch.qint8)
    rng = np.random.default_rng(7)
    return [
        (
            "offset view and strided out",
            (base[3:9].view(2, 3).t(), {"out": torch.full((10,), 7.0)[1::3], "device": torch.device("cpu")}),
        ),
        (
            "expanded and channels-last",
            (
                torch.arange(3.0).expand(4, 3),
                torch.arange(24.0).view(1, 2, 3, 4).contiguous(memory_format=torch.channels_last),
            ),
        ),
        ("data and out in one storage", (shared[:4], {"out": shared[2:6]})),
        ("ndarray view of out's memory", (viewed.numpy()[:7], {"out": viewed[1:]})),
        (
            "negative strides, byte order, read-only, broadcast",
            (np.arange(6)[::-1], np.flip(np.array([7], np.int32)), ro, np.broadcast_to(np.arange(3.0)[:1], (4,))),
        ),
        ("structured field and Fortran", (s["b"], np.asfortranarray(np.arange(6, dtype=">f8").reshape(2, 3)))),
        ("inference-mode out", ([1.0, 2.0, 3.0], {"out": inference_out})),
        ("requires grad, leaf and view", (leaf, leaf.t(), leaf[:, 1])),
        (
            "meta, sparse, nested, quantized, conj",
            (
                torch.empty(2, 3, device="meta"),
                torch.tensor([0.0, 2.0]).to_sparse(),
                nested,
                quantized,
                torch.tensor([1 + 2j, 3 - 1j]).conj(),
            ),
        ),
        (
            "negative bit: a conjugate's imaginary part and an int64 view",
            (torch.tensor([1 + 2j, 3 - 1j]).conj().imag, torch._neg_view(torch.tensor([0, 5, -300, 2**31]))),
        ),
        (
            "0-d values and numpy scalars",
            (
                torch.tensor(3.5),
                np.array(7),
                np.float16(2.5),
                np.int64(-3),
                np.bool_(True),
                np.complex64(1 - 2j),
                5,
                2.5,
                float("nan"),
                float("-inf"),
            ),
        ),
        (
            "lists: of arrays, tuples, NaN payloads, big",
            (
                [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32)],
                ((1, 2), [3, 4]),
                [nan, -0.0, 1e300],
                list(range(5000)),
                [[i, i % 7] for i in range(3000)],
            ),
        ),
        (
            "large arrays: a progression and random bytes",
            (
                np.arange(1 << 16, dtype=np.int32) * 3 - 5,
                rng.integers(0, 255, size=1 << 14, dtype=np.uint8),
                torch.from_numpy(rng.standard_normal(4096).astype(np.float32)),
            ),
        ),
        (
            "other Python objects",
            (
                None,
                "123",
                b"12",
                {0: 1},
                {1, 2},
                decimal.Decimal("1.5"),
                fractions.Fraction(1, 3),
                np.array([object()] * 2),
                torch.float8_e4m3fn,
                np.int32,
                ValueError,
                torch.device("cpu", 0),
            ),
        ),
    ]


@pytest.mark.parametrize("label, args", _cases(), ids=[c[0] for c in _cases()])
def test_the_script_rebuilds_the_exact_arguments(tmp_path, label, args):
    before = [_facts(a) for a in args]
    source = _script(*args)
    _, rebuilt, _, _ = _run(source, tmp_path)
    assert [_facts(a) for a in rebuilt] == before, source


def test_memory_shared_between_arguments_stays_shared(tmp_path):
    viewed = torch.arange(8, dtype=torch.float32)
    store = torch.arange(10, dtype=torch.int64)
    _, (data, kwargs, a, b), _, _ = _run(
        _script(viewed.numpy()[:7], {"out": viewed[1:]}, store[:4], store[3:8]), tmp_path
    )
    assert np.shares_memory(data, kwargs["out"].numpy())
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def test_global_state_is_set_up(tmp_path):
    """A check that ran under another default dtype or inside inference mode is called so again."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        source = _script([0.1])
    finally:
        torch.set_default_dtype(previous)
    with torch.inference_mode():
        inside = _script([1])
    _, _, _, state = _run(source, tmp_path)
    assert state["default_dtype"] == torch.float64
    torch.set_default_dtype(previous)
    _, _, _, state = _run(inside, tmp_path)
    torch.set_default_dtype(previous)
    assert state["inference"] is True


def test_a_generator_is_rebuilt_with_a_note():
    source, problem = repro.write_script(
        repro.capture(((i for i in range(3)),), {}),
        check_module="tests.meta.repro_probe",
        check_name="check_probe",
        spec="reference",
    )
    assert "(i for i in range(3))" in source and "generator" in problem


# --------------------------------------------------------------------------- verification


def _violation_script(check: str, call: str) -> str:
    return f"import torch\nfrom h2d_contracts.contracts import load_target\nfrom h2d_contracts.contracts.out import {check}\ntarget = load_target('h2d_contracts.contracts.mutants:broadcast_into_out')\n{call}\n"


def test_verification_tells_real_failures_from_others(tmp_path):
    """Verified: fails as recorded on the target and passes on the reference. Not verified: passes on the target, fails another
    way, or fails on the reference too (a kit error)."""
    shape = "check_out_shape_rejected(target, [7], {'out': torch.zeros(4, dtype=torch.int64)})"
    key = ("out", "out.shape=(...) vs data shape (...): no exception [list+out]")
    jobs = [
        (
            "real",
            _violation_script("check_out_shape_rejected", shape),
            "h2d_contracts.contracts.mutants:broadcast_into_out",
            key,
        ),
        (
            "other-kind",
            _violation_script("check_out_shape_rejected", shape),
            "h2d_contracts.contracts.mutants:broadcast_into_out",
            ("out", "something else [list+out]"),
        ),
        (
            "passes",
            _violation_script(
                "check_out_written_exactly",
                "check_out_written_exactly(target, [7], {'out': torch.zeros(1, dtype=torch.int64)})",
            ),
            "h2d_contracts.contracts.mutants:broadcast_into_out",
            key,
        ),
        (
            "kit-error",
            _violation_script(
                "check_out_shape_rejected",
                "check_out_shape_rejected(target, [7], {'out': torch.zeros(1, dtype=torch.int64)})",
            ),
            "h2d_contracts.contracts.mutants:broadcast_into_out",
            key,
        ),
    ]
    real, other, passes, kit = repro.verify(jobs, str(tmp_path))
    assert real.verified, real.reason
    assert not other.verified and "failed another way" in other.reason
    assert not passes.verified and "passed" in passes.reason
    assert (
        not kit.verified and "on the reference it failed with a violation too" in kit.reason
    )  # [7] into a (1,) out is no mismatch: the check is wrong, the reference fails it too


def test_the_fresh_interpreter_path_verifies_and_times_each_run(tmp_path, monkeypatch):
    """On a CUDA machine every script runs in a new interpreter (no fork): forced here, the real failure is verified the
    same way, and each run's wall seconds are reported (the report's ``verify_seconds``)."""
    import importlib

    module = importlib.import_module(
        "h2d_contracts.harness.repro.verify"
    )  # the package's name `verify` is the function
    monkeypatch.setattr(module, "_preloaded_runner", lambda *a, **k: None)
    shape = "check_out_shape_rejected(target, [7], {'out': torch.zeros(4, dtype=torch.int64)})"
    job = (
        "real",
        _violation_script("check_out_shape_rejected", shape),
        "h2d_contracts.contracts.mutants:broadcast_into_out",
        ("out", "out.shape=(...) vs data shape (...): no exception [list+out]"),
    )
    (real,) = repro.verify([job], str(tmp_path), workers=1)
    assert real.verified, real.reason
    assert real.on_reference is not None
    assert real.on_target["seconds"] >= 0 and real.on_reference["seconds"] >= 0


_HELD_AT_EXIT = """
import atexit, threading, time
atexit.register(time.sleep, 600)  # an interpreter whose teardown never ends
threading.Thread(target=time.sleep, args=(600,)).start()  # and a non-daemon thread it would join
"""


def test_a_teardown_that_hangs_does_not_hold_the_outcome(tmp_path):
    """The script ends, then its interpreter's teardown hangs (an atexit handler, a non-daemon thread: what a CUDA
    context's destruction or a library's thread can do): the outcome is read as soon as the script has ended, never at
    the timeout. Before the driver ended its process itself, this run was reported 'timed out'."""
    script = tmp_path / "held.py"
    script.write_text(_HELD_AT_EXIT)
    got = repro.run_script(str(script), timeout_s=120)
    assert got["outcome"] == "passed", got


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to see whether the child process still runs")
def test_a_timed_out_script_is_killed_with_its_children(tmp_path):
    """At the timeout the script's whole process group is killed: a child it started does not outlive it (a leftover
    process would keep the GPU's memory and the pipes of the run)."""
    pid_file = tmp_path / "child.pid"
    script = tmp_path / "stuck.py"
    script.write_text(
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(600)\n"
    )
    for timeout_s in (8, 60):  # a loaded machine that did not reach the script's first lines in 8 s gets 60
        got = repro.run_script(str(script), timeout_s=timeout_s)
        assert got["outcome"] == "timed out" and f"still running after {timeout_s} s" in got["detail"], got
        if pid_file.exists() and pid_file.read_text():
            break
    pid = int(pid_file.read_text())
    for _ in range(100):
        if not _alive(pid):
            break
        time.sleep(0.1)
    assert not _alive(pid), f"the script's child {pid} still runs"


def test_the_verification_timeout_option_refuses_what_is_not_a_positive_number():
    """``--h2d-verify-timeout`` takes seconds > 0; 0, a negative, inf, nan or a word is a usage error that names the value."""
    import argparse

    from h2d_contracts.plugin.options import _positive_seconds

    assert _positive_seconds("2.5") == 2.5
    for bad in ("0", "-1", "inf", "nan", "abc"):
        with pytest.raises(argparse.ArgumentTypeError, match=repr(bad)):
            _positive_seconds(bad)
