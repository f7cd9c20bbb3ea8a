"""Round r38: run each CPU-visible bug's smallest input against the control and the bug.

    cd /work/r38_author && PYTHONPATH=. /work/main/.venv/bin/python r38/repro.py

For every CPU-visible bug (b01-b23) the probe below is run on ``b00_control.target()`` and
on the bug's ``target()``; the outcomes (values, dtypes, identities, exception types and
messages, the state of the caller's objects afterwards) are compared: ``BUGGY`` when they
differ, ``FAIL`` when they agree. Besides:

- every module (GPU-only ones included) is imported and its ``target()`` built;
- every probe is also run on the plain reference (``h2d_impl`` itself, no fork) and must
  agree with the control, plus a battery of ordinary calls (control == reference);
- every probe is run on each GPU-only bug: on a CPU-only host they must agree with the
  control (their difference needs CUDA; see ``gpu_sim.py`` for their mechanisms).
"""

from __future__ import annotations

import importlib
import pathlib
import sys
import warnings
from typing import Any, Callable

import numpy as np
import torch

from r38._common import REFERENCE, buffer_utils_ns, make_target

warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")

HERE = pathlib.Path(__file__).parent
MODULES = sorted(p.stem for p in HERE.glob("b[0-9][0-9]_*.py"))
CPU_BUGS = [m for m in MODULES if 1 <= int(m[1:3]) <= 23]
GPU_BUGS = [m for m in MODULES if int(m[1:3]) >= 24]


def summarize(obj: Any) -> Any:
    """A comparable description of a probe's result."""
    if isinstance(obj, torch.Tensor):
        return ("tensor", str(obj.dtype), tuple(obj.shape), obj.tolist())
    if isinstance(obj, np.ndarray):
        return ("ndarray", str(obj.dtype), obj.shape, obj.tolist())
    if isinstance(obj, (list, tuple)):
        return type(obj)(summarize(o) for o in obj)
    return obj


def outcome(probe: Callable[[Any], Any], target: Any) -> Any:
    try:
        return ("returned", summarize(probe(target)))
    except Exception as exc:  # noqa: BLE001
        return ("raised", type(exc).__name__, str(exc).splitlines()[0][:160])


