"""Round r47: side-by-side reproductions (run: ``python -m r47.repro`` from the round's parent folder).

For each CPU-visible bug: the smallest input, the control's (the unmodified reference
through the same plumbing, ``b00_control``) and the bug's outcome, asserted different.
For each GPU-only bug: a few relevant public calls run on bug and control on this host,
asserted to behave the same, then the GPU input that shows it (as text); for some, the
mechanism is also shown on the host through the target's own device-generic internals
(``_to_device`` with a host target, as the reference's call-trace tests drive it: not a
public call, only evidence that the change does what its docstring says).
"""

from __future__ import annotations

import importlib
import io
import logging
import sys
from decimal import Decimal

import numpy as np
import torch

BUGS = [
    "b01_overlap_pairs_swapped",
    "b02_span_reach_in_elements",
    "b03_serial_copy_threads_reset",
    "b04_layout_copy_all_strides",
    "b05_huge_int_float_mix",
    "b06_object_leaf_scan_break",
    "b07_buffer_bool_np_bytes",
    "b08_copy_to_gpu_returns_source",
    "b09_nonuva_np_from_twin",
    "b10_pool_ring_default_depth",
    "b11_staged_values_float",
    "b12_staged_row_offset_num_rows",
    "b13_staged_elem_unwrapped",
    "b14_staged_check_loop_var",
    "b15_refusal_logged_root",
    "b16_shape_tuple_fast_path",
]
GPU_BUGS = [
    "b17_fast_path_keeps_grad",
    "b18_fast_path_host_target",
    "b19_bare_cuda_unindexed",
    "b20_chunk_strides_unreversed",
    "b21_chunk_offset_in_bytes",
    "b22_trim_skips_inflight",
    "b23_pool_key_without_kind",
    "b24_copy_to_cpu_waits",
    "b25_uva_interface_elements",
    "b26_pool_pinned_zero_copy",
]


def load(name):
    return importlib.import_module(f"r47.{name}").target()


def fmt(x):
    if isinstance(x, torch.Tensor):
        vals = x.tolist() if x.numel() <= 16 else f"<{x.numel()} elements, sum={x.double().sum().item()}>"
        extra = ", requires_grad" if x.requires_grad else ""
        return f"tensor({vals}, dtype={x.dtype}, shape={tuple(x.shape)}, device={x.device}{extra})"
    if isinstance(x, np.ndarray):
        return f"ndarray({x.tolist()}, dtype={x.dtype})"
    if isinstance(x, (tuple, list)):
        return "(" + ", ".join(fmt(v) for v in x) + ")"
    return repr(x)


def outcome(fn):
    """``ok: <result>`` or ``raise <Type>: <first line>`` of calling ``fn()``."""
    try:
        return "ok: " + fmt(fn())
    except Exception as exc:  # noqa: BLE001
        first = str(exc).splitlines()[0] if str(exc) else ""
        return f"raise {type(exc).__name__}: {first[:100]}"


# ---------------------------------------------------------------- CPU-visible bugs
def s_b01(t):
    f = t.async_tensor_h2d
    a = outcome(lambda: f([1.0, 2.0, 3.0], out=torch.zeros(1).expand(3)))
    b = outcome(lambda: f(np.arange(24.0).reshape(2, 3, 4), out=torch.zeros(2, 3, 4, dtype=torch.float64)).shape)
    return f"expand out: {a} | 3-D out: {b}"


def s_b02(t):
    b = torch.arange(8.0)
    r = outcome(lambda: t.async_tensor_h2d(b[:4], out=b[2:6]))
    return f"{r} | b after: {b.tolist()}"


def s_b03(t):
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        r = outcome(lambda: t.async_tensor_h2d(np.ones(40000, np.float32), device="cpu", dtype=torch.float16))
        after = torch.get_num_threads()
    finally:
        torch.set_num_threads(old)
    return f"{r} | torch.get_num_threads() after (set to 1 before): {after}"


def s_b04(t):
    a = np.arange(6, dtype=np.int32).reshape(2, 3)[:, ::-1]
    return outcome(lambda: t.async_tensor_h2d(a, device="cpu"))


