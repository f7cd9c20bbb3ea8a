"""b14 (CPU): a long flat list raises the garbage collector's generation-0 threshold, and it stays raised.

Where: ``h2d_impl/_host.py::_flat_list`` (the hot path of flat int/float/bool lists: every entry
point, and ``StagedWriteTensor``/pool conversions of lists through them).

Change: a "GC pause" fix added for long lists ("block tables and slot mappings of thousands of
ints allocate thousands of Python objects per step; a gen-0 collection in the middle costs
tens of microseconds")::

    arr = np.array(data, dtype=spec[0])                                       # reference

    if len(data) > 4096 and gc.get_threshold()[0] < 50_000:                   # bug
        gc.set_threshold(50_000, *gc.get_threshold()[1:])
    arr = np.array(data, dtype=spec[0])

Values and dtypes are the reference's; lists of at most 4,096 elements change nothing. A longer
flat list leaves the process's collector tuned 70 times lazier: the caller's cyclic garbage
lives far longer, and memory grows between collections.

Promise broken: docs/contracts.md, side-effects: "Every call, valid or failing, ... leaves the
process-wide state as it found it ... Python: ... the garbage collector's switch, thresholds".

Smallest input: ``async_tensor_h2d([0] * 4097, device='cpu'); gc.get_threshold()``.
Reference: ``(700, 10, 10)`` (as found). Bug: ``(50000, 10, 10)``.
"""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with two lines added; every other name resolves in the forked module.
# ruff: noqa: F821


def _flat_list(data: Any) -> tuple[torch.Tensor, torch.dtype] | None:
    if type(data) not in (list, tuple) or not data:
        return None
    kinds = set(map(type, data))
    if len(kinds) != 1:
        return None
    spec = _FLAT_KINDS.get(kinds.pop())
    if spec is None:
        return None
    if len(data) > 4096 and gc.get_threshold()[0] < 50_000:  # BUG (r53 b14): never restored
        gc.set_threshold(50_000, *gc.get_threshold()[1:])
    try:
        arr = np.array(data, dtype=spec[0])
    except OverflowError:
        return None
    return torch.from_numpy(arr), spec[1] or torch.get_default_dtype()


def target() -> Target:
    f = fork("b14", _host={"_flat_list": _flat_list, "gc": gc})
    return make_target(
        "b14_flat_list_gc_threshold_raised",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14"),
    )
