"""Mutants for the kinds the outside round r40 found missing (the contract checks added for them must kill these).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils


def _host(device: Any) -> bool:
    return isinstance(device, (str, torch.device)) and torch.device(device).type == "cpu"


@mutant(killed_by=("values",), by=("prop_values_bool_bytes",))
def bool_copied_as_raw_bytes() -> Target:
    """A same-dtype copy of a large bool tensor is one numpy memcpy ("bool is a byte"): bytes other than 0 and 1 come
    through as they are, where torch's copies write 1."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        same = isinstance(data, torch.Tensor) and data.dtype is torch.bool and dtype in (None, torch.bool)
        if same and out is None and _host(device) and data.numel() > 32768:
            return torch.from_numpy(np.ascontiguousarray(data.numpy()).copy())
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("bool_copied_as_raw_bytes", fn)


@mutant(killed_by=("values",), by=("prop_values_numpy_error_state",))
def numpy_cast_under_callers_error_state() -> Target:
    """A float array into float32 or bool is converted by numpy's ``astype`` with no ``np.errstate`` of its own: under
    the caller's ``np.errstate(all="raise")`` a value past float32 raises FloatingPointError (a warning otherwise)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, np.ndarray) and data.dtype.kind == "f" and dtype in (torch.float32, torch.bool):
            data = data.astype(np.float32 if dtype is torch.float32 else np.bool_)
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("numpy_cast_under_callers_error_state", fn)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table",))
def grad_refusal_for_leaves_only() -> Target:
    """``out`` requiring grad is refused only when it is a leaf (torch's own rule for in-place writes): a non-leaf
    ``out`` is written and the copy recorded by autograd, a view of a leaf gets torch's RuntimeError."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(out, torch.Tensor) and out.requires_grad and not out.is_leaf:
            return out.copy_(torch.as_tensor(data, dtype=out.dtype))
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("grad_refusal_for_leaves_only", fn)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table",))
def device_cache_looked_up_first() -> Target:
    """The resolved-device cache is read before ``device``'s type is checked: a list or a dict raises "unhashable
    type", naming no argument."""
    seen: dict[Any, Any] = {}

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if device is not None and seen.get(device) is None:
            seen[device] = True
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("device_cache_looked_up_first", fn)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table",))
def conj_resolved_before_overlap_check() -> Target:
    """A conj or neg view is resolved into a copy before the overlap check: ``data`` a lazy view of ``out`` is no
    longer seen as sharing its memory, and ``out`` (so ``data``) is rewritten."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, torch.Tensor) and (data.is_conj() or data.is_neg()):
            data = data.resolve_conj().resolve_neg()
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("conj_resolved_before_overlap_check", fn)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table",))
def integer_dtype_range_read_first() -> Target:
    """The target dtype's range is read with ``torch.iinfo`` before the dtype is checked: a sub-byte integer dtype
    (``torch.uint4``) raises iinfo's TypeError, which names no argument."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(dtype, torch.dtype) and not (dtype.is_floating_point or dtype.is_complex or dtype is torch.bool):
            torch.iinfo(dtype)
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("integer_dtype_range_read_first", fn)


@mutant(killed_by=("staged-write",), by=("prop_staged_in_contexts",))
def staged_writes_with_put() -> Target:
    """``apply_write`` stores with ``Tensor.put_`` (flat positions, no view): torch has no deterministic ``put_``, so
    under ``torch.use_deterministic_algorithms(True)`` every apply raises."""

    class Staged(U.StagedWriteTensor):
        def apply_write(self) -> None:
            if not self._staged_write_indices:
                return
            positions, contents = U._converted(self)
            _, last_rev = np.unique(positions[::-1], return_index=True)
            keep = np.sort(len(positions) - 1 - last_rev)
            where = torch.from_numpy(positions[keep]).to(self.gpu.device)
            self.gpu.put_(where, contents.index_select(0, torch.from_numpy(keep).to(contents.device)))
            self.clear_staged_writes()

    return reference_target("staged_writes_with_put", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("input-untouched",), by=("prop_input_untouched_table",))
def float_truncated_in_place() -> Target:
    """The float-into-int range check truncates with ``np.trunc(arr, out=arr)`` on ``astype(copy=False)``, which is the
    caller's own float64 array: the caller's data loses its fractions."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        target = dtype if dtype is not None else getattr(out, "dtype", None)
        integer = isinstance(target, torch.dtype) and not (target.is_floating_point or target.is_complex)
        if integer and isinstance(data, np.ndarray) and data.dtype == np.float64 and data.flags.writeable:
            arr = data.astype(np.float64, copy=False)
            np.trunc(arr, out=arr)
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("float_truncated_in_place", fn)
