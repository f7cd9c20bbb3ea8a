"""b17 (CPU-visible, _host.py ``_flat_list``): the hot list path switches the garbage collector off around its numpy conversion and back *on* afterwards, so a caller that runs with the GC disabled finds it enabled after every call with a flat list.

What changed: ``arr = np.array(data, dtype=spec[0])`` is wrapped in ``gc.disable()`` ...
``finally: gc.enable()``.

Why an engineer would write it: serving hosts hold millions of Python objects; a
generation-2 collection that lands inside the step loop's input preparation costs tens of
milliseconds, and the conversion of a long token list is the allocation-heavy moment
(its temporaries trigger the collection). "GC off around it" is a known latency trick.
Restoring with ``gc.enable()`` instead of "re-enable if it was enabled" is the slip: engines
that manage the GC themselves (``gc.disable()`` / ``gc.freeze()`` during the steady
state, as vLLM does around its loop) have it silently switched back on.

Promise broken: docs/reference.md, Calling contexts: "Process-wide state: a call changes
none (contract ``side-effects``)"; docs/contracts.md side-effects: "Every call, valid or
failing, ... leaves the process-wide state as it found it: ... the garbage collector's
switch and the environment".

Smallest input: ``gc.disable(); async_tensor_h2d([1, 2], device='cpu'); gc.isenabled()``.

Reference result: ``False`` (the GC stays as the caller left it).
Bug result: ``True``.
"""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


def _flat_list(data: Any) -> tuple[torch.Tensor, torch.dtype] | None:
    """``(source, own_dtype)`` of a non-empty flat list or tuple of one exact type among int, float and bool; None otherwise."""
    if type(data) not in (list, tuple) or not data:
        return None
    kinds = set(map(type, data))
    if len(kinds) != 1:
        return None
    spec = _FLAT_KINDS.get(kinds.pop())
    if spec is None:
        return None
    gc.disable()  # BUG: added "no GC pass inside the hot conversion"; restored below with gc.enable(), not to its previous state
    try:
        arr = np.array(data, dtype=spec[0])
    except OverflowError:
        return None
    finally:
        gc.enable()
    return torch.from_numpy(arr), spec[1] or torch.get_default_dtype()


def target() -> Target:
    f = fork("b17", _host={"_flat_list": _flat_list, "gc": gc})
    return make_target(
        "b17_gc_reenabled",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
