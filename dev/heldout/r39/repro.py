"""Round r39: show every CPU-visible bug on this (CPU-only) host, and that the GPU-only ones are not visible here.

For each CPU-visible bug ``bNN``, ``PROBES[bNN]`` runs its smallest input against a
target and reduces what happened to a comparable *outcome* (values, dtype, device and
shape of results, the state of the caller's objects, or the exception's type and first
line). The probe runs against the plain reference (``h2d_contracts.h2d_impl`` itself),
against ``b00_control.target()`` and against the bug's ``target()``:

- the control must agree with the plain reference on every probe;
- ``BUGGY``: the bug's outcome differs from the control's; ``FAIL``: they agree;
- every GPU-only bug must agree with the control on *every* probe (its CPU parity),
  printed as ``SAME``; any difference is a failure.

Exit status: nonzero if a CPU-visible bug is not BUGGY, the control disagrees with the
reference, a GPU-only bug differs on this host, or a module fails to import or build.

Run: ``cd /tmp/r39/author && PYTHONPATH=. /work/main/.venv/bin/python r39/repro.py``
"""

from __future__ import annotations

import gc
import importlib
import pkgutil
import sys
import traceback
import types
import warnings
from decimal import Decimal
from typing import Any, Callable

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as ref_bu

import r39
from r39._common import make_target

warnings.filterwarnings("ignore", category=UserWarning)


def _tensor(t: torch.Tensor) -> tuple:
    info = (type(t).__name__, str(t.dtype), str(t.device), tuple(t.shape), t.is_inference())
    if t.device.type == "meta":
        return info + ("<meta: no data>",)
    if t.layout != torch.strided:
        return info + (str(t.layout),)
    v = t.detach()
    if v.dtype in (torch.bfloat16, torch.float16) or str(v.dtype).startswith("torch.float8"):
        v = v.float()
    if v.dtype in (torch.uint16, torch.uint32):
        v = v.to(torch.int64)
    if v.dtype == torch.uint64:
        return info + (tuple(int(x) for x in v.numpy().ravel()),)
    return info + (tuple(np.asarray(v.resolve_conj().resolve_neg().numpy()).ravel().tolist()),)


def digest(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return _tensor(x)
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.shape, tuple(x.ravel().tolist()))
    if isinstance(x, (list, tuple)):
        return tuple(digest(v) for v in x)
    if isinstance(x, dict):
        return tuple(sorted((k, digest(v)) for k, v in x.items()))
    return x


def short(x: Any, limit: int = 240) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 30] + f" ... <{len(text)} chars>" + text[-20:]


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("ok", digest(fn()))
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome
        return ("raise", type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")


# ----------------------------------------------------------------------------- probes
# Each probe takes a Target and returns a zero-argument callable whose result (or exception) is the outcome.


class Logged(torch.Tensor):
    """A tensor subclass that records the torch functions it sees (an engine's logging / sharding wrapper)."""

    calls: list[str] = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs or {})


def p_b01(t):
    return lambda: t.async_tensor_h2d([Decimal("1.5")], device="cpu")


def p_b02(t):
    return lambda: t.async_tensor_h2d(torch.empty(1, device="meta"), device="cpu")


def p_b03(t):
    def run():
        Logged.calls = []
        out = torch.zeros(1).as_subclass(Logged)
        r = t.async_tensor_h2d([1.0], out=out)
        seen = "copy_" in Logged.calls
        return (r is out, torch.Tensor.tolist(out.as_subclass(torch.Tensor)), "subclass saw copy_" if seen else "subclass saw no copy_")

    return run


def p_b04(t):
    return lambda: t.async_tensor_h2d(
        torch.arange(40000, dtype=torch.float32).reshape(200, 200).t(), dtype=torch.float16, device="cpu"
    )


def p_b05(t):
    def run():
        b = t.buffer_cls(4, dtype=torch.int32, device="cpu", pin_memory=1)
        return ("built", b.cpu.is_pinned())

    return run


def p_b06(t):
    def run():
        b = t.buffer_cls(4, dtype=torch.int32, device="meta")
        return ("built", str(b.gpu.device))

    return run


def p_b07(t):
    return lambda: t.async_tensor_h2d([2**63], dtype=torch.uint64, device="cpu")


def p_b08(t):
    def run():
        with torch.device("meta"):
            v = t.buffer_utils.UvaBufferPool(4, torch.int32).copy_to_uva([1, 2])
        return v

    return run


def p_b09(t):
    return lambda: t.async_tensor_h2d([np.float32(1.5), 2.5], device="cpu")


