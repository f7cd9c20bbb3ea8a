"""b01 (CPU-visible, h2d.py ``async_tensor_h2d``): the options became keyword-only.

What changed: ``async_tensor_h2d(data, device=None, dtype=None, out=None)`` became
``async_tensor_h2d(data, *, device=None, dtype=None, out=None)`` (one ``*`` added).

Why an engineer would write it: "``device`` and ``dtype`` are easy to swap by position;
make them keyword-only so every call site is explicit". Every keyword call keeps
working, so a reviewer reading a diff of one character sees a safety improvement.

Promise broken: the documented signature. README ("vLLM's
``async_tensor_h2d(data, device=None, dtype=None, out=None)``"), docs/reference.md
("models vLLM's ``async_tensor_h2d(data, device=None, dtype=None, out=None)``") and the
docstring ("Models vLLM's ``async_tensor_h2d(data, device=None, dtype=None, out=None)``"):
vLLM's call sites pass the device positionally (``async_tensor_h2d(ids, "cuda")``).

Smallest input: ``async_tensor_h2d([1], "cpu")``.
Reference: ``tensor([1])``. Bug: ``TypeError: async_tensor_h2d() takes 1 positional
argument but 2 were given``.
"""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.contracts import Target

from ._common import REFERENCE, Fork, buffer_utils_ns, fork, make_target


def async_tensor_h2d(
    data: Any,
    *,  # BUG: keyword-only options; the documented (and vLLM's) signature takes them by position too
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """Copy host data to a device tensor without blocking the host thread (the reference's docstring applies)."""
    return _async_h2d(data, device, dtype, out)  # noqa: F821 (resolved in the forked module)


async_tensor_h2d.__doc__ = REFERENCE.async_tensor_h2d.__doc__  # the reference's docstring, unchanged


def _fork() -> Fork:
    return fork("b01", h2d={"async_tensor_h2d": async_tensor_h2d})


def target() -> Target:
    f = _fork()
    return make_target(
        "b01_keyword_only_signature",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
