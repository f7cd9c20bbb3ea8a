"""Lists of Python numbers to a host tensor: which route is fastest (issue 12, item 2; no GPU needed).

The host half of a list call is the conversion of the list into a buffer; the pinned copy
and the DMA come after and do not depend on the route. Measured here for flat lists of ints
and floats of 1 to 65,536 elements (best of 5 batches, us per call):

- ``torch.tensor(lst)``: vLLM's route (``torch.tensor(data, pin_memory=True)``, less the pinning);
- ``np.asarray(lst)`` + ``torch.from_numpy``: the reference's route (``_host._list_to_array``),
  which infers the dtype as ``torch.tensor`` does for plain Python numbers;
- ``np.array(lst, dtype=...)``: numpy told the dtype;
- ``array.array(code, lst)`` + ``torch.frombuffer``: the standard library, dtype told;
- ``np.fromiter(lst, dtype, count)``: dtype and length told;
- the reference's whole host half, ``h2d_impl.async_tensor_h2d(lst, device="cpu")``
  (validation, dtype inference, the typed-leaf scan and the copy).

The routes told the dtype skip inference, so they are faster only where the caller
already knows it; the reference must infer it as ``torch.tensor`` would (and refuse
ragged lists, strings and out-of-range integers) before any of them could be used.

    python bench/list_routes.py [--out FILE.md]
"""

from __future__ import annotations

import argparse
import array
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from h2d_contracts import h2d_impl  # noqa: E402

SIZES = [1, 16, 256, 4096, 65536]


def best_us(fn, n: int) -> float:
    reps = max(3, 20000 // max(n, 1))
    fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter_ns()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / reps / 1e3)
    return best


def routes(lst: list, np_dtype: type, code: str, torch_dtype: torch.dtype) -> dict[str, float]:
    n = len(lst)
    return {
        "torch.tensor": best_us(lambda: torch.tensor(lst), n),
        "np.asarray + from_numpy": best_us(lambda: torch.from_numpy(np.asarray(lst)), n),
        "np.array(dtype)": best_us(lambda: np.array(lst, dtype=np_dtype), n),
        "array.array + frombuffer": best_us(lambda: torch.frombuffer(array.array(code, lst), dtype=torch_dtype), n),
        "np.fromiter(dtype, count)": best_us(lambda: np.fromiter(lst, dtype=np_dtype, count=n), n),
        "reference, device='cpu'": best_us(lambda: h2d_impl.async_tensor_h2d(lst, device="cpu"), n),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    lines = [f"# Lists to host tensors: {os.cpu_count()} cores, torch {torch.__version__}, numpy {np.__version__}, "
             f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}", "", "us per call, best of 5 batches", ""]
    for kind, make, np_dtype, code, tdt in (("int", lambda n: list(range(n)), np.int64, "q", torch.int64),
                                             ("float", lambda n: [i + 0.5 for i in range(n)], np.float64, "d", torch.float64)):
        rows = {n: routes(make(n), np_dtype, code, tdt) for n in SIZES}
        names = list(rows[SIZES[0]])
        lines += [f"## {kind} lists", "", "| n | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        lines += [f"| {n:,} | " + " | ".join(f"{rows[n][k]:.1f}" for k in names) + " |" for n in SIZES]
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