def p_b10(t):
    return lambda: t.async_tensor_h2d([-1, 2**63, float("nan")], device="cpu")


def p_b11(t):
    return lambda: t.async_tensor_h2d([[1.0]], out=torch.zeros(1, 1).to_sparse_csr())


def p_b12(t):
    def run():
        s = t.buffer_utils.StagedWriteTensor(4, torch.int32, "cpu")
        s.stage_write_elem(0, 5)
        s.apply_write()
        first = s.gpu.tolist()
        s.stage_write_elem(0, 7)
        s.apply_write()
        return (first, s.gpu.tolist())

    return run


def p_b13(t):
    return lambda: t.async_tensor_h2d(np.array([1], dtype=np.uint16), device="cpu")


def p_b14(t):
    def run():
        a = t.buffer_cls(4, dtype=torch.int32, device="cpu")
        b = t.buffer_cls(4, dtype=torch.int32, device="cpu")
        a.np[:] = 7
        return (b.np.tolist(), b.cpu is a.cpu)

    return run


def p_b15(t):
    return lambda: t.empty_cache()


def p_b16(t):
    def run():
        bt = t.buffer_utils.UvaBackedTensor(4, torch.int32, max_concurrency=3)
        views = []
        for k in (1, 2, 3):
            bt.np[:] = k
            views.append(bt.copy_to_uva())
        depth0 = outcome(lambda: t.buffer_utils.UvaBackedTensor(4, torch.int32, max_concurrency=0) and "built")
        return (views[0].tolist(), depth0)

    return run


def p_b17(t):
    def run():
        was = gc.isenabled()
        gc.disable()
        try:
            t.async_tensor_h2d([1, 2], device="cpu")
            return ("gc enabled after the call", gc.isenabled())
        finally:
            gc.enable() if was else gc.disable()

    return run


def p_b18(t):
    def run():
        s = t.buffer_utils.StagedWriteTensor(4, torch.int32, "cpu")
        first = outcome(lambda: s.stage_write(0, 0, [True]))
        s.stage_write_elem(1, 5)
        second = outcome(lambda: s.apply_write())
        return (first, second, s.gpu.tolist())

    return run


def p_b19(t):
    return lambda: t.async_tensor_h2d(b"123", device="cpu")


def p_b20(t):
    return lambda: t.cpu_variant([127.5], dtype=torch.int8, device="cpu")


def p_b21(t):
    def run():
        out = torch.zeros(1, dtype=torch.int64)
        r = t.async_tensor_h2d([1], device="cpu:0", out=out)
        return (r is out, out.tolist())

    return run


#: Extra probes of the common paths (for the GPU-only bugs' parity on this host).
def g_list(t):
    return lambda: t.async_tensor_h2d([[1, 2, 3], [4, 5, 6]], device="cpu")


def g_floats_out(t):
    def run():
        out = torch.zeros(2, 3, dtype=torch.float64).t()
        r = t.async_tensor_h2d(np.arange(6, dtype=np.float32).reshape(3, 2), out=out)
        return (r is out, out.tolist(), out._version)

    return run


def g_large(t):
    return lambda: t.async_tensor_h2d(np.arange(300_000, dtype=np.int64)[::-1], dtype=torch.int32, device="cpu")


def g_cpu_variant(t):
    return lambda: t.cpu_variant((1.5, -2.7), dtype=torch.int16, device=torch.device("cpu"))


def g_bad(t):
    return lambda: t.async_tensor_h2d([128.0], dtype=torch.int8, device="cpu")


def g_buffer(t):
    def run():
        b = t.buffer_cls(5, 2, dtype=torch.int64, device="cpu", pin_memory=True)
        b.np[:] = np.arange(10).reshape(5, 2)
        v = b.copy_to_gpu(3)
        b.gpu[4] = 9
        w = b.copy_to_cpu(5)
        return (v.tolist(), b.gpu.tolist(), w.tolist(), b.cpu.is_pinned(), repr(b))

    return run


def g_pool(t):
    def run():
        p = t.buffer_utils.UvaBufferPool(2, torch.int32)
        a = p.copy_to_gpu([1, 2, 3])
        b = p.copy_to_uva(np.array([4, 5], dtype=np.int32))
        return (a, b, outcome(lambda: p.copy_to_uva([[1, 2]])))

    return run


