"""b10 (CPU): the error message's tensor preview sets torch's print options for the whole process.

Where: ``_host.describe`` (the description of a tensor argument in an error message:
``out`` with internally overlapping memory, from ``h2d._check_out``).

The change: the tensor branch gains a values preview, made short the usual way::

    torch.set_printoptions(threshold=8, edgeitems=2)
    return f"Tensor(shape=..., dtype=..., device=..., stride=...{pinned}, values={obj})"

Why an engineer writes it: a user who gets "out has internally overlapping memory" wants
to see the tensor, and a 4096-row ``out`` must not flood the log; ``set_printoptions`` is
the documented knob and a reviewer reads it as formatting. It is process-wide and never
restored: after one refused call every tensor the program prints (logs, debugging,
``repr`` in other libraries) is summarised past 8 elements with 2 edge items.

Promise broken: docs/reference.md "Calling contexts": "Process-wide state: a call changes
none (contract ``side-effects``)"; docs/contracts.md ``side-effects``: "Every call, valid
or failing, ... leaves the process-wide state as it found it ... torch's print options".

Smallest input: ``async_tensor_h2d([0.0, 0.0], out=torch.zeros(1).expand(2))``, then read
``torch._tensor_str.PRINT_OPTS.threshold``.
Reference: ``ValueError: out has internally overlapping memory ...``; threshold ``1000``
(as found). Bug: the same ``ValueError`` (with a values preview); threshold ``8``,
edgeitems ``2``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target

# flake8: noqa: F821  (the function below resolves the reference's names in the fork)

def describe(obj: Any) -> str:
    """A short, reproducible description of a data/out argument for error messages."""
    if isinstance(obj, torch.Tensor):
        pinned = ""
        if obj.device.type == "cpu" and obj.layout == torch.strided and pin_memory_available():
            pinned = ", pinned" if obj.is_pinned() else ", pageable"
        torch.set_printoptions(threshold=8, edgeitems=2)  # BUG: a short preview of the values for the message
        return (
            f"Tensor(shape={tuple(obj.shape)}, dtype={obj.dtype}, device={obj.device}, "
            f"stride={obj.stride() if obj.layout == torch.strided else obj.layout}{pinned}, values={obj})"
        )
    if isinstance(obj, np.ndarray):
        return f"ndarray(shape={obj.shape}, dtype={obj.dtype}, strides={obj.strides})"
    text = repr(obj)
    return text if len(text) <= 80 else text[:77] + "..."


def _fork() -> Fork:
    return fork("b10", _host={"describe": describe})


def target() -> Target:
    f = _fork()
    return make_target(
        "b10_error_preview_print_options",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10"),
    )
