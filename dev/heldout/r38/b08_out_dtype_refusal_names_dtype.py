"""b08 (CPU-visible, h2d.py ``_check_out``): an unsupported ``out`` dtype is refused under the name ``dtype``.

What changed: ``check_dtype_arg(out.dtype, name="out.dtype")`` became
``check_dtype_arg(out.dtype)`` (the helper's default name is ``"dtype"``).

Why an engineer would write it: a tidy-up of call sites ("every other call of
``check_dtype_arg`` passes no name"); the exception type is unchanged, so every test that
checks ``pytest.raises(TypeError)`` still passes.

Promise broken: refusals name the argument at fault (docs/reference.md "Errors: ...
naming the argument"; contracts.md bad-input: "a message naming the argument at fault";
kind ``out-unsupported-dtype``). The caller passed no ``dtype`` at all; the message blames
it ("dtype=torch.complex32 is not supported") and never mentions ``out``.

Smallest input: ``async_tensor_h2d([0], out=torch.tensor([0j], dtype=torch.complex32))``.
Reference: ``TypeError: out.dtype=torch.complex32 is not supported: torch has no host copy
kernel for it``. Bug: ``TypeError: dtype=torch.complex32 is not supported: ...`` (``out``
not named).
"""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.contracts import Target

from ._common import Fork, buffer_utils_ns, fork, make_target


def _check_out(out: Any) -> None:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__qualname__}")
    if out.layout != torch.strided:
        raise TypeError(f"out has layout {out.layout}; only strided (dense) tensors can be written")
    check_dtype_arg(out.dtype)  # BUG: name="out.dtype" dropped: the refusal names `dtype`, not `out`  # noqa: F821
    if out.requires_grad:
        raise ValueError("out requires grad; in-place writes into it would be recorded by autograd")
    if out.is_inference() and not torch.is_inference_mode_enabled():
        # torch's copy_ would write first and raise RuntimeError after (nothing must be written).
        raise ValueError(
            "out is an inference tensor (made under torch.inference_mode()); write it inside inference mode"
        )
    if out.is_nested:
        raise TypeError("out is a nested tensor; only strided (dense) tensors can be written")
    if _may_overlap(out):  # noqa: F821
        raise ValueError(f"out has internally overlapping memory (several elements share an address): {describe(out)}")  # noqa: F821


def _fork() -> Fork:
    return fork("b08", h2d={"_check_out": _check_out})


def target() -> Target:
    f = _fork()
    return make_target(
        "b08_out_dtype_refusal_names_dtype",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
