"""b05 huge_int_float_mix (CPU) -- ``_host._list_to_array``.

What changed: the rule that turns a list holding Python ints of 2**63 and up into uint64
data lost its first conjunct::

    if len(ints) == leaves.size and all(0 <= v < 2**64 for v in ints):   # reference
    if all(0 <= v < 2**64 for v in ints):                                # bug

so a list that mixes such ints with *floats* is also built as uint64 (the floats truncated)
instead of refused. Realistic: the length test reads like a redundant guard ("we only
collected ints anyway").

Promise broken (reference.md, Python ints past int64): "a list whose ints reach 2**63 needs
a target dtype that holds them ... beside negative ints or floats, it is refused with
``ValueError``" (contract ``bad-input``, kind ``huge-int-among-floats``).

Smallest input: ``async_tensor_h2d([1.5, 2**63], device="cpu", dtype=torch.uint64)``:
reference ``ValueError``; bug returns ``tensor([1, 9223372036854775808], dtype=uint64)``
(1.5 silently truncated to 1).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _list_to_array(data):
    try:
        arr = np.asarray(data)  # noqa: F821
    except ValueError as exc:
        raise ValueError(f"data is a ragged nested sequence and has no rectangular shape: {describe(data)}") from exc  # noqa: F821
    except (TypeError, RuntimeError) as exc:
        raise TypeError(f"data contains elements numpy cannot convert ({exc}): {describe(data)}") from exc  # noqa: F821
    if arr.dtype.kind == "O":
        for leaf in arr.ravel():
            if isinstance(leaf, bool) or not isinstance(leaf, numbers.Integral):  # noqa: F821
                if isinstance(leaf, (bool, np.bool_, float, complex, np.number)):  # noqa: F821
                    continue
                raise TypeError(
                    f"data contains {type(leaf).__name__} element {leaf!r}; only bool, int, float "
                    f"and complex elements are accepted: {describe(data)}"  # noqa: F821
                )
        raise ValueError(f"data contains integers outside the int64/uint64 range: {describe(data)}")  # noqa: F821
    if arr.dtype.kind not in _NUMPY_KINDS:  # noqa: F821
        raise TypeError(
            f"data contains elements of kind {arr.dtype} (strings, bytes or dates); only bool, "
            f"int, float and complex elements are accepted: {describe(data)}"  # noqa: F821
        )
    if arr.dtype.kind == "f" and arr.size and bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) >= 2.0**63).any()):  # noqa: F821
        leaves = np.asarray(data, dtype=object).ravel()  # noqa: F821
        ints = [int(v) for v in leaves if isinstance(v, numbers.Integral) and not isinstance(v, bool)]  # noqa: F821
        if all(0 <= v < 2**64 for v in ints):
            return np.asarray(data, dtype=np.uint64)  # noqa: F821
        if any(abs(v) >= 2**63 for v in ints):
            raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")  # noqa: F821
    return arr


def target() -> Target:
    f = fork("b05", _host={"_list_to_array": _list_to_array})
    return make_target(
        "b05_huge_int_float_mix",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05"),
    )
