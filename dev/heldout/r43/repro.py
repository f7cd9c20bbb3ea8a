"""Round r43 reproductions: every bug's smallest input on its target, on the control (b00) and on the plain reference.

Run from the directory holding ``r43/``: ``python -m r43.repro``. For each bug: BUGGY when the bug's outcome
differs from the reference's, OK when the control's equals the reference's. Outcomes are a result summary
(type, dtype, shape, values) or the exception (type and first line of its message). The ``_staging`` bugs are
shown through the pool's public API (``pool_for``, ``StagingPool`` with the simulated clock its docstring
describes, ``empty_staging_cache``, which is the target's ``empty_cache``) because a CPU target never stages.
"""

from __future__ import annotations

import importlib
import threading
import types

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import _staging as ref_staging

from . import b00_control
from ._stg import FakeClock

BUGS = [
    "b01_overlap_reach_reset",
    "b02_out_is_data_unchecked",
    "b03_huge_uint_from_float",
    "b04_unsigned_list_kind_unmapped",
    "b05_field_stride_alignment",
    "b06_dtype_check_memoised",
    "b07_trim_takes_pool_lock",
    "b08_done_event_only_when_unmarked",
    "b09_wait_pops_newest",
    "b10_give_back_always_queues",
    "b11_buffer_numpy_check_first",
    "b12_copy_to_gpu_via_np",
    "b13_with_numpy_is_true",
    "b14_pool_list_shape_from_len",
    "b15_pool_growth_writes_old_slot",
    "b16_staged_gpu_rows_by_row_len",
    "b17_staged_writes_sorted_by_row_start",
    "b18_default_depth_one",
    "b19_dedupe_return_inverse",
    "b20_staged_values_list_shared",
]
GPU_ONLY: list[str] = []
STAGING = {"b07", "b08", "b09", "b10"}


def summ(x):
    if isinstance(x, torch.Tensor):
        return ("tensor", str(x.dtype), tuple(x.shape), x.tolist())
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.shape, x.tolist())
    if isinstance(x, tuple):
        return tuple(summ(v) for v in x)
    if isinstance(x, list):
        return [summ(v) for v in x]
    return x


