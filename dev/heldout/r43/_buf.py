"""Plumbing for this round's ``buffer.py`` bugs (not a bug itself): a ``CpuGpuBuffer`` subclass whose given
methods are code from a bug module rebound to the reference ``buffer`` module's globals (``_common.rebind``),
so relative imports and module constants resolve as in the reference."""

from __future__ import annotations

from h2d_contracts.h2d_impl import buffer as _ref_buffer

from ._common import rebind


def buffer_subclass(tag: str, **methods):
    ref = _ref_buffer.CpuGpuBuffer
    return type(
        "CpuGpuBuffer",
        (ref,),
        {k: rebind(v, _ref_buffer) for k, v in methods.items()} | {"__module__": f"r43.{tag}", "__doc__": ref.__doc__},
    )
