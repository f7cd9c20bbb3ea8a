"""Round r40: each CPU-visible bug's smallest input, on its target and on the control.

Run from the directory holding the ``r40`` package: ``python -m r40.repro`` (or
``python r40/repro.py``). For every bug the scenario is run on a fresh bug target and on a
fresh control target (``b00_control``), and the two observable outcomes (values, dtypes,
bytes, exceptions with their messages, side effects) are compared: BUGGY when they differ,
OK when they agree. The control itself is compared with the plain installed reference
(``h2d_contracts.h2d_impl`` with no plumbing) over every scenario: it must agree everywhere.
b14 (a filter installed when the target is built) runs in a fresh interpreter each time.
GPU-only bugs are listed and skipped.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from h2d_contracts import h2d_impl  # noqa: E402
from h2d_contracts.h2d_impl import buffer_utils as ref_bu  # noqa: E402

from r40._common import buffer_utils_ns, make_target  # noqa: E402

GPU_ONLY = {"b24_pool_cap_floor_min"}


def load(name: str) -> Any:
    return importlib.import_module(f"r40.{name}").target()


def plain_reference() -> Any:
    t = make_target("plain_reference", buffer_utils=buffer_utils_ns())
    return t


def describe(x: Any) -> str:
    if isinstance(x, torch.Tensor):
        if x.dtype == torch.bool:
            return f"Tensor(bool, bytes={x.contiguous().view(torch.uint8).unique().tolist()}, shape={tuple(x.shape)})"
        vals = x.tolist()
        if isinstance(vals, list) and len(vals) > 8:
            vals = f"{vals[:3]}...({len(vals)} values, distinct {sorted(set(x.flatten().tolist()))[:4]})"
        return f"Tensor({x.dtype}, {vals}, grad_fn={type(x.grad_fn).__name__ if x.grad_fn else None})"
    if isinstance(x, np.ndarray):
        return f"ndarray({x.dtype}, {x.tolist()}, writeable={x.flags.writeable})"
    return repr(x)


def outcome(fn: Callable[[], Any]) -> str:
    try:
        return "-> " + describe(fn())
    except Exception as exc:  # noqa: BLE001  (the outcome is the exception)
        msg = str(exc).splitlines()[0] if str(exc) else ""
        return f"raises {type(exc).__name__}: {msg[:110]}"


# --------------------------------------------------------------------------- scenarios
# Each takes a target and returns a string: what a caller observes.


def s_b01(t: Any) -> str:
    w = torch.zeros(2, requires_grad=True)
    out = w * 1
    return outcome(lambda: t.async_tensor_h2d([1.0, 2.0], out=out))


def s_b02(t: Any) -> str:
    return outcome(lambda: t.async_tensor_h2d(torch.tensor([1], dtype=torch.uint32), dtype=torch.int32, device="cpu"))


def s_b03(t: Any) -> str:
    data = torch.full((32769,), 2, dtype=torch.uint8).view(torch.bool)
    return outcome(lambda: t.async_tensor_h2d(data, device="cpu"))


def s_b04(t: Any) -> str:
    first = outcome(lambda: t.async_tensor_h2d([[np.float32(1)], [np.float32(2)]], device="cpu"))
    second = outcome(lambda: t.async_tensor_h2d([2**63], device="cpu"))
    return f"1st {first} | 2nd {second}"


def s_b05(t: Any) -> str:
    return outcome(lambda: t.async_tensor_h2d(torch.zeros(32769, dtype=torch.float16), dtype=torch.float32, device="cpu"))


def s_b06(t: Any) -> str:
    return outcome(lambda: t.async_tensor_h2d(float("nan"), dtype=torch.int32, device="cpu"))


def s_b07(t: Any) -> str:
    first = outcome(lambda: t.async_tensor_h2d([0], device="cpu:1"))
    second = outcome(lambda: t.async_tensor_h2d([0], device="cpu:1"))
    return f"1st {first} | 2nd {second}"


def s_b08(t: Any) -> str:
    return outcome(lambda: t.async_tensor_h2d([np.float64(1.5)], device="cpu"))


def s_b09(t: Any) -> str:
    r = outcome(lambda: t.async_tensor_h2d([0], device=["cpu"]))
    return f"{r} | names 'device': {'device' in r}"


def s_b10(t: Any) -> str:
    x = torch.tensor([1 + 2j, 3 + 4j])
    r = outcome(lambda: t.async_tensor_h2d(x.conj(), out=x))
    return f"{r} | x after: {x.tolist()}"


def s_b11(t: Any) -> str:
    data = torch.full((32769,), 0x7FA00000, dtype=torch.int32).view(torch.float32)  # signalling NaNs
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        plain = outcome(lambda: t.async_tensor_h2d(data, dtype=torch.bool, device="cpu"))
    with np.errstate(invalid="raise"):
        strict = outcome(lambda: t.async_tensor_h2d(data, dtype=torch.bool, device="cpu"))
    return f"{plain} warnings={[str(w.message) for w in seen]} | under np.errstate(invalid='raise'): {strict}"


def s_b12(t: Any) -> str:
    a = outcome(lambda: t.async_tensor_h2d([1], dtype=torch.uint4, device="cpu"))
    b = outcome(lambda: t.async_tensor_h2d([True], dtype=torch.uint4, device="cpu"))
    return f"[1]: {a} | [True]: {b}"


def s_b13(t: Any) -> str:
    base = torch.zeros(4, dtype=torch.int64)
    out = base[:2]
    r = outcome(lambda: t.async_tensor_h2d([1, 2], out=out))
    return f"{r} | base after: {base.tolist()} | out still in base: {out.data_ptr() == base.data_ptr()}"


def s_b15(t: Any) -> str:
    r = t.async_tensor_h2d([1, 2, 3], device="cpu")
    a = r.numpy()
    del r
    t.async_tensor_h2d([7, 8, 9], device="cpu")
    # the CPU-platform variant shares the staging helper
    rv = t.cpu_variant([4, 5], device="cpu")
    av = rv.numpy()
    del rv
    t.cpu_variant([6, 6], device="cpu")
    return f"first result's numpy view: {a.tolist()} | variant's: {av.tolist()}"


def s_b16(t: Any) -> str:
    gen = (v for v in [1, 2])
    r = outcome(lambda: t.async_tensor_h2d(gen, device="cpu"))
    return f"{r} | generator left: {list(gen)}"


def s_b17(t: Any) -> str:
    try:
        r = outcome(lambda: t.async_tensor_h2d([1e-40], dtype=torch.float32, device="cpu"))
        after = (torch.tensor([1e-40]) * 1).item()
        return f"{r} | caller's tensor([1e-40]) * 1 afterwards: {after}"
    finally:
        torch.set_flush_denormal(False)  # undo the bug's side effect for the next scenarios


def s_b18(t: Any) -> str:
    a = np.array([1.5, -2.7])
    r = outcome(lambda: t.async_tensor_h2d(a, dtype=torch.int32, device="cpu"))
    return f"{r} | caller's array after: {a.tolist()}"


def s_b19(t: Any) -> str:
    buf = t.buffer_cls(2, dtype=torch.int32, device="cpu", with_numpy=False)
    buf.gpu.fill_(4)
    return outcome(lambda: buf.copy_to_cpu(1))


def s_b20(t: Any) -> str:
    buf = t.buffer_cls(2, dtype=torch.int32, device="cpu")

    def write() -> Any:
        buf.np[0] = 7
        return buf.cpu

    return outcome(write)


def s_b21(t: Any) -> str:
    buf = t.buffer_cls(2, dtype=torch.int32, device="cpu")
    buf.np[0] = 3
    up = outcome(lambda: buf.copy_to_gpu(1))
    buf.gpu.fill_(4)
    down = outcome(lambda: buf.copy_to_cpu(1))
    return f"copy_to_gpu(1) {up} | copy_to_cpu(1) {down}"


def s_b22(t: Any) -> str:
    prev = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        st = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
        st.stage_write(0, 0, [5])

        def apply() -> Any:
            st.apply_write()
            return st.gpu

        return outcome(apply)
    finally:
        torch.use_deterministic_algorithms(prev)


def s_b23(t: Any) -> str:
    st = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
    st.stage_write(0, 0, [1])
    st.stage_write(0, 0, [2])
    st.stage_write(1, 0, [3])

    def apply() -> Any:
        st.apply_write()
        return st.gpu

    return outcome(apply)


B14_CHILD = r"""
import sys, warnings, numpy as np, torch
sys.path.insert(0, {root!r})
before = list(warnings.filters)
if {name!r} == "plain":
    import h2d_contracts.h2d_impl
