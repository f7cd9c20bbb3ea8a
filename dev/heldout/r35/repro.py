"""Round r35: the smallest input of every CPU-visible bug, run through the bug's target and the reference.

    PYTHONPATH=/work/main:/work/r35_bugs python repro.py

For each CPU bug prints ``bNN buggy`` when the bug's outcome differs from the reference's
(``bNN NOT BUGGY`` would be a failure of this round), and for every one of those inputs
``b00 not buggy`` for the control (the unmodified reference as a target) and for an
empty fork (the ``_common.fork`` plumbing with no override). For each GPU-only bug: the
same outcome as the reference for ``device="cpu"`` over a table of inputs (values, dtype,
shape, strides, exception types, buffers), plus, where the mechanism can be driven on
the host, the internal decision that differs on a GPU. Exit status 1 if any expectation fails.
"""

from __future__ import annotations

import gc
import importlib
import sys
import time
import warnings
import weakref

import numpy as np
import torch

from h2d_contracts.h2d_impl import _host as _ref_host, _staging as _ref_staging_mod, buffer as _ref_buffer, h2d as _ref_h2d_mod

_REF_MODULES = (_ref_host, _ref_staging_mod, _ref_buffer, _ref_h2d_mod)
_BEFORE = {(m.__name__, k): v for m in _REF_MODULES for k, v in vars(m).items()}
_BEFORE_CLASSES = {c: dict(vars(c)) for c in (_ref_buffer.CpuGpuBuffer, _ref_staging_mod.StagingPool)}

import r35  # noqa: E402
from r35._common import fork, fork_target, make_target  # noqa: E402

REF = make_target("reference")
CONTROL = importlib.import_module("r35.b00_control").target()
EMPTY_FORK = fork_target("b00-empty-fork", fork("empty"))

FAILURES: list[str] = []


# -- outcomes -----------------------------------------------------------------------------


def _readable(values) -> str:
    text = repr(values)
    return text if len(text) <= 48 else text[:45] + "..."


def tensor_summary(x: torch.Tensor) -> tuple:
    if x.device.type == "meta":
        payload, readable = "meta", "<meta>"
    else:
        flat = x.detach().contiguous().reshape(-1)
        payload = flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
        readable = _readable(x.detach().tolist()) if x.dtype not in (torch.complex32,) else _readable(x.detach().to(torch.complex64).tolist())
    return ("tensor", readable, str(x.dtype), tuple(x.shape), tuple(x.stride()), str(x.device), x.requires_grad, payload)


def summary(x) -> tuple:
    if isinstance(x, torch.Tensor):
        return tensor_summary(x)
    if isinstance(x, np.ndarray):
        return ("ndarray", _readable(x.tolist()), str(x.dtype), x.shape, x.strides, x.tobytes())
    if isinstance(x, (tuple, list)):
        return ("seq",) + tuple(summary(v) for v in x)
    return ("value", repr(x))


