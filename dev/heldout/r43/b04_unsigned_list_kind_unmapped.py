"""b04 (CPU): a list that numpy makes unsigned (ints of 2**63 and more) is inferred as complex, not int64.

Where: _host.py, ``_list_own_dtype``.
Change: ``if kind in "iu": return torch.int64`` -> ``if kind == "i": return torch.int64``.
Why plausible: "Python ints are signed, so numpy's kind for them is 'i'": the developer forgets that
numpy builds uint64 for non-negative ints of 2**63 and more; the fall-through (complex) is the last
branch and looks unreachable.
Promise broken: docs/reference.md: "a list whose ints reach 2**63 needs a target dtype that holds them
(...; with no dtype, or beside negative ints or floats, it is refused with ValueError)"; as_source_tensor
docstring: "own_dtype follows torch.tensor's inference for lists (... int -> torch.int64 ...)".
Smallest input:
    async_tensor_h2d([2**63], device="cpu")
Reference: ValueError "data[0] = 9.223372036854776e+18 is out of range for torch.int64 [...]". Bug: no exception,
tensor([9.2234e+18+0.j], dtype=torch.complex64).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full

TAG = "b04"


def _list_own_dtype(data, arr, source):
    if _has_typed_leaf(data):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                return torch.tensor(data).dtype
        except (TypeError, ValueError, RuntimeError, OverflowError):
            return source.dtype
    kind = arr.dtype.kind
    if kind == "b":
        return torch.bool
    if kind == "i":  # BUG: was `if kind in "iu":`
        return torch.int64
    if kind == "f":
        return torch.get_default_dtype()
    return torch.complex128 if torch.get_default_dtype() == torch.float64 else torch.complex64


def _fork():
    return fork(TAG, _host={"_list_own_dtype": _list_own_dtype})


def target() -> Target:
    return fork_target_full("b04_unsigned_list_kind_unmapped", _fork())
