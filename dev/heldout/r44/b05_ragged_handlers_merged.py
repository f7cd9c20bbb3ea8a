"""b05 (CPU): the two ``np.asarray`` handlers of the list path are merged, so ragged lists raise TypeError.

Where: ``_host._list_to_array`` (every nested list or tuple that is not a flat list of
one plain type: block tables, nested lists, mixed leaves; main function and variant).

The change::

    except ValueError as exc:            # ragged nesting
        raise ValueError("data is a ragged nested sequence ...") from exc
    except (TypeError, RuntimeError) as exc:
        raise TypeError("data contains elements numpy cannot convert ...") from exc
    ->
    except (ValueError, TypeError, RuntimeError) as exc:
        raise TypeError(f"data cannot be converted by numpy ({exc}): ...") from exc

Why an engineer writes it: both handlers re-raise "numpy could not make an array of
this", and a cleanup folds them into one; the merged message still names ``data`` and
still carries numpy's reason ("inhomogeneous shape"), so it reads as equivalent. It maps
numpy's ``ValueError`` for ragged nesting to ``TypeError``.

Promise broken: ``async_tensor_h2d`` docstring, Raises: "ValueError: ragged lists";
``as_source_tensor`` docstring: "ValueError: ragged nesting"; docs/reference.md *Errors*:
"``TypeError`` (wrong kind), ``ValueError`` (wrong value)"; bad-input kinds
``ragged-list`` and ``nested-scalar-mix`` (must raise ``ValueError``, docs/contracts.md).

Smallest input: ``async_tensor_h2d([[1], [1, 2]], device="cpu")``.
Reference: ``ValueError: data is a ragged nested sequence and has no rectangular shape``.
Bug: ``TypeError: data cannot be converted by numpy (setting an array element with a
sequence. The requested array has an inhomogeneous shape ...)``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target


def _list_to_array(data: Any) -> np.ndarray:
    """Build a numpy array from a (nested) list/tuple/scalar, rejecting ragged or non-numeric input."""
    try:
        arr = np.asarray(data)
    except (ValueError, TypeError, RuntimeError) as exc:  # BUG: one handler for "numpy cannot make an array of it"
        raise TypeError(f"data cannot be converted by numpy ({exc}): {describe(data)}") from exc
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
        # numpy turns a mix of ints below 2**63 and ints >= 2**63 into float64 silently. Ints alone, none
        # negative, all below 2**64, are uint64 values (torch.tensor(data, dtype=torch.uint64) takes them);
        # a mix with negative ints or with floats is refused, as torch.tensor refuses it.
        leaves = np.asarray(data, dtype=object).ravel()
        ints = [int(v) for v in leaves if isinstance(v, numbers.Integral) and not isinstance(v, bool)]
        if len(ints) == leaves.size and all(0 <= v < 2**64 for v in ints):
            return np.asarray(data, dtype=np.uint64)
        if any(abs(v) >= 2**63 for v in ints):
            raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")
    return arr

def _fork() -> Fork:
    return fork("b05", _host={"_list_to_array": _list_to_array})


def target() -> Target:
    f = _fork()
    return make_target(
        "b05_ragged_handlers_merged",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05"),
    )
