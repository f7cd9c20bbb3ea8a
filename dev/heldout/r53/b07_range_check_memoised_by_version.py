"""b07 (CPU): the range check is memoised by the source's address and version counter: numpy writes never bump it.

Where: ``h2d_impl/_host.py::check_representable`` (wrapped; every entry point: ``async_tensor_h2d``,
the CPU variant, and their conversions).

Change: a memo in front of the check ("the engine re-sends the same buffers every step: a
1M-element range scan per step is wasted when nothing changed; ``_version`` says when it did")::

    check_representable(source, dtype)                                        # reference: every call

    key = (source.data_ptr(), source._version, shape, strides, source.dtype, dtype)   # bug
    if key in _CHECKED:
        return
    _check(source, dtype); _CHECKED[key] = True

``Tensor._version`` counts torch's in-place ops on that tensor object. A numpy array is wrapped
in a fresh tensor each call (``torch.from_numpy``, version 0), and writes through numpy never
touch a tensor's counter; the same holds for a ``CpuGpuBuffer.np`` refill of ``.cpu``. So the
second call with the same array, refilled in place with a value out of range, hits the memo and
the value wraps. (A list's fresh array landing at a freed array's address can hit it too.)

Promise broken: h2d_impl/_host.py ``check_representable``: "integer -> narrower integer: every
value must lie in the target's range, else ValueError"; h2d_impl/h2d.py ``async_tensor_h2d``:
"Raises: ValueError: ... out-of-range values for an integer dtype".

Smallest input: ``a = np.array([1]); async_tensor_h2d(a, dtype=torch.int8, device='cpu'); a[0] = 300;
async_tensor_h2d(a, dtype=torch.int8, device='cpu')``.
Reference: first ``tensor([1], dtype=torch.int8)``, second ``ValueError: data[0] = 300 is out of range for torch.int8 ...``.
Bug: second ``tensor([44], dtype=torch.int8)`` (300 wrapped).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _host


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    key = (source.data_ptr(), source._version, tuple(source.shape), source.stride(), source.dtype, dtype)
    if key in _CHECKED:  # noqa: F821  BUG (r53 b07): memo by address and version (numpy writes bump no version)
        return
    _check_uncached(source, dtype)  # noqa: F821  (the reference check, forked)
    if len(_CHECKED) < 4096:  # noqa: F821
        _CHECKED[key] = True  # noqa: F821


def target() -> Target:
    memo: dict[Any, bool] = {}
    f = fork(
        "b07",
        _host={
            "check_representable": check_representable,
            "_check_uncached": _host.check_representable,
            "_CHECKED": memo,
        },
    )
    return make_target(
        "b07_range_check_memoised_by_version",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07"),
    )
