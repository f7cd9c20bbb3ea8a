"""Probe (GPU): vLLM's FusedStagedWriter.apply with fewer table slots (``max_writes``) than staged writes.

Run each case in its own process (a lost CUDA context ends the process), with the release's source on
PYTHONPATH (a slim tarball of ``tools/releases.py carry``)::

    PYTHONPATH=/tmp/vllm-0.27.1 python dev/fused_max_writes_probe.py CASE     # CASE: see CASES

Prints one JSON line: the release, the case, the outcome (``ok`` with the rows, or the exception's type and text).
Before 0.31 the writer's tables are UvaBufferPools of fixed slots of ``max_writes`` entries; from 0.31 a slot grows.
"""

from __future__ import annotations

import json
import sys

import torch

from h2d_contracts.contracts.targets import load_target

#: case -> (max_writes, staged writes as (row, start, values))
CASES = {
    "max1-writes1": (1, [(1, 0, [5, 6])]),
    "max0-writes1": (0, [(1, 0, [5, 6])]),
    "max0-writes2": (0, [(0, 0, [3]), (1, 0, [5, 6])]),
    "max1-writes2": (1, [(0, 0, [3]), (1, 0, [5, 6])]),
}


def main() -> None:
    case = sys.argv[1]
    max_writes, writes = CASES[case]
    target = load_target("vllm")
    utils = target.buffer_utils
    device = torch.device("cuda", 0)
    t = utils.StagedWriteTensor((2, 4), torch.int32, device)
    for w in writes:
        t.stage_write(*w)
    ptrs = torch.tensor([t.gpu.data_ptr()], dtype=torch.uint64, device=device)
    strides = torch.tensor([t.gpu.stride(0)], dtype=torch.int64, device=device)
    record = {"release": target.version, "case": case}
    try:
        utils.FusedStagedWriter(device, max_writes).apply([t], ptrs, strides)
        torch.cuda.synchronize()
        record["outcome"] = "ok"
        record["rows"] = t.gpu.cpu().tolist()
    except Exception as exc:  # noqa: BLE001 - the outcome is the record: whatever the release raises
        record["outcome"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