def catch(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` inside a probe that also reports state after a failure."""
    try:
        return ("ok", summarize(fn()))
    except Exception as exc:  # noqa: BLE001
        return ("raised", type(exc).__name__, str(exc).splitlines()[0][:160])


# ---------------------------------------------------------------------------------------
# the smallest input of each CPU-visible bug (each module's docstring states it)


def p01(t):
    return t.async_tensor_h2d([1], "cpu")


def p02(t):
    return (catch(lambda: t.async_tensor_h2d([0], device="cuda")), catch(lambda: t.cpu_variant([0], device="cuda")))


def p03(t):
    out = torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)])
    return t.async_tensor_h2d([1.0], out=out)


def p04(t):
    with torch.inference_mode():
        r = t.async_tensor_h2d([1], device="cpu")
    return r, r.is_inference()


def p05(t):
    out = torch.zeros(4, dtype=torch.int64)[::2]
    r = t.async_tensor_h2d([1, 2], out=out)
    return r is out, out._base


def p06(t):
    base = torch.arange(8.0)
    res = catch(lambda: t.async_tensor_h2d(base[0:4], out=base[0:8:2]))
    return res, base


def p07(t):
    r = t.async_tensor_h2d(np.full(32769, 1.5, np.float32), dtype=torch.int32, device="cpu")
    return str(r.dtype), tuple(r.shape), sorted(set(r.tolist()))


def p08(t):
    return t.async_tensor_h2d([0], out=torch.tensor([0j], dtype=torch.complex32))


def p09(t):
    a = np.arange(3)
    a.flags.writeable = False
    return catch(lambda: t.async_tensor_h2d(a, device="cpu")), catch(lambda: t.async_tensor_h2d(a, device="cpu"))


def p10(t):
    return t.async_tensor_h2d([2**63], dtype=torch.uint64, device="cpu")


def p11(t):
    return t.async_tensor_h2d(np.arange(4)[::-1], device="cpu")


def p12(t):
    return hasattr(t.buffer_cls(1, dtype=torch.int32, device="cpu", with_numpy=False), "np")


def p13(t):
    return t.buffer_cls(2**63, dtype=torch.int8, device="cpu")


def p14(t):
    b = t.buffer_cls(4, dtype=torch.int32, device="cpu")
    b.cpu[:] = 7
    return catch(lambda: b.copy_to_gpu(torch.tensor([3]))), b.gpu


def p15(t):
    b = t.buffer_cls(2, dtype=torch.int32, device="cpu")
    return b.copy_to_gpu() is b.gpu


def p16(t):
    return tuple(t.buffer_utils.StagedWriteTensor([2, 3], torch.int32, "cpu").gpu.shape)


def p17(t):
    return t.buffer_utils.UvaBufferPool(4, torch.float32).copy_to_uva(torch.tensor([1.5], dtype=torch.bfloat16))


def p18(t):
    s = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
    s.stage_write(0, 0, [5])
    s.apply_write()
    s.stage_write(1, 0, [7])
    return catch(s.apply_write), s.gpu


def p19(t):
    s = t.buffer_utils.StagedWriteTensor(4, torch.int32, "cpu")
    s.stage_write(0, 0, [5])
    s.stage_write(1, 0, [7])
    return catch(s.apply_write), s.gpu


def p20(t):
    s = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
    s.stage_write(0, 0, (v for v in [5]))
    s.apply_write()
    return s.gpu


def p21(t):
    s = t.buffer_utils.StagedWriteTensor(4, torch.int32, "cpu")
    s.stage_write(np.uint64(1), 0, [7])
    return catch(s.apply_write), s.gpu


def p22(t):
    p = t.buffer_utils.UvaBufferPool(4, torch.int32)
    a = p.copy_to_uva([1])
    refused = catch(lambda: p.copy_to_uva([[1, 2]]))
    b = p.copy_to_uva([2])
    return refused, a, b


def p23(t):
    o = torch.zeros(2, dtype=torch.int32)
    return t.buffer_utils.UvaBufferPool(4, torch.int32).copy_to_gpu([1, 2], out=o) is o


PROBES: dict[str, Callable[[Any], Any]] = {
    name: globals()[f"p{name[1:3]}"] for name in CPU_BUGS
}

# ordinary calls: the control must agree with the reference on them too
BATTERY: list[Callable[[Any], Any]] = [
    lambda t: t.async_tensor_h2d([1, 2, 3], device="cpu"),
    lambda t: t.async_tensor_h2d([[1.5, -2.7]], dtype=torch.int8, device="cpu"),
    lambda t: t.async_tensor_h2d((True, False), device=torch.device("cpu")),
    lambda t: t.async_tensor_h2d(np.arange(6, dtype=">i4").reshape(2, 3).T, device="cpu:0"),
    lambda t: t.async_tensor_h2d(torch.arange(6.0).reshape(2, 3).t(), dtype=torch.bfloat16, device="cpu"),
    lambda t: t.async_tensor_h2d(np.float32(2.5), device="cpu"),
    lambda t: t.async_tensor_h2d([np.int32(1), np.int32(2)], device="cpu"),
    lambda t: t.async_tensor_h2d([], device="cpu"),
    lambda t: t.async_tensor_h2d([7], out=torch.zeros(4, dtype=torch.int64)),
    lambda t: t.async_tensor_h2d([float("nan")], dtype=torch.int32, device="cpu"),
    lambda t: t.async_tensor_h2d([1], device="meta"),
    lambda t: t.async_tensor_h2d([1]),
    lambda t: t.async_tensor_h2d([2**40], out=torch.zeros(1, dtype=torch.int32)),
    lambda t: t.async_tensor_h2d(np.arange(70000, dtype=np.float32) / 3, dtype=torch.float16, device="cpu").sum(),
    lambda t: t.cpu_variant(np.arange(5)[::2], out=torch.zeros(3, dtype=torch.int16)),
    lambda t: t.cpu_variant([1], device="cuda:0"),
    lambda t: t.buffer_cls(3, 2, dtype=torch.int64, device="cpu").copy_to_gpu(2),
    lambda t: t.buffer_cls(3, dtype=torch.int64, device="cpu").copy_to_cpu(4),
    lambda t: t.buffer_cls(3, dtype=torch.bfloat16, device="cpu"),
    lambda t: t.buffer_utils.NonUvaBuffer((3, 2), torch.float32).uva(2),
    lambda t: t.buffer_utils.UvaBackedTensor(4, torch.int32).copy_to_uva(5),
    lambda t: t.buffer_utils.StagedWriteTensor(3, torch.float16, "cpu"),
    lambda t: t.buffer_utils.FusedStagedWriter("cpu", -1),
]


def reference_target() -> Any:
    return make_target(
        "reference",
        fn=REFERENCE.async_tensor_h2d,
        cpu_variant=REFERENCE.async_tensor_h2d_cpu,
        buffer_utils=buffer_utils_ns(),
    )


def main() -> int:
    targets = {}
    print("== import every module and build its target")
    for name in MODULES:
        targets[name] = importlib.import_module(f"r38.{name}").target()
    print(f"loaded {len(MODULES)} modules: control + {len(CPU_BUGS)} CPU-visible + {len(GPU_BUGS)} GPU-only")

    control = targets["b00_control"]
    ref = reference_target()
    print("== the control behaves like the reference")
    mismatches = 0
    for name, probe in PROBES.items():
        a, b = outcome(probe, control), outcome(probe, ref)
        if a != b:
            mismatches += 1
            print(f"  MISMATCH probe of {name}: control {a} reference {b}")
    for i, probe in enumerate(BATTERY):
        a, b = outcome(probe, control), outcome(probe, ref)
        if a != b:
            mismatches += 1
            print(f"  MISMATCH battery[{i}]: control {a} reference {b}")
    print(f"control == reference on {len(PROBES)} probes + {len(BATTERY)} ordinary calls: "
          f"{'OK' if not mismatches else f'{mismatches} MISMATCHES'}")

    print("== CPU-visible bugs: smallest input, control vs bug")
    buggy = 0
    for name in CPU_BUGS:
        probe = PROBES[name]
        a, b = outcome(probe, control), outcome(probe, targets[name])
        verdict = "BUGGY" if a != b else "FAIL"
        buggy += a != b
        print(f"{verdict} {name}")
        print(f"    control: {a}")
        print(f"    bug:     {b}")
    print("== GPU-only bugs: every CPU probe agrees with the control on this host")
    gpu_same = 0
    for name in GPU_BUGS:
        diffs = [p for p, probe in PROBES.items() if outcome(probe, control) != outcome(probe, targets[name])]
        diffs += [f"battery[{i}]" for i, probe in enumerate(BATTERY) if outcome(probe, control) != outcome(probe, targets[name])]
        gpu_same += not diffs
        print(f"{'SAME ' if not diffs else 'DIFF '} {name}" + (f" (differs on {diffs})" if diffs else ""))
    print(f"== summary: {buggy}/{len(CPU_BUGS)} CPU-visible bugs BUGGY; {gpu_same}/{len(GPU_BUGS)} GPU-only bugs "
          f"invisible on this CPU host; control {'==' if not mismatches else '!='} reference")
    return 0 if buggy == len(CPU_BUGS) and not mismatches else 1


if __name__ == "__main__":
    sys.exit(main())
