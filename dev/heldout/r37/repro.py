"""Direct reproductions of the r37 bugs on their smallest inputs, each bug's classes against the reference's.

Run: ``cd /work/r37_author && PYTHONPATH=. python r37/repro.py`` (or ``python -m r37.repro``).

For every bug module ``bNN_*.py`` the scenario below is run twice, once with the
reference's classes (``h2d_contracts.h2d_impl.buffer_utils``) and once with the bug's
(``target().buffer_utils``). An outcome is ``ok <value>`` or ``raises <ExceptionType>``.
A bug is BUGGY when the reference gives the documented outcome and the bug gives the
outcome its docstring predicts (so: they differ as documented). The control
(``b00_control``) must equal the reference on every scenario. GPU-only bugs run only when
CUDA and pinned memory are available; otherwise they are listed as SKIPPED.

b15 (``uva_instead_of_gpu`` without the availability check) shows only where UVA is
unavailable; on a machine with UVA it is SKIPPED.

Exit status: 1 if any CPU bug is not BUGGY, any runnable GPU bug is not BUGGY, or the
control differs from the reference anywhere; else 0.
"""

from __future__ import annotations

import importlib
import pathlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from r37._common import REF  # noqa: E402

I32 = torch.int32


def _ptrs(ts: list[Any]) -> tuple[torch.Tensor, torch.Tensor]:
    """output_ptrs (uint64) and output_strides as vLLM's block tables pass them."""
    ptrs = torch.tensor([t.gpu.data_ptr() for t in ts], dtype=torch.uint64)
    strides = torch.tensor([t.gpu.stride(0) for t in ts], dtype=torch.int64)
    return ptrs, strides


# --- scenarios: each takes the namespace of classes (U) and returns a plain value -------


def s01(U: Any) -> Any:
    b = U.NonUvaBuffer(1, I32)
    b.np[0] = 5
    return b.uva().tolist()


def s02(U: Any) -> Any:
    return tuple(U.NonUvaBuffer(1, I32).uva(0).shape)


def s03(U: Any) -> Any:
    return U.UvaBufferPool(1, I32).copy_to_uva([1, 2, 3]).tolist()


def s04(U: Any) -> Any:
    p = U.UvaBufferPool(1, I32, 2)
    a = p.copy_to_uva([1])
    p.copy_to_uva([2])
    return a.tolist()


def s05(U: Any) -> Any:
    return U.UvaBufferPool(1, I32, max_concurrency=0).max_concurrency


def s06(U: Any) -> Any:
    p = U.UvaBufferPool(1, I32, 1)
    r = p.copy_to_gpu(np.array([1], dtype=np.int32))
    p.copy_to_gpu(np.array([2], dtype=np.int32))
    return r.tolist()


def s07(U: Any) -> Any:
    return U.UvaBackedTensor(1, I32).copy_to_uva(2).tolist()


def s08(U: Any) -> Any:
    t = U.UvaBackedTensor(1, I32)
    t.np[0] = 5
    t.copy_to_uva()
    return t.gpu.tolist()


def s09(U: Any) -> Any:
    t = U.StagedWriteTensor((2, 1), I32, "cpu")
    t.stage_write(0, 0, [5, 6])
    t.apply_write()
    return t.gpu.tolist()


def s10(U: Any) -> Any:
    t = U.StagedWriteTensor(2, I32, "cpu")
    t.stage_write_elem(1, 7)
    t.apply_write()
    return t.gpu.tolist()


def s11(U: Any) -> Any:
    return U.StagedWriteTensor(1, I32, "cpu").stage_write(1, 0, [])


def s12(U: Any) -> Any:
    t = U.StagedWriteTensor(1, I32, "cpu")
    t.stage_write_elem(1, 7)
    return t.staged_positions()[0].tolist()


def s13(U: Any) -> Any:
    t = U.StagedWriteTensor(1, I32, "cpu")
    t.stage_write_elem(0, 2**31)
    try:
        t.apply_write()
        raised = None
    except (ValueError, TypeError) as e:
        raised = type(e).__name__
    positions, values = t.staged_positions()
    return raised, positions.tolist(), values


def s14(U: Any) -> Any:
    t = U.StagedWriteTensor(1, I32, "cpu")
    t.stage_write_elem(0, 2**31)
    t.apply_write()
    return t.gpu.tolist()


def s15(U: Any) -> Any:
    return U.StagedWriteTensor(1, I32, "cpu", uva_instead_of_gpu=True).gpu.tolist()


def _fused(U: Any, max_writes: int, value: int) -> Any:
    t = U.StagedWriteTensor(1, I32, "cpu")
    t.stage_write_elem(0, value)
    U.FusedStagedWriter("cpu", max_writes).apply([t], *_ptrs([t]))
    return t.gpu.tolist()


def s16(U: Any) -> Any:
    return _fused(U, 1, 7)


def s17(U: Any) -> Any:
    return _fused(U, 0, 7)


def s18(U: Any) -> Any:
    return _fused(U, 1, 16777217)


# GPU-only scenarios (UvaBuffer exists only with CUDA and pinned memory)


def s19(U: Any) -> Any:
    return tuple(U.UvaBuffer(1, I32).uva(0).shape)


def s20(U: Any) -> Any:
    # fill every free pinned block of this size class with 7s, free them, then build the buffer
    dirty = [torch.full((256,), 7, dtype=I32, pin_memory=True) for _ in range(16)]
    del dirty
    b = U.UvaBuffer(256, I32)
    return int(b.cpu.count_nonzero())


