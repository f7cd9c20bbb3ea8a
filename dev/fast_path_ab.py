"""The CUDA fast path's host side at two commits, side by side on the CPU machine (no GPU needed).

Why: a change to the small path's staging (the thirty-second session's ``memmove`` of a contiguous source into its
slice) is to be shown on the CPU before a GPU bench weighs it. This loads ``h2d_impl/h2d.py`` as it was at ``REV``
(``git show``) beside the working tree's, points both at one host staging pool standing in for the small pool of
``cuda:0`` (the DMA left out: ``_dma`` returns the staging), and times ``async_tensor_h2d(data, "cuda:0")`` of a
pageable int32 tensor and an int32 ndarray of 1-4,096 elements through each, interleaved: ``rounds`` rounds of 2,000
calls each, the two in alternating order, and the ratio new / old taken round by round (so a drift of the
machine's speed cancels). Then pinned float32 tensors (4,096 elements contiguous, a 64x64 ``.t()``, a 2x8x4x4
channels-last), the zero-copy branch: on the CPU machine ``Tensor.is_pinned`` and ``Tensor.to`` are replaced for both
commits alike by stand-ins (True; the tensor itself), so the checks before them and the ``.contiguous()`` after are
what differs. Both must return the same values. Prints per input the medians (us per call) and the
ratio's median with its 10th and 90th percentiles. Usage: ``python dev/fast_path_ab.py REV [rounds] [--cuda]``
(REV: a commit, or a copy of its ``h2d.py``; rounds default 30; REV's ``_staging`` is the working tree's, so REV
must call only what it still has). With
``--cuda`` (a CUDA machine) the calls are the real ones, the pinned pool and the DMA included, the device
synchronized after each round, outside the timing.
"""

from __future__ import annotations

import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import _staging
from h2d_contracts.h2d_impl import h2d as new

ROOT = Path(__file__).resolve().parents[1]
CUDA0 = torch.device("cuda", 0)


def load_at(rev: str) -> ModuleType:
    """``h2d_impl/h2d.py`` at ``rev`` (or the file ``rev`` names, for a copy without git) as a module of the installed
    package (its relative imports: today's modules)."""
    if Path(rev).is_file():
        text = Path(rev).read_text()
    else:
        text = subprocess.run(
            ["git", "show", f"{rev}:h2d_impl/h2d.py"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
    path = Path(tempfile.mkdtemp()) / "h2d_at_rev.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("h2d_contracts.h2d_impl.h2d_at_rev", path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def per_call_us(fn: Callable[[], Any], calls: int = 2000) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(calls):
        fn()
    return (time.perf_counter_ns() - t0) / calls / 1e3


def main() -> None:
    cuda = "--cuda" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--cuda"]
    rev = args[0]
    rounds = int(args[1]) if len(args) > 1 else 30
    old = load_at(rev)
    if not cuda:
        pool = _staging.StagingPool(torch.device("cpu"), _staging.SMALL_CHUNK_BYTES, pin=False, small=True, clock=None)
        _staging._POOLS[(CUDA0, _staging.SMALL_CHUNK_BYTES, new.pin_memory_available(), True)] = pool
        for module in (old, new):
            module._RESOLVED[(str, "cuda:0")] = CUDA0  # a resolved CUDA spelling: the fast path's condition
            module._dma = lambda staging, target, out: staging  # type: ignore[attr-defined]
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    where = torch.cuda.get_device_name() if cuda else "the host side, DMA left out"
    print(f"{where}, torch {torch.__version__}")
    print(f"| input | {rev} us | working tree us | ratio, median [q10-q90] over {rounds} rounds |")
    print("|---|---|---|---|")
    cases: list[tuple[str, Any]] = []
    for kind in ("tensor", "ndarray"):
        for n in (1, 16, 256, 4096):
            cases.append(
                (
                    f"{kind} n={n}",
                    torch.arange(n, dtype=torch.int32) if kind == "tensor" else np.arange(n, dtype=np.int32),
                )
            )
    for label, data in cases:
        if not torch.equal(old.async_tensor_h2d(data, "cuda:0").cpu(), new.async_tensor_h2d(data, "cuda:0").cpu()):
            raise SystemExit(f"{label}: the two commits staged different values")
        ab_row(label, data, old, new, rounds, sync)
    # pinned inputs, the zero-copy branch: real ones with --cuda; on the CPU machine is_pinned() and the DMA (Tensor.to)
    # are stand-ins for both commits alike (the checks before them, and the device-side .contiguous(), are the real ones)
    base = torch.arange(64 * 64, dtype=torch.float32).reshape(64, 64)
    cl = (
        torch.arange(2 * 8 * 4 * 4, dtype=torch.float32)
        .reshape(2, 8, 4, 4)
        .contiguous(memory_format=torch.channels_last)
    )
    pinned = {"pinned n=4096": base.reshape(-1), "pinned 64x64 .t()": base.t(), "pinned channels-last 2x8x4x4": cl}
    if cuda:
        # the same three layouts, pinned (pin_memory() of the channels-last tensor keeps its strides, as the bench's)
        pinned = {
            "pinned n=4096": base.reshape(-1).pin_memory(),
            "pinned 64x64 .t()": base.pin_memory().t(),
            "pinned channels-last 2x8x4x4": cl.pin_memory(),
        }
    saved = (torch.Tensor.is_pinned, torch.Tensor.to)
    if not cuda:
        torch.Tensor.is_pinned = lambda self: True  # type: ignore[method-assign,assignment]
        torch.Tensor.to = lambda self, *a, **k: self  # type: ignore[method-assign,assignment]
    try:
        for label, data in pinned.items():
            if not torch.equal(old.async_tensor_h2d(data, "cuda:0").cpu(), new.async_tensor_h2d(data, "cuda:0").cpu()):
                raise SystemExit(f"{label}: the two commits moved different values")
            ab_row(label, data, old, new, rounds, sync)
    finally:
        torch.Tensor.is_pinned, torch.Tensor.to = saved  # type: ignore[method-assign]


def ab_row(label: str, data: Any, old: ModuleType, new: ModuleType, rounds: int, sync: Callable[[], Any]) -> None:
    """One table row: ``rounds`` interleaved rounds of each commit's calls of ``data``, and the ratio round by round."""
    a: list[float] = []
    b: list[float] = []
    for r in range(rounds):
        pair = ((old, a), (new, b)) if r % 2 else ((new, b), (old, a))
        for module, acc in pair:
            acc.append(per_call_us(lambda m=module, d=data: m.async_tensor_h2d(d, "cuda:0")))
            sync()
    ratios = sorted(y / x for x, y in zip(a, b))
    q10, q90 = ratios[int(0.1 * (rounds - 1))], ratios[int(0.9 * (rounds - 1))]
    print(
        f"| {label} | {statistics.median(a):.2f} | {statistics.median(b):.2f} | "
        f"{statistics.median(ratios):.3f} [{q10:.3f}-{q90:.3f}] |",
        flush=True,
    )


if __name__ == "__main__":
    main()
