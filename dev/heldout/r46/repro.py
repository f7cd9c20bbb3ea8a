"""Round r46: every bug's smallest input, run on the control (b00) and on the bug.

Run from the round's folder's parent: ``python -m r46.repro`` (PYTHONPATH holding the
folder of ``plumbing.py``). For each CPU-visible bug the same public calls are made on the
control's target and on the bug's, their outcomes printed side by side, and the two are
asserted to differ. For each GPU-only bug a few relevant public calls are made on both on
this (CPU-only) host and asserted to behave exactly the same; the GPU input that shows the
bug is printed as text (it is not run here).
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

CONTROL = importlib.import_module("r46.b00_control").target()


def _target(name: str) -> Any:
    return importlib.import_module(f"r46.{name}").target()


def fmt(x: Any) -> str:
    """A stable, address-free description of a call's result (tensors by dtype, shape, values and pinning)."""
    if isinstance(x, torch.Tensor):
        pinned = ", pinned" if x.device.type == "cpu" and x.layout == torch.strided and x.is_pinned() else ""
        return f"Tensor({x.dtype}, shape={tuple(x.shape)}, device={x.device}{pinned}, values={x.tolist()})"
    if isinstance(x, np.ndarray):
        return f"ndarray({x.dtype}, shape={x.shape}, values={x.tolist()})"
    if isinstance(x, tuple):
        return "(" + ", ".join(fmt(v) for v in x) + ")"
    if isinstance(x, list):
        return "[" + ", ".join(fmt(v) for v in x) + "]"
    if isinstance(x, type):
        return x.__name__
    return repr(x)


def outcome(thunk: Callable[[], Any]) -> str:
    try:
        return "returns " + fmt(thunk())
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome
        first = str(exc).splitlines()[0] if str(exc) else ""
        first = re.sub(r"0x[0-9a-fA-F]+", "0x?", first)
        return f"raises {type(exc).__name__}: {first}"


def short(text: str, width: int = 150) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


# ---------------------------------------------------------------------------------------
# CPU-visible bugs: (module, where, [(input as text, call(target))])
# ---------------------------------------------------------------------------------------


def _b02(t: Any) -> Any:
    d = [[1, 2], [3, 4]]
    r = t.async_tensor_h2d(d, device="cpu")
    return r, ("caller's list afterwards:", d)


def _b02_typed(t: Any) -> Any:
    d = [1, np.float16(2)]
    r = t.async_tensor_h2d(d, device="cpu")
    return r, ("caller's list afterwards:", [float(v) for v in d])


def _b06(t: Any) -> Any:
    b = torch.arange(8.0)
    data = b[0:8:2]
    expected = data.tolist()
    r = t.async_tensor_h2d(data, out=b[2:6])
    return r, ("data at the call:", expected)


def _b09(t: Any) -> Any:
    buf = t.buffer_cls(2, 3, dtype=torch.int32, device="cpu")
    buf.np[:] = [[1, 2, 3], [4, 5, 6]]
    r = buf.copy_to_gpu(1)
    return r, (".gpu:", buf.gpu)


def _b10(t: Any) -> Any:
    buf = t.buffer_cls(4, dtype=torch.bfloat16, device="cpu")
    try:
        buf.np
    except AttributeError as exc:
        return ("built; .np raises AttributeError:", str(exc)[:60])
    return "built, with .np"


def _b11(t: Any) -> Any:
    buf = t.buffer_cls(3, dtype=torch.int32, device="cpu")
    buf.gpu.fill_(5)
    r = buf.copy_to_cpu(2)
    return type(r), r


def _b12(t: Any) -> Any:
    s = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
    s.stage_write(0, 0, (v for v in [7]))
    s.apply_write()
    return s.gpu


def _b12_bool(t: Any) -> Any:
    s = t.buffer_utils.StagedWriteTensor((1, 2), torch.int32, "cpu")
    s.stage_write(0, 0, [True, 2])
    s.apply_write()
    return s.gpu


def _b13(t: Any) -> Any:
    s = t.buffer_utils.StagedWriteTensor((1, 3), torch.int32, "cpu")
    s.stage_write(0, 2, [7, 8])
    s.apply_write()
    return s.gpu


