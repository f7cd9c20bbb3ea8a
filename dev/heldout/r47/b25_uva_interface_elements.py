"""b25 uva_interface_elements (GPU only) -- ``buffer_utils._Interface`` (via ``uva_view``).

What changed: the ``__cuda_array_interface__`` of a pinned tensor's bytes gives its
element count as the shape of its ``|u1`` (byte) view::

    "shape": (cpu.numel() * cpu.element_size(),)    # reference: bytes
    "shape": (cpu.numel(),)                         # bug: elements

Realistic: unit slip in a hand-written protocol dict ("shape" read as the tensor's).
For uint8/bool/int8 buffers nothing changes.

Effect: ``torch.as_tensor`` maps only ``numel`` bytes; ``.view(cpu.dtype)`` then holds
``numel / itemsize`` elements and ``.view(cpu.shape)`` raises ``RuntimeError`` ("shape ...
is invalid for input of size ..."). Every ``UvaBuffer`` of a wider dtype fails to build,
and with it every ``UvaBufferPool``/``UvaBackedTensor`` (their slots are ``UvaBuffer``\\ s
where UVA is available) and every ``StagedWriteTensor(..., uva_instead_of_gpu=True)``.

Why GPU only: without CUDA, ``uva_view`` raises its documented ``RuntimeError`` ("UVA is
not available") before the interface is built, and pools use ``NonUvaBuffer``; public calls
behave as the control's (repro.py).

Promise broken (reference.md, Model Runner V2: "The reference makes the same view with plain
torch (``uva_view``): ``torch.as_tensor`` over an object whose ``__cuda_array_interface__``
names the pinned tensor's host pointer, viewed back to its dtype and shape"; README
``uva``: "``uva(n)`` is ``.cpu[:n]``"; ``pool``).

Smallest GPU input: ``UvaBuffer(4, torch.int32)``: reference builds it (``uva()`` is a
``cuda:0`` int32 view of 4 zeros); bug raises ``RuntimeError``. ``UvaBufferPool(4,
torch.float32)`` likewise.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as _bu
from plumbing import bu_fork, fork, make_target


class _Interface:
    """A pinned tensor's bytes as ``__cuda_array_interface__`` (the view keeps this object, so the tensor, alive)."""

    def __init__(self, cpu):
        self.cpu = cpu
        self.__cuda_array_interface__ = {
            "shape": (cpu.numel(),),
            "typestr": "|u1",
            "data": (cpu.data_ptr(), False),
            "version": 3,
        }


def target() -> Target:
    f = fork("b25")
    return make_target(
        "b25_uva_interface_elements",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b25", names={"_Interface": _Interface, "uva_view": _bu.uva_view}),
    )
