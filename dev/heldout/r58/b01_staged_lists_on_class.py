"""b01 (CPU): ``StagedWriteTensor``'s five staging fields are declared on the class, and ``__init__`` no longer sets them.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor`` (class body and ``__init__``); every ``stage_write``,
``stage_write_elem``, ``apply_write``, ``clear_staged_writes`` and fused apply reads them.

Change: a tidy-up into declared fields ("the staging state, typed once on the class as a dataclass would, not
re-declared in ``__init__``")::

    self._staged_write_indices: list[int] = []                       # reference (__init__, five fields)
    self._staged_write_starts: list[int] = []
    self._staged_write_contents: list[int | float] = []
    self._staged_write_cu_lens: list[int] = []
    self._staged_write_max_len = 0

    class StagedWriteTensor:                                          # bug (class body; __init__ sets none)
        _staged_write_indices: list[int] = []
        _staged_write_starts: list[int] = []
        _staged_write_contents: list[int | float] = []
        _staged_write_cu_lens: list[int] = []
        _staged_write_max_len = 0

A default on the class is shared by every instance until an instance assigns its own. ``stage_write`` only
``append``s and ``extend``s, and ``clear_staged_writes`` empties the lists with ``.clear()``: no instance ever
assigns them, so every ``StagedWriteTensor`` of the process stages into the same four lists (only
``_staged_write_max_len``, an int re-assigned, becomes per instance). A write staged into one tensor is applied
by whichever tensor applies next (into its ``.gpu``, at the first tensor's row and column), and the first tensor's
own ``apply_write`` then finds nothing. Model Runner V2 stages into many tensors each step (block tables,
``total_len``, ``num_computed_tokens``, ``all_token_ids``) and applies them one after another.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "``stage_write(index, start, x)`` stages ``x`` into
row ``index`` from column ``start``; ``apply_write()`` writes every staged write into ``.gpu`` ... and clears them";
docs/contracts.md, fused-writes: "leaves every tensor bit-identical to a twin given its own ``apply_write()``".

Smallest input: ``a = StagedWriteTensor(2, torch.int32, 'cpu'); b = StagedWriteTensor(2, torch.int32, 'cpu');
a.stage_write_elem(0, 5); b.apply_write(); a.apply_write(); a.gpu, b.gpu``.
Reference: ``a.gpu == [5, 0]``, ``b.gpu == [0, 0]``. Bug: ``a.gpu == [0, 0]``, ``b.gpu == [5, 0]`` (a's write
landed in b).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _shape, _dtype, long_lived, uva_available, UvaBuffer, ...)


def __init__(
    self: Any,
    size: Any,
    dtype: torch.dtype,
    device: torch.device | str,
    max_concurrency: int | None = None,
    uva_instead_of_gpu: bool = False,
) -> None:
    shape = _shape(size)
    self.dtype = _dtype(dtype, STAGED_WRITE_DTYPES)
    self.num_rows = shape[0]
    self.device = torch.device(device)
    self.max_concurrency = DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency
    self._row_len = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1
    with long_lived():  # state kept across steps: normal tensors under inference_mode too
        if uva_instead_of_gpu and uva_available():
            self._uva_buf = UvaBuffer(shape, dtype)
            self.gpu = self._uva_buf.uva()
        else:
            self._uva_buf = None
            self.gpu = torch.zeros(shape, dtype=dtype, device=self.device)
    # BUG (r58 b01): the staging fields are the class's (declared below in target()), shared by every instance


def target() -> Target:
    f = fork("b01")
    classes = bu_fork("b01", methods={"StagedWriteTensor": {"__init__": __init__}})
    # the class body of the bug: declared fields with (mutable) defaults, one set per target's class
    swt = classes.StagedWriteTensor
    swt._staged_write_indices = []  # BUG (r58 b01): on the class, so shared by every instance
    swt._staged_write_starts = []
    swt._staged_write_contents = []
    swt._staged_write_cu_lens = []
    swt._staged_write_max_len = 0
    return make_target(
        "b01_staged_lists_on_class",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=classes,
    )