def _b14(t: Any) -> Any:
    p = t.buffer_utils.UvaBufferPool((2, 3), torch.int32)
    return p.copy_to_uva([[1, 2], [3, 4], [5, 6]])


def _b15(t: Any) -> Any:
    p = t.buffer_utils.UvaBufferPool(3, torch.int32)
    return p.copy_to_uva(np.array([3, 2, 1], np.int32)[::-1])


def _b16(t: Any) -> Any:
    s = t.buffer_utils.StagedWriteTensor(4, torch.int32, "cpu")
    s.stage_write(1, 0, [5])
    ptrs = torch.tensor([s.gpu.data_ptr()], dtype=torch.uint64)
    try:
        t.buffer_utils.FusedStagedWriter("cpu", 1).apply([s], ptrs, torch.tensor([2]))
    except ValueError as exc:
        return ("ValueError: " + str(exc)[:60], ".gpu:", s.gpu)
    return ("applied", ".gpu:", s.gpu)


CPU_BUGS: list[tuple[str, str, list[tuple[str, Callable[[Any], Any]]]]] = [
    (
        "b01_ulonglong_view",
        "_host._numpy_to_tensor",
        [
            ('async_tensor_h2d([2**63], dtype=torch.uint64, device="cpu")',
             lambda t: t.async_tensor_h2d([2**63], dtype=torch.uint64, device="cpu")),
            ('async_tensor_h2d([2**63], dtype=torch.float64, device="cpu")',
             lambda t: t.async_tensor_h2d([2**63], dtype=torch.float64, device="cpu")),
        ],
    ),
    (
        "b02_typed_leaf_scan_pops",
        "_host._has_typed_leaf",
        [
            ('d = [[1, 2], [3, 4]]; async_tensor_h2d(d, device="cpu"); d', _b02),
            ('d = [1, np.float16(2)]; async_tensor_h2d(d, device="cpu"); d', _b02_typed),
        ],
    ),
    (
        "b03_none_leaf_as_nan",
        "_host._list_to_array",
        [('async_tensor_h2d([1.0, None], device="cpu")', lambda t: t.async_tensor_h2d([1.0, None], device="cpu"))],
    ),
    (
        "b04_preview_via_numpy",
        "_host.describe",
        [
            ('async_tensor_h2d([[1], [1, 2]], device="cpu")', lambda t: t.async_tensor_h2d([[1], [1, 2]], device="cpu")),
            ('async_tensor_h2d([torch.ones(2, requires_grad=True)], device="cpu")',
             lambda t: t.async_tensor_h2d([torch.ones(2, requires_grad=True)], device="cpu")),
        ],
    ),
    (
        "b05_overlap_unit_dims",
        "h2d._may_overlap",
        [(
            "async_tensor_h2d([[1.0, 2.0, 3.0]], out=torch.from_numpy(np.zeros(3, np.float32)[None]))",
            lambda t: t.async_tensor_h2d([[1.0, 2.0, 3.0]], out=torch.from_numpy(np.zeros(3, np.float32)[None])),
        )],
    ),
    (
        "b06_overlap_start_inside",
        "h2d._shares_memory",
        [
            ("b = torch.arange(8.0); async_tensor_h2d(b[0:8:2], out=b[2:6])", _b06),
            ("b = torch.arange(8.0); async_tensor_h2d(b[0:4], out=b[2:6])",
             lambda t: (lambda b: t.async_tensor_h2d(b[0:4], out=b[2:6]))(torch.arange(8.0))),
        ],
    ),
    (
        "b07_device_spelling_folded",
        "h2d._resolve_uncached",
        [('async_tensor_h2d([1], device="CPU")', lambda t: t.async_tensor_h2d([1], device="CPU"))],
    ),
    (
        "b08_empty_cache_synchronizes",
        "_staging.empty_staging_cache",
        [("empty_cache()  (the target's empty_staging_cache, CPU-only host)", lambda t: t.empty_cache())],
    ),
    (
        "b09_buffer_rows_last_dim",
        "buffer.CpuGpuBuffer.copy_to_gpu",
        [('b = CpuGpuBuffer(2, 3, dtype=torch.int32, device="cpu"); b.np[:] = [[1, 2, 3], [4, 5, 6]]; b.copy_to_gpu(1)', _b09)],
    ),
    (
        "b10_buffer_numpy_quietly_off",
        "buffer.CpuGpuBuffer.__init__",
        [('CpuGpuBuffer(4, dtype=torch.bfloat16, device="cpu"); .np', _b10)],
    ),
    (
        "b11_copy_to_cpu_numpy_view",
        "buffer.CpuGpuBuffer.copy_to_cpu",
        [('b = CpuGpuBuffer(3, dtype=torch.int32, device="cpu"); b.gpu.fill_(5); b.copy_to_cpu(2)', _b11)],
    ),
    (
        "b12_staged_values_via_numpy",
        "buffer_utils.StagedWriteTensor.stage_write",
        [
            ('t = StagedWriteTensor(2, torch.int32, "cpu"); t.stage_write(0, 0, (v for v in [7])); t.apply_write(); t.gpu', _b12),
            ('t = StagedWriteTensor((1, 2), torch.int32, "cpu"); t.stage_write(0, 0, [True, 2]); t.apply_write(); t.gpu', _b12_bool),
        ],
    ),
    (
        "b13_staged_write_clipped",
        "buffer_utils.StagedWriteTensor.stage_write",
        [('t = StagedWriteTensor((1, 3), torch.int32, "cpu"); t.stage_write(0, 2, [7, 8]); t.apply_write(); t.gpu', _b13)],
    ),
    (
        "b14_pool_flat_rows_reshaped",
        "buffer_utils.UvaBufferPool.copy_to_uva",
        [("UvaBufferPool((2, 3), torch.int32).copy_to_uva([[1, 2], [3, 4], [5, 6]])", _b14)],
    ),
    (
        "b15_pool_arrays_from_numpy",
        "buffer_utils.UvaBufferPool.copy_to_uva",
        [("UvaBufferPool(3, torch.int32).copy_to_uva(np.array([3, 2, 1], np.int32)[::-1])", _b15)],
    ),
    (
        "b16_fused_strides_1d_skipped",
        "buffer_utils.FusedStagedWriter.apply",
        [(
            't = StagedWriteTensor(4, torch.int32, "cpu"); t.stage_write(1, 0, [5]); '
            'FusedStagedWriter("cpu", 1).apply([t], tensor([t.gpu.data_ptr()], uint64), torch.tensor([2]))',
            _b16,
        )],
    ),
    (
        "b17_pool_rank_check_dropped",
        "buffer_utils.UvaBufferPool.copy_to_uva",
        [("UvaBufferPool(3, torch.int32).copy_to_uva(np.array(5))",
          lambda t: t.buffer_utils.UvaBufferPool(3, torch.int32).copy_to_uva(np.array(5)))],
    ),
]


