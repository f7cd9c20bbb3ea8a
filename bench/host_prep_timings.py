"""Host preparation of small calls, no GPU: ``as_source_tensor`` and the device-generic half, us per call (timeit, best of 5).

Why: the reference's 1-16 element list calls were 1.3-1.4x vLLM's host time on the
H200. This times the host-side pieces that do not need CUDA: ``as_source_tensor`` (list,
ndarray, tensor) and ``_prepare`` + ``_to_device`` towards the host (the device-generic
path with its small pool), and for flat int lists the staging of the CUDA fast path's two routes without their DMA
(``_flat_list`` + ``check_representable`` + ``_stage_small``, against ``_stage_int_list``, which writes the ints
straight into the pinned slice), and the small path's write of a contiguous tensor into its slice, numpy's ``copyto``
from ``.numpy()`` of it against one ``memmove`` from its ``data_ptr()`` (the route ``_stage_small`` takes for such a
source since the thirty-second session), interleaved, so two commits can be compared on any machine:

    PYTHONPATH=<checkout> python bench/host_prep_timings.py
"""

from __future__ import annotations

import statistics
import time
import timeit

import numpy as np
import torch

from h2d_contracts.h2d_impl import _host
from h2d_contracts.h2d_impl import h2d as _h2d

CPU = torch.device("cpu")


def us(fn, n: int = 20000) -> float:
    return min(timeit.repeat(fn, number=n, repeat=5)) / n * 1e6


def main() -> None:
    inputs = {
        "list n=1": [0],
        "list n=16": list(range(16)),
        "ndarray n=16": np.arange(16, dtype=np.int32),
        "tensor n=16": torch.arange(16, dtype=torch.int32),
    }
    print("| input | as_source_tensor us | _prepare + _to_device(host) us |")
    print("|---|---|---|")
    for label, data in inputs.items():

        def whole(d=data):
            source, dtype, _ = _h2d._prepare(d, CPU, None, None, cpu_only=False)
            return _h2d._to_device(d, source, dtype, CPU, None, pin=False)

        print(f"| {label} | {us(lambda d=data: _host.as_source_tensor(d)):.2f} | {us(whole):.2f} |")
    print()
    print("| int list | via _flat_list us | _stage_int_list us |  (host staging only: the DMA left out)")
    print("|---|---|---|")
    dma = _h2d._dma
    _h2d._dma = lambda staging, target, out: staging  # the same DMA follows both routes: time what differs
    try:
        for n in (1, 16):
            ints = list(range(n))

            def via_flat(d=ints):
                src, own = _host._flat_list(d)
                _host.check_representable(src, own)
                return _h2d._stage_small(src, own, CPU, None, src.numel() * own.itemsize, False)

            def written(d=ints):
                return _h2d._stage_int_list(d, torch.int64, CPU, 256 << 10)

            print(f"| n={n} | {us(via_flat):.2f} | {us(written):.2f} |")
    finally:
        _h2d._dma = dma
    print()
    print(
        "| int32 tensor | copyto(slice, t.numpy()) us | memmove(address, t.data_ptr(), nbytes) us | ratio, median [min-max] |"
    )
    print("|---|---|---|---|")
    chunk = np.empty(1 << 18, dtype=np.int32)  # a 1 MiB chunk's int32 view, as the small pool's
    address = chunk.ctypes.data
    for n in (1, 16, 256, 4096):
        t = torch.arange(n, dtype=torch.int32)
        dst = chunk[64 : 64 + n]

        def by_numpy(t=t, dst=dst):
            np.copyto(dst, t.numpy())

        def by_memmove(t=t, nbytes=4 * n):
            _h2d._memmove(address + 256, t.data_ptr(), nbytes)  # the reference's own memmove (the GIL held)

        by_memmove()
        assert torch.equal(torch.from_numpy(dst), t)
        # rounds alternate which goes first; the ratio is taken round by round, so a drift of the machine's speed
        # cancels (a loaded 2-core machine moved single figures by 2x between rounds)
        a, b = [], []
        for r in range(40):
            for fn, acc in ((by_numpy, a), (by_memmove, b)) if r % 2 else ((by_memmove, b), (by_numpy, a)):
                t0 = time.perf_counter_ns()
                for _ in range(2000):
                    fn()
                acc.append((time.perf_counter_ns() - t0) / 2000 / 1e3)
        ratios = [y / x for x, y in zip(a, b)]
        print(
            f"| n={n} | {statistics.median(a):.2f} | {statistics.median(b):.2f} | "
            f"{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}] |"
        )


if __name__ == "__main__":
    main()
