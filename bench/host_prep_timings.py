"""Host preparation of small calls, no GPU: ``as_source_tensor`` and the device-generic half, us per call (timeit, best of 5).

Why: the reference's 1-16 element list calls were 1.3-1.4x vLLM's host time on the
H200. This times the host-side pieces that do not need CUDA: ``as_source_tensor`` (list,
ndarray, tensor) and ``_prepare`` + ``_to_device`` towards the host (the device-generic
path with its small pool), so two commits can be compared on any machine:

    PYTHONPATH=<checkout> python bench/host_prep_timings.py
"""

from __future__ import annotations

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


if __name__ == "__main__":
    main()