# ---------------------------------------------------------------------------------------
# GPU-only bugs: (module, where, [(call as text, call(target))], GPU input that shows it)
# ---------------------------------------------------------------------------------------




def _calls_h2d(extra: list[tuple[str, Callable[[Any], Any]]] = ()) -> list[tuple[str, Callable[[Any], Any]]]:
    base = [
        ('async_tensor_h2d([1, 2, 3], device="cpu")', lambda t: t.async_tensor_h2d([1, 2, 3], device="cpu")),
        ('async_tensor_h2d(np.arange(5.0), device="cpu", dtype=torch.float16)',
         lambda t: t.async_tensor_h2d(np.arange(5.0), device="cpu", dtype=torch.float16)),
        ('async_tensor_h2d(torch.arange(6).reshape(2, 3).t(), device="cpu")',
         lambda t: t.async_tensor_h2d(torch.arange(6).reshape(2, 3).t(), device="cpu")),
        ("async_tensor_h2d([1.5, 2.5], out=torch.zeros(2))", lambda t: t.async_tensor_h2d([1.5, 2.5], out=torch.zeros(2))),
        ('async_tensor_h2d([1, 2, 3], device="cuda:0")', lambda t: t.async_tensor_h2d([1, 2, 3], device="cuda:0")),
        ('async_tensor_h2d_cpu([1, 2, 3], device="cpu")', lambda t: t.cpu_variant([1, 2, 3], device="cpu")),
        ("empty_cache()", lambda t: t.empty_cache()),
    ]
    return base + list(extra)