def s_b05(t):
    return outcome(lambda: t.async_tensor_h2d([1.5, 2**63], device="cpu", dtype=torch.uint64))


def s_b06(t):
    return outcome(lambda: t.async_tensor_h2d([0.5, Decimal("1")], device="cpu"))


def s_b07(t):
    def go():
        b = t.buffer_cls(2, dtype=torch.bool, device="cpu")
        b.np[:] = [2, 0]
        b.copy_to_gpu()
        return (f".np.dtype={b.np.dtype}", f".cpu bytes={b.cpu.view(torch.uint8).tolist()}")

    return outcome(go)


def s_b08(t):
    def go():
        b = t.buffer_cls(3, dtype=torch.int32, device="cpu")
        b.np[:] = [1, 2, 3]
        r = b.copy_to_gpu(2)
        same = r.data_ptr() == b.gpu.data_ptr()
        r[0] = 9
        return (f"result in .gpu's storage={same}", f".gpu={b.gpu.tolist()}", f".cpu={b.cpu.tolist()}")

    return outcome(go)


def s_b09(t):
    def go():
        b = t.buffer_utils.NonUvaBuffer(3, torch.int32)
        b.np[:] = [1, 2, 3]
        v = b.uva().clone()
        p = t.buffer_utils.UvaBufferPool(2, torch.int32).copy_to_uva([5, 6]).clone()
        return (v, p)

    return outcome(go)


def s_b10(t):
    P = t.buffer_utils.UvaBufferPool
    a = outcome(lambda: P(2, torch.int32, max_concurrency=1).copy_to_uva([1, 2]))

    def deep():
        p = P(1, torch.int32, max_concurrency=3)
        v = p.copy_to_uva([1])
        p.copy_to_uva([2])
        p.copy_to_uva([3])
        return v

    return f"depth 1: {a} | depth 3, reader of step 1 after 3 steps: {outcome(deep)}"


def s_b11(t):
    def go():
        s = t.buffer_utils.StagedWriteTensor(1, torch.int64, "cpu")
        s.stage_write(0, 0, [2**53 + 1])
        s.apply_write()
        return s.gpu

    return outcome(go)


def s_b12(t):
    def go():
        s = t.buffer_utils.StagedWriteTensor((2, 3), torch.int32, "cpu")
        s.stage_write(1, 0, [7])
        s.apply_write()
        return s.gpu

    return outcome(go)


def s_b13(t):
    def go():
        s = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
        s.stage_write_elem(1, 5)
        s.apply_write()
        return s.gpu

    return outcome(go)


def s_b14(t):
    def go():
        s = t.buffer_utils.StagedWriteTensor((1, 3), torch.int32, "cpu")
        s.stage_write(0, 1.5, [7])
        s.apply_write()
        return s.gpu

    return outcome(go)


def s_b15(t):
    root = logging.getLogger()
    saved = list(root.handlers)
    for h in saved:
        root.removeHandler(h)
    err, sys.stderr = sys.stderr, io.StringIO()
    try:
        r = outcome(lambda: t.async_tensor_h2d([300], device="cpu", dtype=torch.uint8))
        added = [type(h).__name__ for h in root.handlers]
        printed = sys.stderr.getvalue().strip()
    finally:
        sys.stderr = err
        for h in list(root.handlers):
            root.removeHandler(h)
        for h in saved:
            root.addHandler(h)
    return f"{r} | root logger handlers after: {added} | stderr: {printed!r}"


def s_b16(t):
    return outcome(lambda: t.buffer_utils.StagedWriteTensor((2, -1), torch.int32, "cpu"))


