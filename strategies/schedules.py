"""Schedules for Model Runner V2's transfer utilities: staged writes and round-robin pool steps.

A staging schedule is a list of operations on one ``StagedWriteTensor`` (vLLM 0.33.0's
``vllm/v1/worker/gpu/buffer_utils.py``): ``("write", index, start, values)``,
``("elem", index, value)``, ``("apply",)``, ``("bad", index, start, values)`` and
``("badelem", index, value)`` (a write past the tensor's bounds, empty ones included, which
must be refused), ``("badvalues", index, start, values)`` (in bounds, one value not a number:
refused, nothing of it staged) and ``("overflow", index, start, values)`` (an in-bounds write holding a
value the integer dtype cannot hold, which the next apply must refuse, nothing written).
Writes cross the 1,024-element chunks
vLLM's kernel copies per program, overlap earlier writes of the same row, and hit the
first and last rows and columns. A pool schedule is a list of host inputs (lists, arrays,
tensors) sent one step at a time through a ``UvaBufferPool``, some longer than a slot (the
slot grows).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

__all__ = [
    "FAR_PAST",
    "INDEX_TYPES",
    "STAGED_WRITE_DTYPES",
    "WRITE_BLOCK",
    "backed_schedules",
    "pool_methods",
    "pool_schedules",
    "pool_specs",
    "row_length",
    "row_number",
    "size_shape",
    "staged_tensor_specs",
    "staging_schedules",
    "write_values",
]

#: The dtypes a StagedWriteTensor holds (vLLM 0.33.0).
STAGED_WRITE_DTYPES = (torch.int32, torch.int64, torch.float32)
#: Elements vLLM's ``_apply_write_kernel`` copies per program: writes are drawn across these chunks.
WRITE_BLOCK = 1024
_COLUMNS = (1, 2, 3, 8, 17, WRITE_BLOCK - 1, WRITE_BLOCK, WRITE_BLOCK + 1, 2 * WRITE_BLOCK + 52)


def size_shape(size: int | np.integer[Any] | tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """The shape of a tensor of ``size`` as the Model Runner V2 constructors take it: a single integer (a Python int
    or a numpy integer) is a 1-D shape, a sequence is the shape itself."""
    return (int(size),) if isinstance(size, (int, np.integer)) else tuple(int(d) for d in size)


def row_number(size: int | tuple[int, ...]) -> int:
    """Rows of a tensor of ``size`` (an int size is its own row count)."""
    return size_shape(size)[0]


def row_length(size: int | tuple[int, ...] | list[int]) -> int:
    """Elements in one row of a tensor of ``size`` (1 for a 1-D tensor: its rows are elements)."""
    return int(np.prod(size_shape(size)[1:], dtype=np.int64))


@st.composite
def staged_tensor_specs(draw: st.DrawFn, *, dtypes: tuple[torch.dtype, ...] = STAGED_WRITE_DTYPES) -> dict[str, Any]:
    """``{"size": rows, (rows, columns) or (rows, 2, columns) (a tuple or a list), "dtype": ...}`` of a
    StagedWriteTensor: 1 to 6 rows, rows that cross 1,024; a row of a 3-D tensor is all its trailing elements (vLLM
    writes rows of ``.gpu.stride(0)`` elements; held-out round r50 took the last dimension for a row)."""
    rows = draw(st.integers(1, 6), label="rows")
    dtype = draw(st.sampled_from(dtypes), label="dtype")
    uva = draw(st.booleans(), label="uva_instead_of_gpu")  # a UVA view where UVA is available, the device elsewhere
    rank = draw(st.sampled_from([1, 2, 2, 3]), label="dimensions")
    if rank == 1:
        return {"size": rows, "dtype": dtype, "uva": uva}
    columns = draw(st.sampled_from(_COLUMNS), label="columns")
    # a shape spelled as a tuple or a list (vLLM passes size on to torch.zeros, which takes any sequence)
    spelled = draw(st.sampled_from([tuple, list]), label="size spelled as")
    shape = (rows, columns) if rank == 2 else (rows, 2, min(columns, WRITE_BLOCK + 1))
    return {"size": spelled(shape), "dtype": dtype, "uva": uva}


def write_values(dtype: torch.dtype, n: int) -> st.SearchStrategy[list[int | float]]:
    """``n`` values a ``dtype`` holds: ints over its whole range, or float32 values (signed zeros, inf, NaN included)."""
    if dtype.is_floating_point:
        element: st.SearchStrategy[Any] = st.floats(width=32)
    else:
        info = torch.iinfo(dtype)
        element = st.integers(int(info.min), int(info.max))
    if n > 64:  # a long write: one drawn value repeated with a drawn progression (a draw per element is slow)
        return st.tuples(element, st.integers(-3, 3)).map(
            lambda vs: [_clip(dtype, vs[0] + (i * vs[1] if not isinstance(vs[0], float) else 0)) for i in range(n)]
        )
    return st.lists(element, min_size=n, max_size=n)


def _clip(dtype: torch.dtype, v: Any) -> Any:
    if isinstance(v, float):
        return v
    info = torch.iinfo(dtype)
    return int(min(max(v, int(info.min)), int(info.max)))


@st.composite
def _write(draw: st.DrawFn, spec: dict[str, Any], earlier: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    rows, row = row_number(spec["size"]), row_length(spec["size"])
    writes = [op for op in earlier if op[0] == "write"]
    # where a write starts: over an earlier one, at the column where the last one ended (in its row or any other: the
    # engine's pattern of row after row, each from where the previous stopped; held-out round r54 merged such a write
    # into the previous one whatever its row), or anywhere
    how = draw(st.sampled_from(["overlap", "continue", "anywhere"]), label="where") if writes else "anywhere"
    if how == "continue" and writes[-1][2] + len(writes[-1][3]) >= row:
        how = "anywhere"  # the last write ended at its row's end: nothing follows it in a row
    if how == "overlap":
        _, index, start, old = draw(st.sampled_from(writes), label="earlier write")
        start = min(row - 1, start + draw(st.integers(0, max(0, len(old) - 1)), label="shift"))
    elif how == "continue":
        index = draw(st.integers(0, rows - 1), label="index")
        start = writes[-1][2] + len(writes[-1][3])
    else:
        index = draw(st.sampled_from(sorted({0, rows - 1})) | st.integers(0, rows - 1), label="index")
        near = [s for s in (0, row - 1, WRITE_BLOCK - 2, WRITE_BLOCK - 1, WRITE_BLOCK) if s < row]
        start = draw(st.sampled_from(near) | st.integers(0, row - 1), label="start")
    room = row - start
    length = draw(st.sampled_from(sorted({1, room})) | st.integers(1, room), label="length")
    return ("write", index, start, draw(write_values(spec["dtype"], length), label="values"))


@st.composite
def _bad(draw: st.DrawFn, spec: dict[str, Any]) -> tuple[Any, ...]:
    rows, row = row_number(spec["size"]), row_length(spec["size"])
    kinds = ["row past the end", "negative row", "past the row's end", "negative start", "element row", "far past"]
    kind = draw(st.sampled_from(kinds), label="bad")
    if kind == "far past":
        return draw(_far_past(spec))
    if kind == "element row":  # stage_write_elem's row, past the end or negative
        index = draw(st.sampled_from([rows, rows + 1, -1]), label="index")
        return ("badelem", index, draw(write_values(spec["dtype"], 1), label="value")[0])
    # an empty write is out of bounds too where its row or start is (nothing to write is no excuse)
    shortest = 0 if kind != "past the row's end" else 1
    values = draw(write_values(spec["dtype"], draw(st.integers(shortest, 3), label="length")), label="values")
    if kind == "row past the end":
        return ("bad", rows + draw(st.integers(0, 2), label="past"), 0, values[:1] if row == 1 else values)
    if kind == "negative row":
        return ("bad", -draw(st.integers(1, 2), label="below"), 0, values[:1] if row == 1 else values)
    if kind == "negative start":
        return ("bad", 0, -draw(st.integers(1, 2), label="below"), values)
    start = max(0, row - len(values) + draw(st.integers(1, 2), label="over"))
    return ("bad", 0, start, values)


#: How an engine passes a row index or start: a Python int or a numpy integer read out of its numpy bookkeeping.
INDEX_TYPES: tuple[type, ...] = (int, np.int64, np.uint64)
#: Rows and starts far past any tensor: past int32 (a narrowing to int32 wraps them onto a real row or column) and at
#: int64's end (``start + length`` wraps negative in numpy's int64 arithmetic), held-out round r41.
FAR_PAST = (2**31, 2**32, 2**32 + 1, 2**63 - 1)


@st.composite
def _far_past(draw: st.DrawFn, spec: dict[str, Any]) -> tuple[Any, ...]:
    """A write whose row or start is far past the tensor, spelled as a Python int or a numpy integer (what an engine
    reads out of its numpy bookkeeping)."""
    spelled = draw(st.sampled_from(INDEX_TYPES), label="spelled as")
    far = spelled(draw(st.sampled_from(FAR_PAST), label="far"))
    values = draw(write_values(spec["dtype"], draw(st.integers(1, 3), label="length")), label="values")
    if row_length(spec["size"]) == 1:
        values = values[:1]
    if draw(st.booleans(), label="far row (else far start)"):
        return ("bad", far, 0, values)
    return ("bad", 0, far, values)


@st.composite
def _bad_values(draw: st.DrawFn, spec: dict[str, Any]) -> tuple[Any, ...]:
    """An in-bounds write with one value that is not a number (the held-out round r39: a refusal after half of the
    write's bookkeeping was staged)."""
    _, index, start, values = draw(_write(spec, []))
    at = draw(st.integers(0, len(values) - 1), label="at")
    odd = draw(st.sampled_from([True, "1", None]), label="not a number")
    return ("badvalues", index, start, [*values[:at], odd, *values[at + 1 :]])


@st.composite
def _overflow(draw: st.DrawFn, spec: dict[str, Any]) -> tuple[Any, ...]:
    """An in-bounds write of an integer dtype with one value just past the dtype's range."""
    _, index, start, values = draw(_write(spec, []))
    info = torch.iinfo(spec["dtype"])
    past = draw(st.sampled_from([int(info.max) + 1, int(info.min) - 1, 2 * int(info.max) + 2]), label="past the range")
    at = draw(st.integers(0, len(values) - 1), label="at")
    return ("overflow", index, start, [*values[:at], past, *values[at + 1 :]])


@st.composite
def staging_schedules(draw: st.DrawFn, spec: dict[str, Any], *, bad: bool = True) -> list[tuple[Any, ...]]:
    """1 to 10 operations ending with ``("apply",)``: writes (overlapping, across chunks), single elements, applies,
    bad writes and (integer dtypes) writes of values past the dtype's range."""
    ops: list[tuple[Any, ...]] = []
    kinds = ["write", "write", "elem", "apply"] + (["bad", "badvalues"] if bad else [])
    if bad and not spec["dtype"].is_floating_point:
        kinds.append("overflow")
    rows = row_number(spec["size"])
    for _ in range(draw(st.integers(1, 10), label="operations")):
        kind = draw(st.sampled_from(kinds), label="operation")
        if kind == "write":
            ops.append(draw(_write(spec, ops)))
        elif kind == "elem":
            value = draw(write_values(spec["dtype"], 1), label="value")[0]
            ops.append(("elem", draw(st.integers(0, rows - 1), label="index"), value))
        elif kind == "bad":
            ops.append(draw(_bad(spec)))
        elif kind == "badvalues":
            ops.append(draw(_bad_values(spec)))
        elif kind == "overflow":
            ops.append(draw(_overflow(spec)))
        else:
            ops.append(("apply",))
    return [*ops, ("apply",)]


@st.composite
def pool_specs(draw: st.DrawFn) -> dict[str, Any]:
    """``{"size", "dtype", "max_concurrency"}`` of a UvaBufferPool: 1 to 8 rows (1-D or rows of 3), depth 1 to 9 (past 4,
    and not only powers of two: held-out round r41 clamped the depth at 4 and masked the cursor with depth - 1)."""
    rows = draw(st.integers(1, 8), label="rows")
    size: int | tuple[int, int] = rows if draw(st.booleans(), label="1-D") else (rows, 3)
    dtype = draw(st.sampled_from([torch.int32, torch.int64, torch.float32]), label="dtype")
    return {"size": size, "dtype": dtype, "max_concurrency": draw(st.integers(1, 9), label="max_concurrency")}


@st.composite
def pool_schedules(draw: st.DrawFn, spec: dict[str, Any]) -> list[Any]:
    """2 to 12 steps' host inputs (more than the deepest pool's slots), each distinct from the others (step k's values
    start at 100 k), some past a slot's rows."""
    rows = row_number(spec["size"])
    tail = () if isinstance(spec["size"], int) else tuple(spec["size"][1:])
    np_dtype = {torch.int32: np.int32, torch.int64: np.int64, torch.float32: np.float32}[spec["dtype"]]
    steps: list[Any] = []
    for k in range(draw(st.integers(2, 12), label="steps")):
        n = draw(st.integers(1, rows) | st.integers(rows + 1, 3 * rows + 1), label="length")
        values = (100 * (k + 1) + np.arange(n * int(np.prod(tail, dtype=np.int64)))).astype(np_dtype).reshape(n, *tail)
        carrier = draw(st.sampled_from(["list", "ndarray", "tensor", "tensor of another dtype"]), label="carrier")
        if carrier == "tensor of another dtype":  # converted by the copy into the slot (vLLM: buf.cpu[:n] = x)
            steps.append(torch.from_numpy(values).to(_OTHER_DTYPE[spec["dtype"]]))
            continue
        steps.append(
            values.tolist() if carrier == "list" else torch.from_numpy(values) if carrier == "tensor" else values
        )
    return steps


#: A tensor dtype a pool's slot converts from (an engine's bfloat16 values into a float32 pool; int64 ids into int32).
_OTHER_DTYPE = {torch.float32: torch.bfloat16, torch.int32: torch.int64, torch.int64: torch.int32}


def pool_methods(steps: int) -> st.SearchStrategy[list[str]]:
    """How each pool step is sent: ``copy_to_uva``, ``copy_to_gpu`` or ``copy_to_gpu`` with ``out``, each also
    after a refused call (``refused+copy_to_uva``: rows no slot holds, sent first), as an engine that catches a
    refusal and goes on makes it."""
    sent = st.sampled_from(["copy_to_uva", "copy_to_gpu", "copy_to_gpu-out"])
    method = sent | sent.map(lambda m: f"refused+{m}")
    return st.lists(method, min_size=steps, max_size=steps)


@st.composite
def backed_schedules(draw: st.DrawFn, spec: dict[str, Any]) -> list[int | None]:
    """2 to 8 refreshes of a ``UvaBackedTensor``: the ``n`` of each ``copy_to_uva(n)`` (None: all rows; 0 included)."""
    rows = row_number(spec["size"])
    return draw(st.lists(st.none() | st.integers(0, rows), min_size=2, max_size=8), label="refreshes")