else:
    import importlib; importlib.import_module("r40." + {name!r}).target()
added = [f for f in warnings.filters if f not in before]
ro = np.arange(3); ro.flags.writeable = False
with warnings.catch_warnings(record=True) as seen:
    torch.from_numpy(ro)  # the caller's own code: default filters + whatever the target installed
print("filters added:", [(f[0], f[1].pattern if f[1] else None) for f in added], "| caller sees:", [str(w.message)[:38] for w in seen])
"""


def s_b14_child(name: str) -> str:
    code = B14_CHILD.format(root=str(HERE.parent), name=name)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    return (proc.stdout.strip() or proc.stderr.strip().splitlines()[-1]).strip()


SCENARIOS: dict[str, Callable[[Any], str]] = {
    "b01_out_nonleaf_requires_grad": s_b01,
    "b02_uint_range_check_in_torch": s_b02,
    "b03_bool_copied_as_bytes": s_b03,
    "b04_typed_leaf_scan_stack_shared": s_b04,
    "b05_pieces_narrow_tail": s_b05,
    "b06_nonfinite_mask_0d_scalar": s_b06,
    "b07_cpu_spelling_cached_before_check": s_b07,
    "b08_numpy_float64_taken_as_float": s_b08,
    "b09_device_lookup_unhashable": s_b09,
    "b10_conj_resolved_before_overlap": s_b10,
    "b11_serial_copy_errstate_dropped": s_b11,
    "b12_dtype_allowlist_by_exclusion": s_b12,
    "b13_out_storage_swapped": s_b13,
    "b14_readonly_filter_at_import": None,  # type: ignore[dict-item]  (subprocess)
    "b15_result_recycled_by_refcount": s_b15,
    "b16_iterators_materialised": s_b16,
    "b17_flush_denormal_switched_on": s_b17,
    "b18_trunc_in_place": s_b18,
    "b19_copy_to_cpu_through_np": s_b19,
    "b20_np_view_read_only": s_b20,
    "b21_buffer_cpu_made_in_inference_mode": s_b21,
    "b22_staged_write_put_deterministic": s_b22,
    "b23_staged_dedupe_index_not_mapped_back": s_b23,
}


def main() -> int:
    print(f"torch {torch.__version__}, numpy {np.__version__}, reference {h2d_impl.__file__}")
    buggy = ok = 0
    control_mismatch = []
    for name, scenario in SCENARIOS.items():
        if scenario is None:  # b14: fresh interpreters
            got_bug, got_ctl, got_ref = s_b14_child(name), s_b14_child("b00_control"), s_b14_child("plain")
        else:
            got_bug = scenario(load(name))
            got_ctl = scenario(load("b00_control"))
            got_ref = scenario(plain_reference())
        if got_ctl != got_ref:
            control_mismatch.append(name)
        verdict = "BUGGY" if got_bug != got_ctl else "OK"
        buggy += verdict == "BUGGY"
        ok += verdict == "OK"
        print(f"\n{verdict:5} {name}\n  control: {got_ctl}\n  bug:     {got_bug}")
        if got_ctl != got_ref:
            print(f"  !! control differs from the plain reference: {got_ref}")
    for name in sorted(GPU_ONLY):
        print(f"\nSKIP  {name} (GPU-only: needs CUDA)")
    print(
        f"\nsummary: {buggy} BUGGY, {ok} OK of {len(SCENARIOS)} CPU-visible bugs; {len(GPU_ONLY)} GPU-only skipped; "
        f"control == plain reference on {len(SCENARIOS) - len(control_mismatch)} of {len(SCENARIOS)} scenarios"
        + (f" (differs on {control_mismatch})" if control_mismatch else "")
    )
    return 0 if buggy == len(SCENARIOS) and not control_mismatch else 1


if __name__ == "__main__":
    sys.exit(main())