CPU_SCENARIOS = {
    "b01_overlap_pairs_swapped": ("async_tensor_h2d([1.,2.,3.], out=torch.zeros(1).expand(3)); a (2,3,4) array into out=torch.zeros(2,3,4, float64)", s_b01),
    "b02_span_reach_in_elements": ("b = torch.arange(8.); async_tensor_h2d(b[:4], out=b[2:6])", s_b02),
    "b03_serial_copy_threads_reset": ("torch.set_num_threads(1); async_tensor_h2d(np.ones(40000, np.float32), device='cpu', dtype=torch.float16)", s_b03),
    "b04_layout_copy_all_strides": ("async_tensor_h2d(np.arange(6, dtype=np.int32).reshape(2, 3)[:, ::-1], device='cpu')", s_b04),
    "b05_huge_int_float_mix": ("async_tensor_h2d([1.5, 2**63], device='cpu', dtype=torch.uint64)", s_b05),
    "b06_object_leaf_scan_break": ("async_tensor_h2d([0.5, Decimal('1')], device='cpu')", s_b06),
    "b07_buffer_bool_np_bytes": ("b = CpuGpuBuffer(2, dtype=torch.bool, device='cpu'); b.np[:] = [2, 0]; b.copy_to_gpu()", s_b07),
    "b08_copy_to_gpu_returns_source": ("b = CpuGpuBuffer(3, dtype=torch.int32, device='cpu'); b.np[:] = [1,2,3]; r = b.copy_to_gpu(2); r[0] = 9", s_b08),
    "b09_nonuva_np_from_twin": ("b = NonUvaBuffer(3, torch.int32); b.np[:] = [1,2,3]; b.uva(); UvaBufferPool(2, torch.int32).copy_to_uva([5, 6])", s_b09),
    "b10_pool_ring_default_depth": ("UvaBufferPool(2, torch.int32, max_concurrency=1).copy_to_uva([1, 2]); depth 3: three steps", s_b10),
    "b11_staged_values_float": ("t = StagedWriteTensor(1, torch.int64, 'cpu'); t.stage_write(0, 0, [2**53 + 1]); t.apply_write()", s_b11),
    "b12_staged_row_offset_num_rows": ("t = StagedWriteTensor((2, 3), torch.int32, 'cpu'); t.stage_write(1, 0, [7]); t.apply_write()", s_b12),
    "b13_staged_elem_unwrapped": ("t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write_elem(1, 5); t.apply_write()", s_b13),
    "b14_staged_check_loop_var": ("t = StagedWriteTensor((1, 3), torch.int32, 'cpu'); t.stage_write(0, 1.5, [7]); t.apply_write()", s_b14),
    "b15_refusal_logged_root": ("(root logger without handlers) async_tensor_h2d([300], device='cpu', dtype=torch.uint8)", s_b15),
    "b16_shape_tuple_fast_path": ("StagedWriteTensor((2, -1), torch.int32, 'cpu')", s_b16),
}


# ---------------------------------------------------------------- GPU-only bugs: same behaviour on this host
def g_calls_main(t):
    f = t.async_tensor_h2d
    x = torch.ones(4, requires_grad=True)
    p = torch.arange(4.0)
    rows = [
        outcome(lambda: f(x, device="cpu")),
        outcome(lambda: f(x, device="cpu")),
        outcome(lambda: f(p, device="cpu") is p),
        outcome(lambda: f(p, device="cpu").data_ptr() == p.data_ptr()),
        outcome(lambda: f(p, device=torch.device("cpu")) is p),
        outcome(lambda: t.cpu_variant(p, device="cpu") is p),
        outcome(lambda: f([1.0], device="cuda")),
        outcome(lambda: f([1.0], device="cuda:0")),
        outcome(lambda: f([1.0], device=0)),
        outcome(lambda: f([1.0], device="cuda", out=torch.zeros(1))),
        outcome(lambda: t.buffer_cls(2, dtype=torch.int32, device="cuda")),
        outcome(lambda: f(torch.ones(3, requires_grad=True), device="cuda:0")),
    ]
    return rows


