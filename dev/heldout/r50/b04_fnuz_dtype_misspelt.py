"""b04 (CPU): one float8 name misspelt in the table of supported dtypes; ``getattr(torch, name, None)`` hides the typo and the dtype silently drops out.

Where: ``h2d_impl/_host.py::SUPPORTED_DTYPES`` (one constant; ``h2d`` imports it, and
``check_dtype_arg``, which ``CpuGpuBuffer`` calls, reads it).

Change (one string)::

    "float8_e5m2fnuz",    # reference
    "float8_e5m2_fnuz",   # bug: a typo (the neighbouring names are e4m3fn / e4m3fnuz / e5m2 / e5m2fnuz / e8m0fnu)

The table is built with ``getattr(torch, n, None)`` so that older torch releases without
a dtype still import; the same default turns the typo into "this torch has no such
dtype", with no error anywhere. ``torch.float8_e5m2fnuz`` (present in torch 2.13, with a CPU
copy kernel, supported by the reference) is then refused as ``dtype=``, as an ``out`` dtype, as
a tensor's dtype, and as a ``CpuGpuBuffer`` dtype, each with ``TypeError`` "not supported: torch
has no host copy kernel for it". Every other dtype works as before.

Promise broken: README, values: "result equals `data` converted to the resolved dtype, bit
for bit, ...; every dtype, input kind and layout"; docs/contracts.md, values:
"`prop_values_product` (every target dtype, uint16/32/64 and float8 included ...)" and
"`prop_values_pure_copy_bits` (float tensors and arrays, float8 included, ...)";
h2d_impl/_host.py ``SUPPORTED_DTYPES`` comment: "dtypes the reference copies. Quantized,
complex32 and float4 dtypes have no CPU copy kernel in torch, so they are rejected up front"
(float8 is not among them); docs/contracts.md, buffer: "Without `.np` every dtype
round-trips bit for bit".

Smallest input: ``async_tensor_h2d([1.0], dtype=torch.float8_e5m2fnuz, device='cpu')``.
Reference: ``tensor([1.], dtype=torch.float8_e5m2fnuz)``. Bug: ``TypeError: dtype=torch.float8_e5m2fnuz
is not supported: torch has no host copy kernel for it``.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer
from plumbing import bu_fork, fork, make_target, rebind

SUPPORTED_DTYPES: frozenset[torch.dtype] = frozenset(
    dt
    for dt in (
        [
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
            torch.complex64,
            torch.complex128,
        ]
        + [getattr(torch, n, None) for n in ("uint16", "uint32", "uint64")]
        + [
            getattr(torch, n, None)
            for n in (
                "float8_e4m3fn",
                "float8_e5m2",
                "float8_e4m3fnuz",
                "float8_e5m2_fnuz",  # BUG (r50 b04): a typo; getattr's default drops the dtype silently
                "float8_e8m0fnu",
            )
        ]
    )
    if dt is not None
)


def target() -> Target:
    # the constant lives in _host and is imported by name into h2d: both copies get it
    f = fork("b04", _host={"SUPPORTED_DTYPES": SUPPORTED_DTYPES}, h2d={"SUPPORTED_DTYPES": SUPPORTED_DTYPES})

    class CpuGpuBuffer(buffer.CpuGpuBuffer):
        """The reference buffer whose constructor resolves ``check_dtype_arg`` in the fork (the same table)."""

        __doc__ = buffer.CpuGpuBuffer.__doc__
        __init__ = rebind(buffer.CpuGpuBuffer.__init__, f.buffer)

    return make_target(
        "b04_fnuz_dtype_misspelt",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b04"),
    )