def _pool_calls(t: Any) -> Any:
    outs = []
    for i in range(5):  # five 256 KiB host calls, then four 4 MiB ones
        outs.append(int(t.async_tensor_h2d(np.full(65536, i, np.int32), device="cpu").sum()))
    for i in range(4):
        outs.append(int(t.async_tensor_h2d(np.full(1 << 20, i, np.int32), device="cpu").sum()))
    return outs


def _buf_pinned(t: Any, **kw: Any) -> Any:
    b = t.buffer_cls(4, dtype=torch.int32, device="cpu", **kw)
    b.np[:] = [1, 2, 3, 4]
    return b.cpu.is_pinned(), b.copy_to_gpu(2), b.gpu, b.copy_to_cpu()


def _staged(t: Any) -> Any:
    s = t.buffer_utils.StagedWriteTensor((2, 3), torch.int32, "cpu")
    s.stage_write(0, 0, [1, 2, 3])
    s.stage_write(0, 1, [9])
    s.stage_write_elem(1, 4)
    s.apply_write()
    u = t.buffer_utils.StagedWriteTensor(3, torch.float32, "cpu", uva_instead_of_gpu=True)
    u.stage_write(2, 0, [1.5])
    t.buffer_utils.FusedStagedWriter("cpu", 2).apply(
        [s, u], torch.tensor([s.gpu.data_ptr(), u.gpu.data_ptr()], dtype=torch.uint64), torch.tensor([3, 1])
    )
    return s.gpu, u.gpu


def _staged_bad(t: Any) -> Any:
    s = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
    s.stage_write(0, 0, [2**31])
    return s.apply_write()


def _pool_growth(t: Any) -> Any:
    p = t.buffer_utils.UvaBufferPool(4, torch.int32, 2)
    views = [p.copy_to_uva(np.full(n, v, np.int32)) for n, v in ((4, 1), (4, 2), (8, 3), (8, 4), (16, 5))]
    return [v.clone() for v in views[-2:]]


def _backed(t: Any) -> Any:
    b = t.buffer_utils.UvaBackedTensor((3, 2), torch.int64, 2)
    b.np[:] = [[1, 2], [3, 4], [5, 6]]
    g = b.copy_to_uva(2)
    return g is b.gpu, g


def _pool_gpu(t: Any) -> Any:
    p = t.buffer_utils.UvaBufferPool((2, 3), torch.float32)
    a = p.copy_to_uva(torch.ones(2, 3))
    b = p.copy_to_gpu([[1.0, 2.0, 3.0]])
    out = torch.zeros(3, 3)
    c = p.copy_to_gpu(np.full((3, 3), 7.0), out=out)
    return a, b, c is out, c