def g_calls_staging(t):
    f = t.async_tensor_h2d
    rows = [
        outcome(lambda: f([[1, 2], [3, 4], [5, 6]], device="cpu")),
        outcome(lambda: f(np.arange(12, dtype=np.int64).reshape(4, 3), device="cpu")),
        outcome(lambda: f(np.arange(12.0).reshape(3, 4).T, device="cpu", dtype=torch.float32)),
        outcome(lambda: f([[1, 2], [3, 4], [5, 6]], out=torch.zeros(3, 2, dtype=torch.int64))),
    ]
    for _ in range(3):
        rows.append(outcome(lambda: f(np.ones(51200, np.float32), device="cpu")))
    for _ in range(3):
        rows.append(outcome(lambda: f(np.ones(131072, np.float32), device="cpu")))
    rows.append(outcome(lambda: f(np.zeros(1 << 20, np.float32), device="cpu")))
    rows.append(outcome(lambda: f([1, 2], device="cuda:0")))
    rows.append(outcome(lambda: t.empty_cache()))
    return rows


def g_calls_buffer(t):
    def go(n):
        b = t.buffer_cls(4, 2, dtype=torch.int32, device="cpu")
        b.gpu.copy_(torch.arange(8, dtype=torch.int32).reshape(4, 2))
        r = b.copy_to_cpu(n)
        return (r, r.data_ptr() == b.cpu.data_ptr(), b.cpu, b.np)

    return [outcome(lambda: go(None)), outcome(lambda: go(2)), outcome(lambda: go(0)), outcome(lambda: go(5))]


def g_calls_bu(t):
    bu = t.buffer_utils

    def pool_steps():
        p = bu.UvaBufferPool(4, torch.int32)
        x = torch.arange(4, dtype=torch.int32)
        v = p.copy_to_uva(x)
        x.fill_(9)
        w = p.copy_to_gpu(torch.tensor([7, 7], dtype=torch.int32))
        return (v, w, p.copy_to_uva(np.array([1, 2, 3], np.int32)))

    def backed():
        b = bu.UvaBackedTensor((3, 2), torch.float32)
        b.np[:] = 1.5
        return b.copy_to_uva(2)

    def staged_uva():
        s = bu.StagedWriteTensor((2, 3), torch.int32, "cpu", uva_instead_of_gpu=True)
        s.stage_write(1, 1, [4, 5])
        s.apply_write()
        return s.gpu

    return [
        outcome(lambda: bu.UvaBuffer(4, torch.int32)),
        outcome(lambda: bu.UvaBuffer(4, torch.uint8)),
        outcome(pool_steps),
        outcome(backed),
        outcome(staged_uva),
        outcome(lambda: bu.NonUvaBuffer(3, torch.float32).uva(2)),
    ]


GPU_SCENARIOS = {
    "b17_fast_path_keeps_grad": (g_calls_main, "p = torch.ones(4).pin_memory().requires_grad_(); async_tensor_h2d(p, device='cuda:0') twice -> reference: detached; bug: requires_grad=True, grad_fn=ToCopyBackward0"),
    "b18_fast_path_host_target": (g_calls_main, "p = torch.arange(4.).pin_memory(); async_tensor_h2d(p, device='cpu') twice -> reference: a new tensor; bug: `p` itself"),
    "b19_bare_cuda_unindexed": (g_calls_main, "async_tensor_h2d([1.0], device='cuda', out=torch.zeros(1, device='cuda:0')) -> reference: out written; bug: ValueError (device=cuda disagrees with out.device=cuda:0)"),
    "b20_chunk_strides_unreversed": (g_calls_staging, "async_tensor_h2d([[1, 2], [3, 4], [5, 6]], device='cuda:0') -> reference: [[1,2],[3,4],[5,6]]; bug: [[1,2],[3,4],[2,6]] (staging view with strides (1, 2))"),
    "b21_chunk_offset_in_bytes": (g_calls_staging, "3 x async_tensor_h2d(np.ones(51200, np.float32), device='cuda:0') -> reference: three results; bug: the third raises RuntimeError (slice past the chunk)"),
    "b22_trim_skips_inflight": (g_calls_staging, "async_tensor_h2d(np.zeros(1 << 20, np.float32), device='cuda:0'); torch.cuda.synchronize(); empty_cache() -> reference: 4194304; bug: 0 (pinned block kept)"),
    "b23_pool_key_without_kind": (g_calls_staging, "async_tensor_h2d([1, 2], device='cuda:0'); torch.cuda._sleep(~1 s); 70 x async_tensor_h2d(np.ones(131072, np.float32), device='cuda:0') -> reference: all return during the sleep; bug: the 64th waits for it (small pool's 64 MiB cap)"),
    "b24_copy_to_cpu_waits": (g_calls_buffer, "b = CpuGpuBuffer(1 << 20, dtype=torch.int32, device='cuda:0'); torch.cuda._sleep(~200 ms); b.copy_to_cpu() -> reference: returns during the sleep; bug: returns after it"),
    "b25_uva_interface_elements": (g_calls_bu, "UvaBuffer(4, torch.int32) -> reference: built, uva() a cuda int32 view of zeros; bug: RuntimeError (shape '[4]' is invalid for input of size 1)"),
    "b26_pool_pinned_zero_copy": (g_calls_bu, "p = UvaBufferPool(4, torch.int32); x = torch.arange(4, dtype=torch.int32).pin_memory(); v = p.copy_to_uva(x); x.fill_(9); v.cpu() -> reference: [0,1,2,3]; bug: [9,9,9,9]"),
}


