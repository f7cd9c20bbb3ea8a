"""b12 (CPU-visible): the supported dtypes become "every torch dtype but the ones the comment names".

Where: ``h2d_impl/_host.py``, module constant ``SUPPORTED_DTYPES`` (and ``_INTEGER_DTYPES``,
derived from it at import, as in the reference).

Change: the explicit list of 12 + uint16/32/64 + float8 dtypes -> every ``torch.dtype`` in
``vars(torch)`` except those the reference's comment names ("Quantized, complex32 and
float4 dtypes have no CPU copy kernel in torch"): ``complex32``, ``float4_e2m1fn_x2``,
``qint8``, ``quint8``, ``qint32``, ``quint4x2``, ``quint2x4``.

Why plausible: "new float8 and unsigned dtypes keep arriving in torch; derive the set so it
follows torch, excluding what the comment says has no kernel". The exclusion list misses
torch's sub-byte and bit dtypes (``uint1``..``uint7``, ``int1``..``int7``, ``bits8``,
``bits16``, ``bits1x8``, ``bits2x4``, ``bits4x2``), which have no copy kernel either.

Promise broken: ``check_dtype_arg``: "Raise TypeError unless ``dtype`` is None or a torch
dtype the reference copies"; ``async_tensor_h2d`` Raises: "TypeError: ... ``dtype`` not a
supported torch dtype"; README bad-input: the documented exception "with a message naming
the argument" (``unsupported-dtype``: ``dtype=torch.complex32`` -> TypeError).

Smallest input: ``async_tensor_h2d([1], dtype=torch.uint4, device='cpu')``.
Reference: ``TypeError: dtype=torch.uint4 is not supported: torch has no host copy kernel for it``.
Bug: ``TypeError: torch.iinfo() requires an integer input type ...`` from deep inside the
range check (``dtype`` not named); ``[True]`` into ``torch.uint4`` (no range check) gets
``NotImplementedError: "copy_" not implemented for 'UInt4'``; an ``out`` of such a dtype
(``torch.empty(1, dtype=torch.uint4)``) passes ``_check_out`` likewise.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full

_NO_KERNEL = frozenset(
    getattr(torch, n)
    for n in ("complex32", "float4_e2m1fn_x2", "qint8", "quint8", "qint32", "quint4x2", "quint2x4")
    if hasattr(torch, n)
)
#: BUG: every torch dtype but the ones the reference's comment names
SUPPORTED_DTYPES: frozenset[torch.dtype] = frozenset(
    dt for dt in vars(torch).values() if isinstance(dt, torch.dtype) and dt not in _NO_KERNEL
)
_INTEGER_DTYPES = frozenset(
    dt for dt in SUPPORTED_DTYPES if not dt.is_floating_point and not dt.is_complex and dt is not torch.bool
)


def _fork() -> Fork:
    return fork("b12", _host={"SUPPORTED_DTYPES": SUPPORTED_DTYPES, "_INTEGER_DTYPES": _INTEGER_DTYPES})


def target() -> Target:
    return fork_target_full("b12_dtype_allowlist_by_exclusion", _fork())