GPU_BUGS: list[tuple[str, str, list[tuple[str, Callable[[Any], Any]]], str]] = [
    (
        "b18_host_results_pinned",
        "h2d._async_h2d (host-target branch)",
        _calls_h2d(),
        'r = async_tensor_h2d([1, 2, 3], device="cpu"); r.is_pinned()  ->  reference False, bug True '
        '(and torch.cuda.host_memory_stats()["allocated_bytes.current"] grows with every result kept)',
    ),
    (
        "b19_small_staging_pageable",
        "h2d._to_device (small-payload branch)",
        _calls_h2d([("five 256 KiB then four 4 MiB host calls (sums)", _pool_calls)]),
        'torch.cuda._sleep(int(2e9)); t0 = time.perf_counter(); async_tensor_h2d([1, 2, 3], device="cuda:0"); '
        "time.perf_counter() - t0  ->  reference: microseconds; bug: about the queued sleep (a pageable copy waits for "
        'the stream); torch.profiler shows "Memcpy HtoD (Pageable -> Device)" for the bug',
    ),
    (
        "b20_small_offset_kept",
        "_staging.StagingPool.small_tensor",
        _calls_h2d([("five 256 KiB then four 4 MiB host calls (sums)", _pool_calls)]),
        'for i in range(5): async_tensor_h2d(np.full(65536, i, np.int32), device="cuda:0")  ->  reference: five '
        "results; bug: the fifth call (first slice of the second 1 MiB chunk) raises RuntimeError: setStorage: ... "
        "out of bounds, and so does every later call of at most 256 KiB",
    ),
    (
        "b21_pool_caps_swapped",
        "_staging.pool_for",
        _calls_h2d([("five 256 KiB then four 4 MiB host calls (sums)", _pool_calls)]),
        'a = np.ones(16 << 20, np.int32) (64 MiB); torch.cuda._sleep(int(2e9)); e = torch.cuda.Event(); e.record(); '
        'two calls async_tensor_h2d(a, device="cuda:0"), e.query() after the second  ->  reference: False (both '
        "returned while the sleep runs); bug: True (the second call waited for the first block's copy, behind the sleep)",
    ),
    (
        "b22_cap_wait_on_stream",
        "_staging.StagingPool._take",
        _calls_h2d([("five 256 KiB then four 4 MiB host calls (sums)", _pool_calls)]),
        "torch.cuda._sleep(int(4e9)); rs = [async_tensor_h2d(np.full(64 << 20, i, np.int32), device=\"cuda:0\") "
        "for i in range(1, 6)] (four 256 MiB blocks fill the 1 GiB cap); torch.cuda.synchronize(); rs[0].unique()  ->  "
        "reference tensor([1]); bug tensor([5]) (block 1 refilled by call 5 before its copy ran)",
    ),
    (
        "b23_buffer_pin_cuda_only",
        "buffer.CpuGpuBuffer.__init__",
        [
            ('CpuGpuBuffer(4, int32, device="cpu", pin_memory=True): is_pinned, copy_to_gpu(2), .gpu, copy_to_cpu()',
             lambda t: _buf_pinned(t, pin_memory=True)),
            ('CpuGpuBuffer(4, int32, device="cpu"): is_pinned, copy_to_gpu(2), .gpu, copy_to_cpu()', _buf_pinned),
            ('CpuGpuBuffer(4, int32, device="cuda")', lambda t: t.buffer_cls(4, dtype=torch.int32, device="cuda")),
        ],
        'CpuGpuBuffer(4, dtype=torch.int32, device="cpu", pin_memory=True).cpu.is_pinned()  ->  reference True, bug False',
    ),
    (
        "b24_staged_index_bound_sync",
        "buffer_utils._write",
        [
            ("StagedWriteTensor writes (overlapping, elem, UVA flag) + FusedStagedWriter.apply", _staged),
            ("StagedWriteTensor(2, int32).stage_write(0, 0, [2**31]); apply_write()", _staged_bad),
        ],
        't = StagedWriteTensor(4, torch.int32, "cuda:0"); t.stage_write(0, 0, [1]); torch.cuda._sleep(int(2e9)); '
        "time t.apply_write() on the host  ->  reference: well under a millisecond; bug: about the queued sleep "
        "(int(where.max()) waits for the stream)",
    ),
    (
        "b25_pool_retired_latest_only",
        "buffer_utils.UvaBufferPool._retire",
        [
            ("UvaBufferPool(4, int32, 2): five steps of 4, 4, 8, 8, 16 rows (slots grow)", _pool_growth),
            ("UvaBackedTensor((3, 2), int64, 2).copy_to_uva(2)", _backed),
        ],
        "p = UvaBufferPool(4, torch.int32, 2); torch.cuda._sleep(int(2e9)); v = p.copy_to_uva(np.full(4, 1, np.int32)); "
        "r = v.clone(); del v; p.copy_to_uva(np.full(4, 2, np.int32)); p.copy_to_uva(np.full(8, 3, np.int32)); "
        "p.copy_to_uva(np.full(8, 4, np.int32)); xs = [torch.full((4,), 9, dtype=torch.int32).pin_memory() for _ in range(8)]; "
        "torch.cuda.synchronize(); r  ->  reference [1, 1, 1, 1]; bug [9, 9, 9, 9] (the dropped block reused)",
    ),
    (
        "b26_pool_slots_copy_backed",
        "buffer_utils.UvaBufferPool.__init__",
        [
            ("UvaBufferPool((2, 3), float32): copy_to_uva, copy_to_gpu, copy_to_gpu(out=)", _pool_gpu),
            ("UvaBufferPool(4, int32, 2): five steps of 4, 4, 8, 8, 16 rows (slots grow)", _pool_growth),
            ("UvaBackedTensor((3, 2), int64, 2).copy_to_uva(2)", _backed),
        ],
        "p = UvaBufferPool(1 << 20, torch.int32); torch.cuda._sleep(int(2e9)); time p.copy_to_uva(np.ones(1 << 20, "
        "np.int32)) on the host  ->  reference: about a millisecond, a UVA view of the pinned slot; bug: about the "
        "queued sleep (a pageable non_blocking copy syncs the stream), a view in device memory",
    ),
    (
        "b27_uva_empty_after_pin_check",
        "buffer_utils.uva_view",
        [
            ("UvaBuffer(0, torch.int32)", lambda t: t.buffer_utils.UvaBuffer(0, torch.int32)),
            ("UvaBuffer(4, torch.int32)", lambda t: t.buffer_utils.UvaBuffer(4, torch.int32)),
            ("UvaBufferPool((0, 4), torch.int32).copy_to_uva(np.ones((2, 4)))",
             lambda t: t.buffer_utils.UvaBufferPool((0, 4), torch.int32).copy_to_uva(np.ones((2, 4)))),
            ('StagedWriteTensor((0, 4), int32, "cpu", uva_instead_of_gpu=True).gpu',
             lambda t: t.buffer_utils.StagedWriteTensor((0, 4), torch.int32, "cpu", uva_instead_of_gpu=True).gpu),
        ],
        "UvaBuffer(0, torch.int32)  (or UvaBufferPool((0, 4), torch.int32))  ->  reference: built, uva() an empty "
        "CUDA tensor; bug: ValueError: cpu must be a pinned host tensor (a UVA view maps pinned memory)",
    ),
]