def mechanism(name, t, c):
    """Host-side evidence through the targets' own device-generic internals (not public calls)."""
    g, gc = t.async_tensor_h2d.__globals__, c.async_tensor_h2d.__globals__
    host = torch.device("cpu")
    if name == "b20_chunk_strides_unreversed":
        src = torch.tensor([[1, 2], [3, 4], [5, 6]])
        run = lambda gg: gg["_to_device"]([[1, 2], [3, 4], [5, 6]], src, torch.int64, host, None, pin=False)  # noqa: E731
        return outcome(lambda: run(gc)), outcome(lambda: run(g))
    if name == "b21_chunk_offset_in_bytes":
        def run(gg):
            out = []
            for _ in range(3):
                s = torch.ones(51200, dtype=torch.float32)
                out.append(gg["_to_device"](s, s, torch.float32, host, None, pin=False).sum().item())
            return out
        return outcome(lambda: run(gc)), outcome(lambda: run(g))
    if name == "b23_pool_key_without_kind":
        run = lambda gg: gg["_staging"].pool_for(host, 1 << 20, False, small=True) is gg["_staging"].pool_for(host, 1 << 20, False, small=False)  # noqa: E731
        return outcome(lambda: run(gc)), outcome(lambda: run(g))
    if name == "b25_uva_interface_elements":
        run = lambda bu: bu.UvaBuffer.__init__.__globals__["_Interface"](torch.zeros(4, dtype=torch.int32)).__cuda_array_interface__["shape"]  # noqa: E731
        return outcome(lambda: run(c.buffer_utils)), outcome(lambda: run(t.buffer_utils))
    return None


def main():
    print(f"torch {torch.__version__}, numpy {np.__version__}, CUDA available: {torch.cuda.is_available()}\n")
    control = load("b00_control")
    print("== CPU-visible bugs: control vs bug ==\n")
    for name in BUGS:
        text, scen = CPU_SCENARIOS[name]
        bug = load(name)
        a, b = scen(control), scen(bug)
        print(f"{name}\n  input:   {text}\n  control: {a}\n  bug:     {b}\n")
        assert a != b, name
    print("== GPU-only bugs: the same public calls on this host ==\n")
    for name in GPU_BUGS:
        calls, gpu_text = GPU_SCENARIOS[name]
        control, bug = load("b00_control"), load(name)  # fresh forks: pools and caches of their own
        a, b = calls(control), calls(bug)
        assert a == b, (name, [(x, y) for x, y in zip(a, b) if x != y])
        print(f"{name}\n  {len(a)} calls on this host, identical outcomes, e.g.:")
        for row in a[:3]:
            print(f"    {row}")
        print(f"  GPU input: {gpu_text}")
        ev = mechanism(name, load(name), load("b00_control"))
        if ev is not None:
            print(f"  mechanism on the host (internal, not public): control {ev[0]} / bug {ev[1]}")
            assert ev[0] != ev[1], name
        print()
    print(f"OK: {len(BUGS)} CPU-visible bugs differ from the control; {len(GPU_BUGS)} GPU-only bugs match it on this host.")


if __name__ == "__main__":
    main()
