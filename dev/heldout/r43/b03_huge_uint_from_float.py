"""b03 (CPU): a list of Python ints reaching 2**63 is made uint64 from numpy's float64 array, not from the ints.

Where: _host.py, ``_list_to_array`` (the huge-int branch).
Change: ``return np.asarray(data, dtype=np.uint64)`` -> ``return arr.astype(np.uint64)``.
Why plausible: ``arr`` (numpy's array of the same list) is already at hand; re-reading the whole
nested list a second time looks wasteful, and ``astype`` gives the same dtype.
Promise broken: docs/reference.md: "Python ints past int64: as in torch.tensor, a list whose ints reach
2**63 needs a target dtype that holds them (``[1, 2**64 - 1]`` with ``dtype=torch.uint64`` is uint64
data"; README values: "result equals data converted to the resolved dtype, bit for bit".
Smallest input:
    async_tensor_h2d([1, 2**63 + 1], device="cpu", dtype=torch.uint64)
Reference: tensor([1, 9223372036854775809], dtype=torch.uint64). Bug: tensor([1, 9223372036854775808])
(numpy turned the mix into float64 first; 2**64 - 1 even becomes 0).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full

TAG = "b03"


def _list_to_array(data):
    try:
        arr = np.asarray(data)
    except ValueError as exc:
        raise ValueError(f"data is a ragged nested sequence and has no rectangular shape: {describe(data)}") from exc
    except (TypeError, RuntimeError) as exc:
        raise TypeError(f"data contains elements numpy cannot convert ({exc}): {describe(data)}") from exc
    if arr.dtype.kind == "O":
        for leaf in arr.ravel():
            if isinstance(leaf, bool) or not isinstance(leaf, numbers.Integral):
                if isinstance(leaf, (bool, np.bool_, float, complex, np.number)):
                    continue
                raise TypeError(
                    f"data contains {type(leaf).__name__} element {leaf!r}; only bool, int, float "
                    f"and complex elements are accepted: {describe(data)}"
                )
        raise ValueError(f"data contains integers outside the int64/uint64 range: {describe(data)}")
    if arr.dtype.kind not in _NUMPY_KINDS:
        raise TypeError(
            f"data contains elements of kind {arr.dtype} (strings, bytes or dates); only bool, "
            f"int, float and complex elements are accepted: {describe(data)}"
        )
    if arr.dtype.kind == "f" and arr.size and bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) >= 2.0**63).any()):
        leaves = np.asarray(data, dtype=object).ravel()
        ints = [int(v) for v in leaves if isinstance(v, numbers.Integral) and not isinstance(v, bool)]
        if len(ints) == leaves.size and all(0 <= v < 2**64 for v in ints):
            return arr.astype(np.uint64)  # BUG: was np.asarray(data, dtype=np.uint64)
        if any(abs(v) >= 2**63 for v in ints):
            raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")
    return arr


def _fork():
    return fork(TAG, _host={"_list_to_array": _list_to_array})


def target() -> Target:
    return fork_target_full("b03_huge_uint_from_float", _fork())