def outcome(fn) -> tuple:
    """Run ``fn()``; its result's summary, or the exception's type."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", summary(fn()))
    except Exception as exc:  # noqa: BLE001 - the type is the outcome
        return ("raise", type(exc).__name__)


def pretty(s: tuple) -> str:
    kind = s[0]
    if kind == "tensor":
        _, readable, dtype, shape, stride, device, rg, _payload = s
        extra = f", device={device}" if device != "cpu" else ""
        return f"tensor({readable}, {dtype.replace('torch.', '')}, shape={shape}, stride={stride}{extra})"
    if kind == "ndarray":
        return f"ndarray({s[1]}, {s[2]}, shape={s[3]})"
    if kind == "seq":
        return "(" + ", ".join(pretty(v) for v in s[1:]) + ")"
    return s[1]


def short(o: tuple) -> str:
    if o[0] == "raise":
        return f"raises {o[1]}"
    if o[0] == "ok":
        return pretty(o[1])
    return "; ".join(short(p) if isinstance(p, tuple) and p and p[0] in ("ok", "raise") else f"{p[0]}: {p[1]}" for p in o)


# -- CPU cases: each takes a Target, returns a comparable outcome ------------------------


def c01(t):
    return outcome(lambda: t.buffer_cls(4, dtype=torch.int32, device="cpu", pin_memory=True).cpu)


def c02(t):
    def run():
        seen = []
        for _ in range(16):
            dirty = torch.full((1024,), 7, dtype=torch.int32)
            del dirty
            buf = t.buffer_cls(1024, dtype=torch.int32, device="cpu")
            seen.append(bool(buf.cpu.any()) or bool(buf.np.any()))
            del buf
        return f"nonzero .cpu seen: {any(seen)}"

    return outcome(run)


def c03(t):
    return outcome(lambda: t.buffer_cls(4, dtype=torch.int32, device="cpu").copy_to_gpu(4))


def c04(t):
    return outcome(lambda: t.async_tensor_h2d([True, False], device="cpu"))


def c05(t):
    out = torch.zeros(1, dtype=torch.uint8)
    res = outcome(lambda: t.async_tensor_h2d([300], out=out))
    return (res, ("out after", out.tolist()))


def c06(t):
    def run():
        buf = t.buffer_cls(2, 3, dtype=torch.int32, device="cpu")
        buf.np[:] = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
        ret = buf.copy_to_gpu(1)
        return (ret, buf.gpu)

    return outcome(run)


def c07(t):
    return outcome(lambda: t.async_tensor_h2d([1], dtype=torch.complex64, device="cpu"))


def c08(t):
    return outcome(lambda: t.cpu_variant([1]))


def c09(t):
    x = torch.tensor([1.0], requires_grad=True)
    res = outcome(lambda: t.async_tensor_h2d(x, device="cpu"))
    return (res, ("x.requires_grad after", x.requires_grad))


def c10(t):
    a = np.arange(4).reshape(2, 2).T[:, ::-1]
    return outcome(lambda: t.async_tensor_h2d(a, device="cpu"))


def c11(t):
    return outcome(lambda: t.async_tensor_h2d([1.0], out=torch.empty(1, device="meta")))


def c12(t):
    return outcome(lambda: t.async_tensor_h2d([0], dtype=torch.complex32, device="cpu"))


def c13(t):
    return outcome(lambda: t.buffer_cls(2, dtype=torch.int32, device="cpu", with_numpy=False).np)


def c14(t):
    return outcome(lambda: t.buffer_cls(2, 3, dtype=torch.int32, device="cpu").copy_to_gpu(3))


def c15(t):
    a = np.arange(32769, dtype=np.int32)
    res = outcome(lambda: t.async_tensor_h2d(a, device="cpu"))
    return (res, ("input intact", bool((a == np.arange(32769, dtype=np.int32)).all())))


def c16(t):
    def run():
        buf = t.buffer_cls(3, dtype=torch.int32, device="cpu")
        buf.gpu.fill_(5)
        ret = buf.copy_to_cpu(2)
        return (ret, buf.cpu, buf.gpu)

    return outcome(run)


def c17(t):
    return outcome(lambda: t.async_tensor_h2d([[1, 300]], dtype=torch.uint8, device="cpu"))


def c18(t):
    d = [[1, 2], [3]]
    res = outcome(lambda: t.async_tensor_h2d(d, device="cpu"))
    return (res, ("data after", repr(d)))


def c19(t):
    return outcome(lambda: t.buffer_cls(3, dtype=torch.int32, device="cpu").copy_to_gpu(2))


def c20(t):
    return outcome(lambda: t.async_tensor_h2d(torch.sparse_coo_tensor([[0]], [1.0], (2,)), device="cpu"))


def c21(t):
    return outcome(lambda: t.buffer_cls(4, dtype=torch.uint32, device="cpu").np)


def c22(t):
    def run():
        buf = t.buffer_cls(4, dtype=torch.int32, device="cpu")
        ref = weakref.ref(buf)
        del buf
        gc.collect()
        return f"dropped buffer still referenced: {ref() is not None}"

    return outcome(run)


CPU_CASES = {
    "b01": (c01, "CpuGpuBuffer(4, dtype=int32, device='cpu', pin_memory=True)"),
    "b02": (c02, "free a tensor of 7s, then CpuGpuBuffer(1024, dtype=int32, device='cpu'); .cpu nonzero? (16 tries)"),
    "b03": (c03, "CpuGpuBuffer(4, dtype=int32, device='cpu').copy_to_gpu(4)"),
    "b04": (c04, "async_tensor_h2d([True, False], device='cpu')"),
    "b05": (c05, "async_tensor_h2d([300], out=torch.zeros(1, dtype=torch.uint8)); out after"),
    "b06": (c06, "CpuGpuBuffer(2, 3); .np = 1..6; copy_to_gpu(1) -> (returned, .gpu)"),
    "b07": (c07, "async_tensor_h2d([1], dtype=torch.complex64, device='cpu')"),
    "b08": (c08, "async_tensor_h2d_cpu([1])"),
    "b09": (c09, "x = tensor([1.], requires_grad=True); async_tensor_h2d(x, device='cpu'); x.requires_grad"),
    "b10": (c10, "async_tensor_h2d(np.arange(4).reshape(2, 2).T[:, ::-1], device='cpu')"),
    "b11": (c11, "async_tensor_h2d([1.0], out=torch.empty(1, device='meta'))"),
    "b12": (c12, "async_tensor_h2d([0], dtype=torch.complex32, device='cpu')"),
    "b13": (c13, "CpuGpuBuffer(2, dtype=int32, device='cpu', with_numpy=False).np"),
    "b14": (c14, "CpuGpuBuffer(2, 3, dtype=int32, device='cpu').copy_to_gpu(3)"),
    "b15": (c15, "a = np.arange(32769, dtype=np.int32); async_tensor_h2d(a, device='cpu'); a intact?"),
    "b16": (c16, "CpuGpuBuffer(3); .gpu.fill_(5); copy_to_cpu(2) -> (returned, .cpu, .gpu)"),
    "b17": (c17, "async_tensor_h2d([[1, 300]], dtype=torch.uint8, device='cpu')"),
    "b18": (c18, "d = [[1, 2], [3]]; async_tensor_h2d(d, device='cpu'); d after"),
    "b19": (c19, "CpuGpuBuffer(3, dtype=int32, device='cpu').copy_to_gpu(2)"),
    "b20": (c20, "async_tensor_h2d(torch.sparse_coo_tensor([[0]], [1.0], (2,)), device='cpu')"),
    "b21": (c21, "CpuGpuBuffer(4, dtype=torch.uint32, device='cpu').np"),
    "b22": (c22, "b = CpuGpuBuffer(4, ...); r = weakref.ref(b); del b; gc.collect(); r() alive?"),
}


# -- the GPU-only bugs on device="cpu": a table of inputs, each compared with the reference --


def _inputs():
    """(label, fn(target)) pairs covering lists, arrays, tensors, layouts, out, conversions, errors, buffers."""
    rows: list[tuple[str, object]] = []
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    big = np.arange(300_000, dtype=np.int32)
    mid = np.arange(70_000, dtype=np.float32) / 3
    datas = {
        "int list": [1, 2, 3],
        "float list": [1.5, -0.0, float("nan"), 2.5],
        "bool list": [True, False],
        "nested list": [[1, 2], [3, 4]],
        "mixed list": [1, 2.5, True],
        "empty list": [],
        "scalar": 5,
        "np scalar": np.float32(1.25),
        "0-d array": np.array(7, dtype=np.int16),
        "array": np.arange(6, dtype=np.int64).reshape(2, 3),
        "fortran array": np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)),
        "neg-stride array": np.arange(6, dtype=np.int32)[::-1],
        "byteswapped array": np.arange(4, dtype=">i4"),
        "read-only array": np.broadcast_to(np.arange(3, dtype=np.int8), (2, 3)),
        "tensor": base,
        "transposed tensor": base.t(),
        "column slice": base[:, 1:3],
        "offset view": base[1:, ::2],
        "channels-last": torch.arange(16, dtype=torch.float32).reshape(1, 4, 2, 2).to(memory_format=torch.channels_last),
        "requires-grad tensor": torch.ones(3, requires_grad=True),
        "bf16 tensor": torch.tensor([1.5, -2.25], dtype=torch.bfloat16),
        "70k float32 array": mid,
        "300k int32 array": big,
        "list of arrays": [np.arange(2, dtype=np.int32), np.arange(2, dtype=np.int32)],
    }
    for label, data in datas.items():
        rows.append((f"{label}, device='cpu'", lambda t, d=data: t.async_tensor_h2d(d, device="cpu")))
    for label, dtype in [("int8", torch.int8), ("float16", torch.float16), ("int32", torch.int32), ("complex64", torch.complex64)]:
        rows.append((f"[1.5, -2.7] dtype={label}", lambda t, dt=dtype: t.async_tensor_h2d([1.5, -2.7], dtype=dt, device="cpu")))
    rows.append(("300k int32 -> int64", lambda t: t.async_tensor_h2d(big, dtype=torch.int64, device="cpu")))
    rows.append(("70k float32 -> int32", lambda t: t.async_tensor_h2d(mid, dtype=torch.int32, device="cpu")))
    for label, dev in [("torch.device", torch.device("cpu")), ("cpu:0", "cpu:0"), ("device=cpu via cpu variant", None)]:
        if dev is None:
            rows.append((label, lambda t: t.cpu_variant([1, 2], device="cpu")))
        else:
            rows.append((f"device={label}", lambda t, d=dev: t.async_tensor_h2d([1, 2], device=d)))

    def with_out(t, data, out):
        res = t.async_tensor_h2d(data, out=out)
        return (res is out, out)

    rows.append(("out contiguous", lambda t: with_out(t, [1, 2, 3], torch.zeros(3, dtype=torch.int32))))
    rows.append(("out strided", lambda t: with_out(t, [[1, 2], [3, 4]], torch.zeros(2, 4)[:, ::2])))
    rows.append(("out transposed", lambda t: with_out(t, np.ones((3, 2)), torch.zeros(2, 3).t())))
    rows.append(("out via cpu variant", lambda t: t.cpu_variant([1.5], out=torch.zeros(1, dtype=torch.float64))))
    bad = {
        "ragged": dict(data=[[1], [2, 3]], device="cpu"),
        "nan->int": dict(data=[float("nan")], dtype=torch.int8, device="cpu"),
        "out of range": dict(data=[300], dtype=torch.uint8, device="cpu"),
        "no target": dict(data=[1]),
        "device=cuda": dict(data=[1], device="cuda"),
        "device=cuda:1": dict(data=[1], device="cuda:1"),
        "device=1": dict(data=[1], device=1),
        "device=np.int64(0)": dict(data=[1], device=np.int64(0)),
        "device=cpu:1": dict(data=[1], device="cpu:1"),
        "device=gpu": dict(data=[1], device="gpu:0"),
        "device=meta": dict(data=[1], device="meta"),
        "device=False": dict(data=[1], device=False),
        "wrong out shape": dict(data=[1], out=torch.zeros(2)),
        "dtype mismatch": dict(data=[1], dtype=torch.float64, out=torch.zeros(1)),
        "complex->real": dict(data=[1j], dtype=torch.float32, device="cpu"),
        "string": dict(data="12", device="cpu"),
        "None": dict(data=None, device="cpu"),
        "unsupported dtype": dict(data=[0], dtype=torch.complex32, device="cpu"),
        "out requires grad": dict(data=[1.0], out=torch.zeros(1, requires_grad=True)),
        "out on meta": dict(data=[1.0], out=torch.empty(1, device="meta")),
        "meta data": dict(data=torch.empty(1, device="meta"), device="cpu"),
    }
    for label, kw in bad.items():
        rows.append((f"bad: {label}", lambda t, kw=kw: t.async_tensor_h2d(kw["data"], **{k: v for k, v in kw.items() if k != "data"})))

    def buffer_script(t, **kw):
        buf = t.buffer_cls(5, 3, dtype=torch.int32, device="cpu", **kw)
        seq = [buf.cpu.clone(), buf.cpu.is_pinned(), buf.np.base is not None or True]
        buf.np[:] = np.arange(15, dtype=np.int32).reshape(5, 3)
        seq.append(bool((buf.cpu.numpy() == buf.np).all()))
        seq.append(buf.copy_to_gpu(3))
        seq.append(buf.gpu.clone())
        buf.gpu.fill_(9)
        seq.append(buf.copy_to_cpu(2))
        seq.append(buf.cpu.clone())
        seq.append(buf.copy_to_gpu())
        seq.append(buf.copy_to_cpu())
        return seq

    rows.append(("buffer default", lambda t: buffer_script(t)))
    rows.append(("buffer pin_memory=True", lambda t: buffer_script(t, pin_memory=True)))
    rows.append(("buffer pin_memory=False", lambda t: buffer_script(t, pin_memory=False)))
    rows.append(("buffer bf16 with_numpy", lambda t: t.buffer_cls(2, dtype=torch.bfloat16, device="cpu")))
    rows.append(("buffer bf16 no numpy", lambda t: t.buffer_cls(2, dtype=torch.bfloat16, device="cpu", with_numpy=False).cpu))
    rows.append(("buffer device=cuda", lambda t: t.buffer_cls(2, dtype=torch.int32, device="cuda")))
    rows.append(("buffer copy_to_gpu(5) of 4 rows", lambda t: t.buffer_cls(4, dtype=torch.int32, device="cpu").copy_to_gpu(5)))
    rows.append(("buffer copy_to_gpu(True)", lambda t: t.buffer_cls(4, dtype=torch.int32, device="cpu").copy_to_gpu(True)))
    return rows


def gpu_equivalence(name: str, t) -> int:
    rows = _inputs()
    diffs = []
    for label, fn in rows:
        got, want = outcome(lambda: fn(t)), outcome(lambda: fn(REF))
        if got != want:
            diffs.append(f"{label}: {short(got)} vs reference {short(want)}")
    if diffs:
        FAILURES.append(f"{name} differs from the reference on device='cpu'")
        print(f"{name} DIFFERS from the reference on device='cpu':")
        for d in diffs:
            print("    " + d)
    else:
        print(f"{name} same as reference on device='cpu' ({len(rows)} inputs: values, dtypes, shapes, strides, exception types, buffers)")
    return len(rows)


# -- GPU mechanisms that can be driven on the host ------------------------------------------


class _SimStream:
    """A host stand-in for one idle CUDA stream whose DMAs are slow: enqueued copies run only at ``flush()``."""

    def __init__(self) -> None:
        self.pending: list = []
        self.enqueued = 0
        self.ran = 0

    def enqueue(self, fn) -> None:
        self.pending.append(fn)
        self.enqueued += 1

    def flush(self) -> None:
        for fn in self.pending:
            fn()
        self.ran += len(self.pending)
        self.pending.clear()


class _SimEvent:
    """Completes once every op enqueued on its stream before ``record`` has run (CUDA event semantics)."""

    stream: _SimStream
    pos = 0

    def record(self, stream) -> None:
        self.stream, self.pos = stream, stream.enqueued

    def query(self) -> bool:
        return self.stream.ran >= self.pos

    def synchronize(self) -> None:
        self.stream.flush()


class _SimClock:
    def __init__(self, stream: _SimStream) -> None:
        self.stream = stream

    def stream_key(self) -> int:
        return 1

    def current_stream(self):
        return self.stream

    def event(self):
        return _SimEvent()


def _sim_pool_for(device, chunk_bytes, pin, *, small):
    key = (device, chunk_bytes, pin, small)
    pool = _POOLS.get(key)
    if pool is None:
        cap = SMALL_MAX_RETAINED_BYTES if small else max(MAX_RETAINED_BYTES, 2 * chunk_bytes)
        pool = _POOLS.setdefault(key, StagingPool(device, chunk_bytes, pin=pin, small=small, max_retained=cap, clock=_SIM_CLOCK))
    return pool


def _sim_dma(staging, target, out):
    _SIM_STREAM.enqueue(lambda: out.copy_(staging))  # the DMA reads the staging block when the stream runs it
    return out


def simulated_back_to_back(h2d_overrides: dict, staging_overrides: dict) -> tuple:
    """Two back-to-back 1 MiB staged copies on a simulated idle stream (DMAs deferred), then the stream runs."""
    from r35._common import Raw

    stream = _SimStream()
    f = fork(
        "sim",
        h2d={"_dma": _sim_dma, "_SIM_STREAM": Raw(stream), **h2d_overrides},
        _staging={"pool_for": _sim_pool_for, "_SIM_CLOCK": Raw(_SimClock(stream)), **staging_overrides},
    )
    n = 1 << 18  # int32: 1 MiB, the pooled path's smallest block
    a, b = torch.full((n,), 1, dtype=torch.int32), torch.full((n,), 2, dtype=torch.int32)
    o1, o2 = torch.zeros(n, dtype=torch.int32), torch.zeros(n, dtype=torch.int32)
    cpu = torch.device("cpu")
    f.h2d._copy_pooled(a, torch.int32, cpu, o1, 1 << 20, pin=False)
    f.h2d._copy_pooled(b, torch.int32, cpu, o2, 1 << 20, pin=False)
    stream.flush()
    return (f"result 1 all 1s: {bool((o1 == 1).all())}", f"result 2 all 2s: {bool((o2 == 2).all())}")


def gpu_mechanisms() -> None:
    from h2d_contracts.h2d_impl import h2d as ref_h2d

    b23 = importlib.import_module("r35.b23_dense_is_non_overlapping")
    pinned_like = torch.arange(16, dtype=torch.int32).reshape(4, 4)[:, 1:3]
    f23 = fork("m23", h2d={"_dense": b23._dense})
    r23, g23 = ref_h2d._dense(pinned_like), f23.h2d._dense(pinned_like)
    print(f"  b23: _dense(column slice [:, 1:3] of 4x4): reference {r23}, bug {g23} (True: a pinned view with gaps goes to .to(), pageable temporary on a GPU)")
    if r23 == g23:
        FAILURES.append("b23: mechanism shows no difference")

    b24 = importlib.import_module("r35.b24_block_floor_pow2")
    f24 = fork("m24", h2d={"_copy_pooled": b24._copy_pooled})
    f24ref = fork("m24ref")
    src = torch.arange(262145, dtype=torch.int32)  # 1 MiB + 4 bytes
    cpu = torch.device("cpu")
    got = outcome(lambda: f24.h2d._copy_pooled(src, torch.int32, cpu, None, 1 << 20, pin=False))
    want = outcome(lambda: f24ref.h2d._copy_pooled(src, torch.int32, cpu, None, 1 << 20, pin=False))
    print(f"  b24: _copy_pooled of 1 MiB + 4 B (host pool, no streams): reference {want[0]}, bug {short(got)}")
    if got[0] == want[0]:
        FAILURES.append("b24: mechanism shows no difference")

    b25 = importlib.import_module("r35.b25_device_index_off_by_one")
    one_gpu = {"_cuda_device_count": lambda: 1}
    f25 = fork("m25", h2d={"_resolve_uncached": b25._resolve_uncached, **one_gpu})
    f25ref = fork("m25ref", h2d=one_gpu)
    got = outcome(lambda: f25.h2d._resolve_uncached("cuda:1", "device"))
    want = outcome(lambda: f25ref.h2d._resolve_uncached("cuda:1", "device"))
    print(f"  b25: _resolve_uncached('cuda:1') with 1 visible GPU (count simulated): reference {short(want)}, bug {short(got)}")
    if got == want:
        FAILURES.append("b25: mechanism shows no difference")

    b29 = importlib.import_module("r35.b29_gather_source_offset")
    f29 = fork("m29", h2d={"_gather_span": b29._gather_span})
    view = torch.arange(16, dtype=torch.int32).reshape(4, 4)[:, 1:3]  # storage offset 1
    count = ref_h2d._span_elements(view)
    # On a GPU, span.to(device) is a new tensor at offset 0. On the host .to("cpu") returns the span itself, so
    # the "device" here is torch.int64: .to(torch.int64) also makes a new tensor at offset 0 (values widened).
    got = outcome(lambda: f29.h2d._gather_span(view, count, torch.int64, None).tolist())
    want = outcome(lambda: ref_h2d._gather_span(view, count, torch.int64, None).tolist())
    print(f"  b29: _gather_span of [:, 1:3] (offset 1) from a fresh copy of its span: reference {short(want)}, bug {short(got)}")
    if got == want:
        FAILURES.append("b29: mechanism shows no difference")

    b27 = importlib.import_module("r35.b27_give_back_before_dma")
    b28 = importlib.import_module("r35.b28_first_done_queries_start")
    want = simulated_back_to_back({}, {})
    got27 = simulated_back_to_back({"_copy_pooled": b27._copy_pooled}, {})
    got28 = simulated_back_to_back({}, {"StagingPool": b28.StagingPool})
    print("  b27/b28: simulated idle stream, two back-to-back 1 MiB staged calls (1s, then 2s), the DMAs run after both returned:")
    print(f"    reference: {want}")
    print(f"    b27:       {got27}")
    print(f"    b28:       {got28}")
    for key, got in (("b27", got27), ("b28", got28)):
        if got == want:
            FAILURES.append(f"{key}: simulated mechanism shows no difference")
    if want != ("result 1 all 1s: True", "result 2 all 2s: True"):
        FAILURES.append("simulated reference is wrong")


def main() -> int:
    t0 = time.perf_counter()
    print("== CPU-visible bugs: smallest input, bug vs reference ==")
    for name in r35.CPU_BUGS:
        key = name[:3]
        case, text = CPU_CASES[key]
        t = importlib.import_module(f"r35.{name}").target()
        got, want = case(t), case(REF)
        if got != want:
            print(f"{key} buggy    [{name}] {text}")
            print(f"      bug: {short(got)}")
            print(f"      ref: {short(want)}")
        else:
            FAILURES.append(f"{key} not buggy")
            print(f"{key} NOT BUGGY [{name}] {text}: {short(got)}")
        for cname, ctl in (("b00", CONTROL), ("b00-empty-fork", EMPTY_FORK)):
            c = case(ctl)
            if c != want:
                FAILURES.append(f"{cname} buggy on {key}'s input")
                print(f"  {cname} BUGGY on {key}'s input: {short(c)}")
            else:
                print(f"  {cname} not buggy on {key}'s input")
    print()
    print("== GPU-only bugs: identical to the reference for device='cpu' ==")
    for name in r35.GPU_BUGS:
        gpu_equivalence(f"{name[:3]} [{name}]", importlib.import_module(f"r35.{name}").target())
    for cname, ctl in (("b00", CONTROL), ("b00-empty-fork", EMPTY_FORK)):
        gpu_equivalence(cname, ctl)
    print()
    print("== GPU-only bugs: the mechanism, driven on the host where it can be ==")
    gpu_mechanisms()
    print()
    changed = [k for m in _REF_MODULES for k, v in vars(m).items() if (m.__name__, k) in _BEFORE and _BEFORE[(m.__name__, k)] is not v]
    changed += [f"{c.__name__}.{k}" for c, d in _BEFORE_CLASSES.items() for k, v in vars(c).items() if d.get(k) is not v]
    if changed:
        FAILURES.append(f"reference modules changed: {changed}")
    print(f"reference modules untouched after building and running every target: {not changed}")
    print(f"{len(r35.CPU_BUGS)} CPU bugs, {len(r35.GPU_BUGS)} GPU bugs; {time.perf_counter() - t0:.1f} s")
    if FAILURES:
        print("FAILURES: " + "; ".join(FAILURES))
        return 1
    print("all expectations met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
