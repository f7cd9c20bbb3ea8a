"""Sizes across orders of magnitude, and bulk values built without Python loops.

Implementations change path with size (chunked staging above some element count,
size-classed pinned pools, nested lists converted a block of rows at a time), so a fault
on the far side of a threshold passes every small test. Two complementary sources:

- :data:`SIZE_LADDER` / :func:`ladder`: a deterministic table crossing every power of two
  from 1 to 2**20 (``2**k - 1``, ``2**k``, ``2**k + 1``), and :data:`ROW_LADDER`, row
  counts of 2-D data that are not multiples of common block sizes (255, 257, 300, 1025...);
- :func:`log_sizes`: Hypothesis draws whose logarithm is uniform (every octave as likely as
  any other), for what lies between the ladder's rungs.

:func:`bulk_values` makes the payloads: vectorised (``torch.arange`` arithmetic), every value
exactly representable in the dtype it is made for, consecutive elements distinct, so a
lost, moved or duplicated element shows in the comparison.
"""

from __future__ import annotations

import math

import torch
from hypothesis import strategies as st

__all__ = ["MAX_EXPONENT", "ROW_LADDER", "SIZE_LADDER", "SPECIAL_DTYPES", "bulk_values", "ladder", "log_sizes"]

#: The ladder's top: 2**20 elements (1 Mi), the issue's "at least 2**20".
MAX_EXPONENT = 20

#: Every ``2**k - 1``, ``2**k``, ``2**k + 1`` for k in 0..20, ascending, without 0.
SIZE_LADDER: tuple[int, ...] = tuple(
    sorted({m for k in range(MAX_EXPONENT + 1) for m in (2**k - 1, 2**k, 2**k + 1) if m >= 1})
)

#: Row counts of 2-D data (a block table has one row per running request): around the common
#: block sizes 64, 128, 256, 512, 1024, 2048 and 4096, and between them (300, 1000).
ROW_LADDER: tuple[int, ...] = (
    1,
    63,
    64,
    65,
    255,
    256,
    257,
    300,
    511,
    513,
    1000,
    1023,
    1024,
    1025,
    2047,
    2049,
    4095,
    4097,
)


def ladder(rotation: int = 0, *, full: bool = False, top: int = MAX_EXPONENT, sparse: bool = False) -> tuple[int, ...]:
    """Sizes crossing every power of two up to ``2**top``: one per octave, or all three with ``full``.

    ``sparse``: every other octave (by ``rotation``) and always the top one, at half the
    cost: for a second entry point of the same code (the CPU-platform variant), whose main
    path runs the whole ladder.

    With ``full=False`` octave ``k`` contributes ``2**k - 1``, ``2**k`` or ``2**k + 1``
    (chosen by ``(k + rotation) % 3``), so every power of two is crossed at a third of the
    cost and tables of several dtypes (each its own ``rotation``) together hit every rung.
    """
    if full:
        return tuple(n for n in SIZE_LADDER if n <= 2**top + 1)
    octaves = [k for k in range(top + 1) if not sparse or k == top or (k + rotation) % 2 == 0]
    sizes = {max(1, 2**k + ((k + rotation) % 3) - 1) for k in octaves}
    return tuple(sorted(sizes))


def log_sizes(max_exponent: int = MAX_EXPONENT, *, min_size: int = 1) -> st.SearchStrategy[int]:
    """Sizes ``n`` with ``log2(n)`` uniform over ``[log2(min_size), max_exponent + 1)``: an octave, then a size in it.

    Shrinks toward ``min_size`` (the octave first, then the offset within it).
    """
    lo = max(0, min_size.bit_length() - 1)

    def in_octave(k: int) -> st.SearchStrategy[int]:
        return st.integers(max(min_size, 2**k), 2 ** (k + 1) - 1)

    return st.integers(lo, max_exponent).flatmap(in_octave)


def _range_of(dtype: torch.dtype) -> tuple[int, int]:
    """Integers ``dtype`` holds exactly (floats: within their significand)."""
    if dtype is torch.bool:
        return 0, 1
    if dtype.is_floating_point:
        bits = {torch.float16: 11, torch.bfloat16: 8, torch.float32: 24, torch.float64: 53}.get(dtype, 3)
        return -(2**bits), 2**bits
    info = torch.iinfo(dtype)
    return int(info.min), int(info.max)


#: The float dtypes :func:`bulk_values` can carry special values in.
SPECIAL_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def bulk_values(
    n: int,
    dtype: torch.dtype,
    *,
    offset: int = 0,
    shape: tuple[int, ...] | None = None,
    exact_in: tuple[torch.dtype, ...] = (),
    specials: bool = False,
) -> torch.Tensor:
    """A contiguous CPU tensor of ``n`` elements of ``dtype`` (``shape``, default ``(n,)``), built without a Python loop.

    Element ``i`` is ``(7 * i + offset) mod span + low`` over the integers ``dtype`` holds
    exactly (at most 2**31 of them, from the dtype's minimum, or from -2**30 for int64);
    bool alternates in a pattern of period 3 (not a power of two);
    complex dtypes carry ``i`` in the real and ``-i`` in the imaginary part (exact in
    float32 up to 2**24 elements). ``exact_in``: further dtypes every value must be exact
    in (a conversion's target: values in the intersection of the ranges). ``specials``
    (float16, bfloat16, float32, float64): elements ``i`` with ``i % 61 < 9`` are the dtype's
    largest finite value and its negative, its smallest subnormal and its negative, -0.0,
    +-inf, a NaN and its smallest normal, so the extremes travel at every size (a payload of
    a million elements staged through a narrower dtype turns them into inf). Raises
    ValueError when ``shape`` does not hold ``n``.
    """
    shape = (n,) if shape is None else tuple(shape)
    count = 1
    for side in shape:
        count *= side
    if count != n:
        raise ValueError(f"shape={shape} holds {count} elements, not n={n}")
    index = torch.arange(n, dtype=torch.int64)
    if dtype is torch.bool:
        return (index % 3 == offset % 3).reshape(shape)
    if dtype.is_complex:
        real = (index % (2**20) - 2**19).to(torch.float64)
        return torch.complex(real, -real).to(dtype).reshape(shape)
    lo, hi = _range_of(dtype)
    for other in exact_in:
        olo, ohi = _range_of(other)
        lo, hi = max(lo, olo), min(hi, ohi)
    span = min(hi - lo + 1, 2**31)
    low = lo if hi - lo + 1 <= 2**31 else max(lo, -(2**30))
    values = (index * 7 + offset) % span + low
    if dtype.is_floating_point:
        out = values.to(torch.float64).to(dtype)
        if specials and dtype in SPECIAL_DTYPES:
            info = torch.finfo(dtype)
            sub = info.tiny * info.eps  # the smallest subnormal
            table = torch.tensor(
                [info.max, -info.max, sub, -sub, -0.0, math.inf, -math.inf, math.nan, info.tiny], dtype=dtype
            )
            slot = index % 61
            hit = slot < len(table)
            out[hit] = table[slot[hit]]
        return out.reshape(shape)
    return values.to(dtype).reshape(shape)
