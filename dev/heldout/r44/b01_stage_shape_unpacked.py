"""b01 (CPU): the host result is allocated with the shape unpacked as varargs, so 0-d data fails.

Where: ``h2d._stage`` (the fresh host result of every call aimed at ``"cpu"`` without
``out``, in the main function and the CPU-platform variant).

The change::

    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
    ->
    staging = torch.empty(*source.shape, dtype=dtype, device="cpu", pin_memory=pin)

Why an engineer writes it: engine code allocates with the varargs spelling everywhere
(``torch.empty(num_tokens, hidden_size, ...)``) and a reviewer reads ``*source.shape`` as
the same call. It is, for every shape with at least one dimension; for the 0-d shape
``()`` torch gets no size at all and raises ``TypeError: empty() missing 1 required
positional arguments: "size"``.

Promise broken: docs/reference.md "What it promises" -- *Inputs*: "Python and numpy
scalars"; the ``async_tensor_h2d`` docstring: data "a Python or numpy scalar (``S ==
()``)", "Returns: ... a new contiguous tensor of shape ``S``"; README ``values``: "every
dtype, input kind and layout". Every scalar (Python number, numpy scalar, 0-d ndarray,
0-d tensor) aimed at the host is refused with an undocumented ``TypeError``.

Smallest input: ``async_tensor_h2d(5, device="cpu")``.
Reference: ``tensor(5)``. Bug: ``TypeError: empty() missing 1 required positional
arguments: "size"`` (the same from ``async_tensor_h2d_cpu(5, device="cpu")``).
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target


def _stage(source: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    """A fresh contiguous host copy of ``source`` converted to ``dtype`` (pinned if ``pin``)."""
    staging = torch.empty(*source.shape, dtype=dtype, device="cpu", pin_memory=pin)  # BUG: shape unpacked
    return _host_copy(staging, source)  # noqa: F821 (bound in the fork)


def _fork() -> Fork:
    return fork("b01", h2d={"_stage": _stage})


def target() -> Target:
    f = _fork()
    return make_target(
        "b01_stage_shape_unpacked",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01"),
    )
