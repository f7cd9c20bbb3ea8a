"""b03 (CPU): the first offending index found on a flattened mask (``reshape(-1)``): a refusal of any data that is not 1-D indexes the wrong element.

Where: ``h2d_impl/_host.py::_first_index`` (the index the range and NaN checks put in their message).

Change (one call)::

    torch.nonzero(mask.reshape(mask.shape))[0]   # reference: an index with one entry per dimension
    torch.nonzero(mask.reshape(-1))[0]           # bug: "reshape(mask.shape) is a no-op; flatten for nonzero"

For 1-D data nothing changes. For a 0-d or n-D source the index is now a flat one, ``(k,)``,
and the message's value is read as ``wide[(k,)]``: for a 0-d source ``IndexError`` ("too many
indices for tensor of dimension 0"), for a 2-D one ``IndexError`` (k past the rows) or ``RuntimeError``
(a whole row given to ``.item()``), or a wrong element and index. So a refusal of an
out-of-range, NaN or infinite value in a scalar, a 2-D list, array or tensor escapes with an
undocumented type that names no argument.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d`` docstring, Raises: "ValueError: ...
NaN/inf or out-of-range values for an integer dtype"; h2d_impl/_host.py
``check_representable`` docstring: "Raises: TypeError, ValueError: as above; the message gives
the first offending index"; docs/contracts.md, bad-input: every kind "raises its documented
type, `TypeError` or `ValueError` (an `AssertionError` or a bare `RuntimeError` fails), with a
message naming the argument at fault"; docs/reference.md: "**Errors**: `TypeError` (wrong
kind), `ValueError` (wrong value), ... naming the argument".

Smallest input: ``async_tensor_h2d(-1, dtype=torch.uint8, device='cpu')``.
Reference: ``ValueError: data = -1 is out of range for torch.uint8 [0, 255]``.
Bug: ``IndexError: too many indices for tensor of dimension 0``. (2-D: ``async_tensor_h2d([[1, 2], [3, -4]],
dtype=torch.uint8, device='cpu')``: ``ValueError ... data[1, 1] = -4`` against ``IndexError``.)
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _first_index(mask: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(i) for i in torch.nonzero(mask.reshape(-1))[0].tolist())  # BUG (r50 b03): flattened


def target() -> Target:
    f = fork("b03", _host={"_first_index": _first_index})
    return make_target(
        "b03_error_index_flattened",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03"),
    )
