"""Where the reference's extra host time goes for a pinned permuted tensor on an idle stream (a GPU lab probe).

Why: target 5 of issue 24 (like with like: reference <= 1.1x vLLM + ``.contiguous()``) fails on the H200 for the
transposed and channels-last 16 MiB pinned inputs of the bench's section (d) (docs/performance.md: 28 and 40 us
against 21 and 22 us), while for the contiguous one the reference is as fast as vLLM (12 against 14 us), and the
reference's only extra steps for a permutation, its checks and ``_dense``, take about 1.5 us on the CPU machine.
This probe times, per input, steps that build up from vLLM's call to the reference's (``--iters`` calls each, a
device sync every 16 calls outside the timing, median of the per-call host times, ``--rounds`` interleaved rounds):

- ``to``: ``t.to(device, non_blocking=True)`` (what vLLM does for a pinned tensor, without ``is_pinned()``);
- ``pinned+to+contig``: ``t.is_pinned()``, ``.to``, ``.contiguous()`` (vLLM + ``.contiguous()``, bare);
- ``vllm+contig``: vLLM's ``async_tensor_h2d`` then ``.contiguous()`` (the bench's ``vllm_contiguous``), if vLLM is
  importable;
- ``+dense``: ``pinned+to+contig`` with ``h2d._dense(t)`` before ``.to``;
- ``reference``: ``h2d_impl.async_tensor_h2d(t, device)``;
- ``fast_path``: ``h2d._fast_path(t, device, None, SMALL_MAX_BYTES)`` (the reference without its wrapper).

Usage (a CUDA machine, the kit installed): ``OMP_NUM_THREADS=16 python3 dev/layout_probe.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import _staging, h2d

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from h2d_bench import _layout_inputs, host_us, patterns  # the bench's section (d) inputs, timer, patterns


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    device = torch.device("cuda", torch.cuda.current_device())
    vllm = patterns().get("vllm")
    for label, t in _layout_inputs().items():
        if "column slice" in label:
            continue
        steps: dict[str, Callable[[], Any]] = {
            "to": lambda t=t: t.to(device, non_blocking=True),
            "pinned+to+contig": lambda t=t: (t.is_pinned(), t.to(device, non_blocking=True).contiguous()),
            "+dense": lambda t=t: (t.is_pinned(), h2d._dense(t), t.to(device, non_blocking=True).contiguous()),
            "reference": lambda t=t: h2d_impl.async_tensor_h2d(t, device),
            "fast_path": lambda t=t: h2d._fast_path(t, device, None, _staging.SMALL_MAX_BYTES),
        }
        if vllm is not None:
            steps["vllm+contig"] = lambda t=t: vllm(t, device).contiguous()
        h2d_impl.async_tensor_h2d(t, device)  # resolves the device once (the fast path's cache of spellings)
        if h2d._fast_path(t, device, None, _staging.SMALL_MAX_BYTES) is None:
            print(f"{label}: the fast path declines this input", flush=True)
        names = list(steps)
        times: dict[str, list[float]] = {n: [] for n in names}
        for r in range(args.rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                times[name].append(host_us(steps[name], args.iters, device, warm=8, sync_every=16))
        for name in names:
            ts = times[name]
            print(
                f"layout {label[:40]:40s} {name:18s} us median {statistics.median(ts):6.1f} "
                + " ".join(f"{x:.1f}" for x in ts),
                flush=True,
            )


if __name__ == "__main__":
    main()
