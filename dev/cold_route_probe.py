"""The small path's host staging warm and after the host waited, numpy route against torch route (no GPU needed).

Why: ``dev/busy_path_probe.py --wake`` showed that the bench's busy rows time calls made after the host waited 100 ms;
the CPU machine showed the same cold penalty on its own (a VM). This times ``h2d._stage_small`` towards the host for
a pageable int32 tensor of ``n`` elements by its two routes, ``plain=True`` (numpy's ``copyto`` into the slice, the
copy from ``torch.from_numpy``) and the torch view with ``copy_`` (``plain=False``), interleaved with two torch-only
stand-ins for vLLM's call (``torch.tensor(t)`` and ``torch.empty().copy_()``, each then copied as the DMA would be),
each sample after no wait, 50 ms of spinning or 50 ms of sleep. Prints the quartiles (us) of ``rounds`` samples per
pattern. Usage: ``python dev/cold_route_probe.py [n] [rounds]`` (defaults 1024 and 100).
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings
from collections.abc import Callable

import torch

from h2d_contracts.h2d_impl import h2d as _h2d

CPU = torch.device("cpu")


def _wait(kind: str) -> None:
    if kind == "sleep":
        time.sleep(0.05)
    elif kind == "spin":
        end = time.perf_counter() + 0.05
        while time.perf_counter() < end:
            pass


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    warnings.simplefilter("ignore")  # torch.tensor(tensor) warns, as in vLLM's call
    t = torch.arange(n, dtype=torch.int32)
    nbytes = 4 * n
    calls: dict[str, Callable[[], object]] = {
        "numpy route": lambda: _h2d._stage_small(t, t.dtype, CPU, None, nbytes, False, plain=True),
        "torch route": lambda: _h2d._stage_small(t, t.dtype, CPU, None, nbytes, False),
        "torch.tensor": lambda: torch.tensor(t, dtype=t.dtype, device="cpu").to(CPU, copy=True),
        "empty+copy_": lambda: torch.empty(t.shape, dtype=t.dtype).copy_(t).to(CPU, copy=True),
    }
    for call in calls.values():
        for _ in range(100):
            call()
    names = list(calls)
    for kind in ("none", "spin", "sleep"):
        got: dict[str, list[float]] = {name: [] for name in names}
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                _wait(kind)
                t0 = time.perf_counter_ns()
                calls[name]()
                got[name].append((time.perf_counter_ns() - t0) / 1e3)
        cells = " ".join(
            f"{name}={'/'.join(f'{q:.1f}' for q in statistics.quantiles(v, n=4))}" for name, v in got.items()
        )
        print(f"n={n} wait={kind:5s} us (quartiles): {cells}", flush=True)


if __name__ == "__main__":
    main()
