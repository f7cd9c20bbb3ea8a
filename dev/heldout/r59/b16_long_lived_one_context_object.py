"""b16 (CPU): ``long_lived()`` hands out one module-level ``torch.inference_mode(False)`` object instead of a new one.

Where: ``h2d_impl/buffer.py::long_lived`` (the context every buffer class makes its tensors in: ``CpuGpuBuffer``
and the Model Runner V2 classes, which import it).

Change: the context object hoisted ("it is the same ``inference_mode(False)`` every time: build it once, not once
per buffer and pool slot")::

    def long_lived():                                                        # reference
        return torch.inference_mode(False)

    _LONG_LIVED = torch.inference_mode(False)                                # bug
    def long_lived():
        return _LONG_LIVED

``torch.inference_mode`` objects are not re-entrant: ``__enter__`` stores the C++ guard it makes on the object
(``self._inference_mode_context``), and a guard restores the mode it found when it is destroyed. Used once at a time,
one shared object behaves. Nested, it does not, and the buffer classes nest it: ``UvaBackedTensor.__init__`` makes
its pool inside ``long_lived()``, and each pool slot (``NonUvaBuffer``, ``UvaBuffer``) enters ``long_lived()``
again. The first slot's ``__enter__`` overwrites the outer guard, whose destruction puts the caller's mode back:
under ``torch.inference_mode()`` that slot's host tensor and twin are made as inference tensors; its ``__exit__``
then restores the mode *its* guard found (off), and the outer ``__exit__`` re-exits that same guard, so the caller's
``torch.inference_mode()`` block goes on with inference mode off. After the block, every refresh that lands in the
inference slot raises "Inplace update to inference tensor outside InferenceMode" (the first ``copy_to_uva()``, the
third, ...). Outside inference mode, and for classes that do not nest (``StagedWriteTensor`` without UVA, a bare
pool, ``CpuGpuBuffer``), nothing shows. Engines build their sampling and input states (temperature, top_p,
``num_blocks``: ``UvaBackedTensor``\\ s) inside the runner's inference mode.

Promise broken: docs/reference.md, Calling contexts: "a ``CpuGpuBuffer``'s and Model Runner V2's classes' own
tensors (pool slots grown during a call included) are made under ``torch.inference_mode(False)``: ... a buffer made
or a slot grown under ``torch.inference_mode()`` is written after it as well"; "Process-wide state: a call changes
none"; docs/contracts.md, Model Runner V2: "the calls must leave the context's modes as they found them".

Smallest input: ``with torch.inference_mode(): t = UvaBackedTensor(2, torch.int32); on =
torch.is_inference_mode_enabled()``; after the block ``t.np[:] = 1; t.copy_to_uva()``.
Reference: ``on`` is True; ``tensor([1, 1], dtype=torch.int32)``. Bug: ``on`` is False (inference mode switched off
inside the caller's block); ``RuntimeError: Inplace update to inference tensor outside InferenceMode is not
allowed...``.
"""

from __future__ import annotations

import contextlib

import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as ref_buffer

# ruff: noqa: F821  (the forked module's globals: _LONG_LIVED)


def long_lived() -> contextlib.AbstractContextManager[None]:
    """The context a buffer's own tensors are made in: ``torch.inference_mode(False)`` (one object, made once)."""
    return _LONG_LIVED  # BUG (r59 b16): one shared inference_mode object: not re-entrant when buffers nest


def target() -> Target:
    shared = torch.inference_mode(False)  # BUG (r59 b16): the module-level object (one per target here)
    f = fork("b16", buffer={"long_lived": long_lived, "_LONG_LIVED": shared})
    # CpuGpuBuffer (a class: not copied by fork) with its __init__ reading the forked module's long_lived
    buffer_cls = type(
        "CpuGpuBuffer",
        (ref_buffer.CpuGpuBuffer,),
        {"__init__": rebind(ref_buffer.CpuGpuBuffer.__init__, f.buffer), "__module__": "r59.b16"},
    )
    return make_target(
        "b16_long_lived_one_context_object",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=buffer_cls,
        buffer_utils=bu_fork("b16", names={"long_lived": long_lived, "_LONG_LIVED": shared}),
    )