def main() -> int:
    print(f"round r46 reproductions: torch {torch.__version__}, numpy {np.__version__}, "
          f"CUDA available: {torch.cuda.is_available()}")
    print(f"control: {CONTROL.name}\n")
    failures = []
    print("=" * 100)
    print(f"CPU-visible bugs ({len(CPU_BUGS)}): reference (control b00) vs bug on the same input")
    print("=" * 100)
    for name, where, rows in CPU_BUGS:
        bug = _target(name)
        print(f"\n{name}  [CPU]  {where}")
        for text, call in rows:
            ref_out = outcome(lambda call=call: call(CONTROL))
            bug_out = outcome(lambda call=call: call(bug))
            print(f"  input:     {text}")
            print(f"  reference: {short(ref_out)}")
            print(f"  bug:       {short(bug_out)}")
            if ref_out == bug_out:
                failures.append(f"{name}: no difference on {text}")
        assert not any(f.startswith(name + ":") for f in failures), f"{name}: the bug does not differ"
    print()
    print("=" * 100)
    print(f"GPU-only bugs ({len(GPU_BUGS)}): same public calls on this CPU-only host, bug == control")
    print("=" * 100)
    for name, where, rows, gpu in GPU_BUGS:
        bug = _target(name)
        print(f"\n{name}  [GPU-only]  {where}")
        for text, call in rows:
            ref_out = outcome(lambda call=call: call(CONTROL))
            bug_out = outcome(lambda call=call: call(bug))
            same = ref_out == bug_out
            print(f"  {'same' if same else 'DIFFERS'}: {short(text, 110)}")
            print(f"        -> {short(ref_out, 140)}")
            if not same:
                print(f"        bug -> {short(bug_out, 140)}")
                failures.append(f"{name}: differs on CPU for {text}")
        print(f"  on one CUDA GPU: {gpu}")
        assert not any(f.startswith(name + ":") for f in failures), f"{name}: differs on the CPU host"
    print()
    if failures:
        print("FAILURES:\n  " + "\n  ".join(failures))
        return 1
    print(f"all {len(CPU_BUGS)} CPU-visible bugs differ from the control; "
          f"all {len(GPU_BUGS)} GPU-only bugs behave as the control on this host")
    return 0


if __name__ == "__main__":
    sys.exit(main())
