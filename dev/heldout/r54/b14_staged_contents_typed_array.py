"""b14 (CPU): staged contents are kept in an ``array.array`` of the tensor's C type; a float staged into an integer tensor is refused.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor`` (``__init__``, ``stage_write``,
``clear_staged_writes``: the one attribute ``_staged_write_contents``).

Change: a memory optimisation ("a Python list holds a 28-byte int object per staged token; an
``array('q')`` holds 8 bytes"), the values converted once, before anything is appended::

    self._staged_write_contents: list[int | float] = []                          # reference (__init__)
    self._staged_write_contents.extend(values)                                   # reference (stage_write)
    self._staged_write_contents.clear()                                          # reference (clear_staged_writes)

    self._staged_write_contents = array(_TYPECODES[self.dtype])  # 'i', 'q', 'f'  # bug
    values = array(self._staged_write_contents.typecode, values)   (before the appends)
    del self._staged_write_contents[:]

Ints into int32/int64 tensors and numbers into float32 ones stage and apply as before (an int
past the C type is refused at staging, where the reference refuses it at apply: both allowed).
But ``array('i')``/``array('q')`` take only integers: a float value (``1.5``, ``np.float64(2.0)``,
``np.float32`` scores) staged into an integer tensor is refused at staging with ``TypeError: 'float'
object cannot be interpreted as an integer`` (not naming ``x``), where the reference converts it
as ``torch.tensor`` does (truncating toward zero) and writes it.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "Contents are converted as the
reference's ``async_tensor_h2d`` converts"; ``stage_write``: "Raises: TypeError: ... ``x`` not an
iterable of numbers" (``[1.5]`` is one); docs/contracts.md, staged-write: "After each apply ``.gpu``
equals a numpy model bit for bit: ... values converted as ``torch.tensor`` converts them".

Smallest input: ``t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write(0, 0, [1.5]); t.apply_write(); t.gpu``.
Reference: ``tensor([1, 0], dtype=torch.int32)``. Bug: ``TypeError: 'float' object cannot be interpreted as an integer`` at staging; ``.gpu`` stays ``[0, 0]``.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals)

_TYPECODES = {torch.int32: "i", torch.int64: "q", torch.float32: "f"}


def __init__(
    self: Any,
    size: int | Sequence[int],
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
    if uva_instead_of_gpu and uva_available():
        self._uva_buf = UvaBuffer(shape, dtype)
        self.gpu = self._uva_buf.uva()
    else:
        self._uva_buf = None
        self.gpu = torch.zeros(shape, dtype=dtype, device=self.device)
    self._staged_write_indices = []
    self._staged_write_starts = []
    self._staged_write_contents = array(_TYPECODES[self.dtype])  # BUG (r54 b14): typed C storage for the values
    self._staged_write_cu_lens = []
    self._staged_write_max_len = 0


def stage_write(self: Any, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        raise TypeError("x must hold numbers (int or float)")
    index, start = self._check(index, start, len(values))
    if not values:
        return
    values = array(self._staged_write_contents.typecode, values)  # BUG (r54 b14): 'i'/'q' refuse floats
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def clear_staged_writes(self: Any) -> None:
    self._staged_write_indices.clear()
    self._staged_write_starts.clear()
    del self._staged_write_contents[:]
    self._staged_write_cu_lens.clear()
    self._staged_write_max_len = 0


def target() -> Target:
    f = fork("b14")
    return make_target(
        "b14_staged_contents_typed_array",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork(
            "b14",
            names={"array": array, "_TYPECODES": _TYPECODES},
            methods={
                "StagedWriteTensor": {
                    "__init__": __init__,
                    "stage_write": stage_write,
                    "clear_staged_writes": clear_staged_writes,
                }
            },
        ),
    )
