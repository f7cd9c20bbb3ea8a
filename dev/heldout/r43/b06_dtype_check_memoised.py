"""b06 (CPU): the dtype validator is memoised with ``functools.lru_cache``; an unhashable ``dtype`` fails inside the cache.

Where: _host.py, ``check_dtype_arg`` (the name the forked ``_host``, ``h2d`` and ``buffer`` resolve).
Change: ``def check_dtype_arg(...)`` -> ``@functools.lru_cache(maxsize=None) def check_dtype_arg(...)``.
Why plausible: it runs on every call with one of a dozen dtypes; caching the (None-returning) check is
the classic micro-optimisation of a hot validator, and every valid dtype and every hashable bad one
(a string, a numpy dtype, a Python type) behaves as before.
Promise broken: README bad-input: "the documented exception, a message naming the argument";
_host module docstring: "Errors name the argument and echo the offending input"; check_dtype_arg
docstring: "Raise TypeError unless dtype is None or a torch dtype the reference copies".
Smallest input:
    async_tensor_h2d([1, 2], device="cpu", dtype=[torch.int32])
Reference: TypeError "dtype must be a torch.dtype or None, got [torch.int32]". Bug: TypeError
"unhashable type: 'list'" (names no argument; the same for a dict or an ndarray as ``dtype``).
"""

from __future__ import annotations

import functools

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full

TAG = "b06"


def _fork():
    f = fork(TAG)
    cached = functools.lru_cache(maxsize=None)(f.host.check_dtype_arg)  # BUG: the validator memoised
    for m in (f.host, f.h2d, f.buffer):  # every forked module that imported the name
        m.check_dtype_arg = cached
    return f


def target() -> Target:
    return fork_target_full("b06_dtype_check_memoised", _fork())