def outcome(fn):
    try:
        return ("ok", summ(fn()))
    except Exception as exc:  # the outcome is the exception
        return ("raise", type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")


# -- the three implementations a scenario runs on --------------------------------------------------


def impl_of_target(t, staging=None):
    return types.SimpleNamespace(
        call=lambda data, kw: t.call(data, kw),
        buffer_cls=t.buffer_cls,
        bu=t.buffer_utils,
        staging=staging,
    )


def bug_impl(mod):
    if mod.TAG in STAGING:
        f = mod._fork()
        return impl_of_target(h2d_impl_target_from_fork(f), f.staging)
    return impl_of_target(mod.target())


def h2d_impl_target_from_fork(f):
    from ._common import fork_target_full

    return fork_target_full("repro", f)


def control_impl():
    f = b00_control._fork()
    t = b00_control.target()
    return impl_of_target(t, f.staging)


REFERENCE = types.SimpleNamespace(
    call=lambda data, kw: h2d_impl.async_tensor_h2d(data, **kw),
    buffer_cls=h2d_impl.CpuGpuBuffer,
    bu=h2d_impl.buffer_utils,
    staging=ref_staging,
)


# -- scenarios (each a user's smallest input) -----------------------------------------------------


def s01(m):
    base = torch.zeros(10)
    out = base.as_strided((2, 2, 2), (3, 2, 1))
    return outcome(lambda: m.call(np.arange(8, dtype=np.float32).reshape(2, 2, 2), {"device": "cpu", "out": out}))


def s02(m):
    t = torch.ones(3, requires_grad=True)
    return outcome(lambda: m.call(t, {"device": "cpu", "out": t}))


def s03(m):
    return outcome(lambda: m.call([1, 2**63 + 1], {"device": "cpu", "dtype": torch.uint64}))


def s04(m):
    return outcome(lambda: m.call([2**63], {"device": "cpu"}))


def s05(m):
    rec = np.zeros(3, dtype=[("a", np.complex64), ("b", np.float32)])
    rec["a"] = [1 + 1j, 2, 3j]
    return outcome(lambda: m.call(rec["a"], {"device": "cpu"}))


def s06(m):
    return outcome(lambda: m.call([1, 2], {"device": "cpu", "dtype": [torch.int32]}))


def s07(m):
    m.staging.pool_for(torch.device("cpu"), 1 << 16, False, small=True)
    box = {}
    th = threading.Thread(target=lambda: box.setdefault("r", outcome(m.staging.empty_staging_cache)), daemon=True)
    th.start()
    th.join(3.0)
    if th.is_alive():
        return ("hung", "empty_staging_cache() still blocked after 3 s")
    return ("returned", box["r"][0])


def s08(m):
    clock = FakeClock()
    pool = m.staging.StagingPool(torch.device("cpu"), 1024, pin=False, small=False, clock=clock)
    a = pool.take()
    pool.mark_start(a)
    pool.give_back(a)
    b = pool.take()  # the stream has not run a's copy
    return ("b is a", b is a, "allocations", pool.allocations)


def s09(m):
    clock = FakeClock()
    pool = m.staging.StagingPool(torch.device("cpu"), 1024, pin=False, small=False, max_retained=2048, clock=clock)
    first = []
    for _ in range(2):
        c = pool.take()
        pool.mark_start(c)
        pool.give_back(c)
        first.append(c)
    c = pool.take()
    return ("is oldest", c is first[0], "its copy done", c.done.query(), "waits", pool.waits)


def s10(m):
    pool = m.staging.pool_for(torch.device("cpu"), 3 << 10, False, small=False)
    a = pool.take()
    pool.give_back(a)
    b = pool.take()
    pool.give_back(b)
    res = outcome(m.staging.empty_staging_cache)
    return ("b is a", b is a, "allocations", pool.allocations, "empty_cache", res[0] if res[0] == "ok" else res[:2])


def s11(m):
    return outcome(lambda: m.buffer_cls(4, dtype=None, device="cpu"))


def s12(m):
    def go():
        b = m.buffer_cls(4, dtype=torch.bfloat16, device="cpu", with_numpy=False)
        b.cpu[:2] = 1.5
        return b.copy_to_gpu(2).float()

    return outcome(go)


def s13(m):
    def go():
        b = m.buffer_cls(4, dtype=torch.int32, device="cpu", with_numpy=np.True_)
        return b.np

    return outcome(go)


def s14(m):
    return outcome(lambda: m.bu.UvaBufferPool((4, 3), torch.int32).copy_to_uva([[1], [2]]))


def s15(m):
    return outcome(lambda: m.bu.UvaBufferPool(2, torch.int32).copy_to_uva([1, 2, 3]))


def s16(m):
    def go():
        t = m.bu.StagedWriteTensor(4, torch.int32, "cpu")
        t.stage_write_elem(2, 7)
        t.apply_write()
        return t.gpu

    return outcome(go)


def s17(m):
    def go():
        t = m.bu.StagedWriteTensor((1, 4), torch.int32, "cpu")
        t.stage_write(0, 1, [9])
        t.stage_write(0, 0, [1, 2, 3])
        t.apply_write()
        return t.gpu

    return outcome(go)


def s18(m):
    def go():
        pool = m.bu.UvaBufferPool(3, torch.int32)
        v1 = pool.copy_to_uva([1, 1, 1])
        pool.copy_to_uva([2, 2, 2])
        return v1

    return outcome(go)


def s19(m):
    def go():
        t = m.bu.StagedWriteTensor(4, torch.int32, "cpu")
        t.stage_write_elem(2, 7)
        t.stage_write_elem(1, 8)
        t.stage_write_elem(1, 9)
        t.apply_write()
        return t.gpu

    return outcome(go)


def s20(m):
    def go():
        t = m.bu.StagedWriteTensor(4, torch.int32, "cpu")
        t.stage_write_elem(1, 5)
        pos, vals = t.staged_positions()
        t.apply_write()
        return list(vals)

    return outcome(go)


def main() -> None:
    buggy = ok = n = 0
    for name in BUGS:
        mod = importlib.import_module(f"r43.{name}")
        if name in GPU_ONLY:
            print(f"{name}: SKIPPED (needs CUDA)")
            continue
        scenario = globals()["s" + name[1:3]]
        ref = scenario(REFERENCE)
        bug = scenario(bug_impl(mod))
        ctl = scenario(control_impl())
        n += 1
        b = bug != ref
        c = ctl == ref
        buggy += b
        ok += c
        print(f"{name}: {'BUGGY' if b else 'NOT BUGGY'}; control {'OK' if c else 'DIFFERS'}")
        print(f"    reference: {ref}")
        print(f"    bug:       {bug}")
        if not c:
            print(f"    control:   {ctl}")
    print(f"GPU-only bugs skipped (no CUDA needed by any): {len(GPU_ONLY)}")
    print(f"SUMMARY: {buggy} BUGGY of {n} CPU-visible bugs; control OK on {ok} of {n} scenarios")


if __name__ == "__main__":
    main()