def g_staged_fused(t):
    def run():
        bu = t.buffer_utils
        x = bu.StagedWriteTensor((2, 3), torch.int64, "cpu")
        y = bu.StagedWriteTensor(3, torch.float32, "cpu")
        x.stage_write(1, 1, [7, 8])
        y.stage_write_elem(2, 1.5)
        ptrs = torch.tensor([x.gpu.data_ptr(), y.gpu.data_ptr()], dtype=torch.uint64)
        strides = torch.tensor([x.gpu.stride(0), y.gpu.stride(0)], dtype=torch.int64)
        bu.FusedStagedWriter("cpu", 0).apply([x, y], ptrs, strides)
        return (x.gpu, y.gpu, outcome(lambda: bu.UvaBuffer(4, torch.int32)))

    return run


def g_stats(t):
    return lambda: (t.empty_cache(), h2d_impl.staging_stats())


PROBES: dict[str, Callable] = {
    name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("p_b") and callable(fn)
}
GENERIC: dict[str, Callable] = {
    name: fn for name, fn in sorted(globals().items()) if name.startswith("g_") and callable(fn)
}


def reference_target():
    """The plain reference, not forked: the h2d_impl package's own functions and classes."""
    return make_target("reference", buffer_utils=types.SimpleNamespace(
        **{n: getattr(ref_bu, n) for n in ("UvaBuffer", "NonUvaBuffer", "UvaBufferPool", "UvaBackedTensor", "StagedWriteTensor", "FusedStagedWriter")}
    ))


def main() -> int:
    mods: dict[str, Any] = {}
    failures: list[str] = []
    for info in pkgutil.iter_modules(r39.__path__):
        if not (info.name.startswith("b") and info.name[1:3].isdigit()):
            continue
        try:
            m = importlib.import_module(f"r39.{info.name}")
            m.target()
            mods[info.name] = m
        except Exception:  # noqa: BLE001
            failures.append(f"{info.name}: import/build failed")
            traceback.print_exc()
    control = mods.pop("b00_control")
    all_probes = {**{f"p_{k}": v for k, v in PROBES.items()}, **GENERIC}

    def run(mod_or_ref: Any, probe: Callable) -> Any:
        t = mod_or_ref() if callable(mod_or_ref) else mod_or_ref.target()
        return outcome(probe(t))

    ref_out = {k: run(reference_target, p) for k, p in all_probes.items()}
    ctl_out = {k: run(control, p) for k, p in all_probes.items()}
    print("== control vs plain reference")
    for k in all_probes:
        same = ref_out[k] == ctl_out[k]
        if not same:
            failures.append(f"control disagrees with the reference on {k}")
        print(f"  {'agree' if same else 'DISAGREE'}  {k}")

    cpu = sorted(n for n, m in mods.items() if "(CPU-visible" in (m.__doc__ or "").splitlines()[0])
    gpu = sorted(n for n, m in mods.items() if "(GPU-only" in (m.__doc__ or "").splitlines()[0])
    other = sorted(set(mods) - set(cpu) - set(gpu))
    for n in other:
        failures.append(f"{n}: first docstring line says neither CPU-visible nor GPU-only")

    print("\n== CPU-visible bugs (smallest input: control vs bug)")
    buggy = 0
    for n in cpu:
        key = n.split("_")[0]
        probe = PROBES.get(key)
        if probe is None:
            failures.append(f"{n}: no probe")
            print(f"FAIL   {n}: no probe")
            continue
        got = run(mods[n], probe)
        want = ctl_out[f"p_{key}"]
        if got != want:
            buggy += 1
            print(f"BUGGY  {n}\n         control: {short(want)}\n         bug:     {short(got)}")
        else:
            failures.append(f"{n}: not buggy on its smallest input")
            print(f"FAIL   {n}\n         both:    {short(got)}")

    print("\n== GPU-only bugs (every probe on this host: must agree with the control)")
    same_n = 0
    for n in gpu:
        diffs = [k for k, p in all_probes.items() if run(mods[n], p) != ctl_out[k]]
        if diffs:
            failures.append(f"{n}: differs from the control on this CPU-only host: {diffs}")
            print(f"DIFF   {n}: {diffs}")
        else:
            same_n += 1
            print(f"SAME   {n} ({len(all_probes)} probes)")

    print(
        f"\nsummary: {buggy}/{len(cpu)} CPU-visible bugs BUGGY; {same_n}/{len(gpu)} GPU-only bugs SAME as the "
        f"control on this host; control agrees with the reference on {sum(ref_out[k] == ctl_out[k] for k in all_probes)}/"
        f"{len(all_probes)} probes; {len(failures)} failure(s)"
    )
    for f in failures:
        print("  failure:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