def s21(U: Any) -> Any:
    torch.cuda.synchronize()
    p = U.UvaBufferPool(4, I32, 1)
    v = p.copy_to_uva(np.arange(1, 5, dtype=np.int32))
    torch.cuda._sleep(int(1e9))  # busy work queued ahead of the reader (~0.5 s)
    r = v.clone()  # the reader: reads the pinned bytes when it runs
    del v
    p.copy_to_uva(np.zeros(5, dtype=np.int32))  # grows the slot: the old buffer is retired (reference) or dropped (bug)
    junk = [torch.full((4,), 99, dtype=I32, pin_memory=True) for _ in range(4)]
    torch.cuda.synchronize()
    del junk
    return r.tolist()


def _raises(name: str) -> str:
    return f"raises {name}"


# bug module -> (CPU/GPU, scenario, reference outcome, bug outcome)
CASES: dict[str, tuple[str, Callable[[Any], Any], str, str]] = {
    "b01_nonuva_full_view_not_refreshed": ("CPU", s01, "ok [5]", "ok [0]"),
    "b02_nonuva_zero_rows_means_all": ("CPU", s02, "ok (0,)", "ok (1,)"),
    "b03_pool_growth_rounds_down": ("CPU", s03, "ok [1, 2, 3]", _raises("ValueError")),
    "b04_pool_slots_one_object": ("CPU", s04, "ok [1]", "ok [2]"),
    "b05_pool_zero_depth_defaulted": ("CPU", s05, _raises("ValueError"), "ok 2"),
    "b06_pool_copy_to_gpu_returns_slot": ("CPU", s06, "ok [1]", "ok [2]"),
    "b07_backed_rows_sliced_unchecked": ("CPU", s07, _raises("IndexError"), "ok [0]"),
    "b08_backed_gpu_attribute_stale": ("CPU", s08, "ok [5]", "ok [0]"),
    "b09_staged_end_of_row_unchecked": ("CPU", s09, _raises("IndexError"), "ok [[5], [6]]"),
    "b10_staged_row_len_last_dim": ("CPU", s10, "ok [0, 7]", _raises("IndexError")),
    "b11_staged_empty_write_unchecked": ("CPU", s11, _raises("IndexError"), "ok None"),
    "b12_staged_elem_fast_path": ("CPU", s12, _raises("IndexError"), "ok [1]"),
    "b13_staged_cleared_on_failed_apply": (
        "CPU",
        s13,
        "ok ('ValueError', [0], [2147483648])",
        "ok ('ValueError', [], [])",
    ),
    "b14_staged_numpy_cast_wraps": ("CPU", s14, _raises("ValueError"), "ok [-2147483648]"),
    "b15_staged_uva_flag_unguarded": ("CPU", s15, "ok [0]", _raises("RuntimeError")),  # a machine without UVA
    "b16_fused_strides_in_bytes": ("CPU", s16, "ok [7]", _raises("ValueError")),
    "b17_fused_max_writes_is_a_cap": ("CPU", s17, "ok [7]", _raises("ValueError")),
    "b18_fused_contents_one_float32_copy": ("CPU", s18, "ok [16777217]", "ok [16777216]"),
    "b19_uva_buffer_zero_rows_means_all": ("GPU", s19, "ok (0,)", "ok (1,)"),
    "b20_uva_buffer_pinned_empty": ("GPU", s20, "ok 0", "ok 256"),
    "b21_pool_growth_drops_old_block": ("GPU", s21, "ok [1, 2, 3, 4]", "ok [99, 99, 99, 99]"),
}


#: CPU bugs that exist only where UVA is unavailable (with UVA the changed branch is the reference's)
NEEDS_NO_UVA = {"b15_staged_uva_flag_unguarded"}


def outcome(scenario: Callable[[Any], Any], U: Any) -> str:
    try:
        return f"ok {scenario(U)!r}"
    except Exception as e:  # noqa: BLE001 - the outcome is the exception's type
        return _raises(type(e).__name__)


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent
    found = sorted(p.stem for p in here.glob("b[0-9][0-9]_*.py") if p.stem != "b00_control")
    missing = sorted(set(found) ^ set(CASES))
    if missing:
        print(f"bug modules and CASES disagree: {missing}")
        return 1
    gpu_ok = torch.cuda.is_available() and REF.uva_available()
    control = importlib.import_module("r37.b00_control").target().buffer_utils
    failures = 0
    control_diffs = 0
    control_runs = 0
    for name, (kind, scenario, want_ref, want_bug) in CASES.items():
        if kind == "GPU" and not gpu_ok:
            print(f"SKIPPED  {name} [GPU]: needs CUDA with pinned memory (UVA)")
            continue
        if name in NEEDS_NO_UVA and gpu_ok:
            print(f"SKIPPED  {name} [CPU]: shows only where UVA is unavailable (a CPU-only machine)")
            continue
        bug = importlib.import_module(f"r37.{name}").target().buffer_utils
        ref_out = outcome(scenario, REF)
        bug_out = outcome(scenario, bug)
        ctl_out = outcome(scenario, control)
        control_runs += 1
        buggy = ref_out == want_ref and bug_out == want_bug and ref_out != bug_out
        if not buggy:
            failures += 1
        if ctl_out != ref_out:
            control_diffs += 1
        print(
            f"{'BUGGY   ' if buggy else 'NOT SHOWN'} {name} [{kind}]: reference {ref_out} | bug {bug_out}"
            + ("" if buggy else f" (expected reference {want_ref}, bug {want_bug})")
            + ("" if ctl_out == ref_out else f" | CONTROL DIFFERS: {ctl_out}")
        )
    print(
        f"control (b00_control): {'no difference from the reference' if not control_diffs else f'{control_diffs} differences'}"
        f" on {control_runs} scenarios"
    )
    return 1 if failures or control_diffs else 0


if __name__ == "__main__":
    sys.exit(main())
