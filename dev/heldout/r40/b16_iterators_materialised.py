"""b16 (CPU-visible): iterators are materialised into lists, so generators are accepted (and consumed).

Where: ``h2d_impl/_host.py``, ``as_source_tensor`` (first statement).

Change: added ``if isinstance(data, collections.abc.Iterator): data = list(data)`` before
the dispatch on ``data``'s kind.

Why plausible: Model Runner V2's ``StagedWriteTensor.stage_write`` takes "any iterable"
(a generator of token ids is common in engine code), and making ``async_tensor_h2d`` as
lenient looks harmless: a generator of numbers is turned into the list it yields.
It consumes the caller's iterator, on valid and on refused calls alike.

Promise broken: ``async_tensor_h2d`` docstring, Raises: "TypeError: ``data`` of an
unsupported kind or dtype (None, str, generators, object arrays, sparse tensors)";
``as_source_tensor``: "TypeError: ``data`` is of an unsupported kind (None, str, dict,
generator, ...)"; README bad-input kind ``generator`` (TypeError, nothing written) and
input-untouched ("the caller's data ... is bit-identical after any call, valid or failing").

Smallest input: ``async_tensor_h2d((v for v in [1, 2]), device='cpu')``.
Reference: ``TypeError: data must be a list, tuple, numpy.ndarray, CPU torch.Tensor or
number, got builtins.generator``; the generator is untouched.
Bug: returns ``tensor([1, 2])``; the generator is exhausted (also when the call is then
refused, e.g. with a wrong-shape ``out``, which is written nothing but the caller's
iterator is gone).
"""

from __future__ import annotations

import collections.abc
import numbers
from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def as_source_tensor(data: Any, *, infer_dtype: bool = True) -> tuple[torch.Tensor, torch.dtype]:
    if isinstance(data, collections.abc.Iterator):  # BUG: generators and other iterators materialised
        data = list(data)
    if isinstance(data, torch.Tensor):
        if data.is_nested or data.layout != torch.strided:
            layout = "nested" if data.is_nested else data.layout
            raise TypeError(f"data has layout {layout}; only strided (dense) tensors are accepted")
        if not data.is_cpu:
            raise ValueError(f"data must be a host (CPU) tensor, got data.device={data.device}")
        if data.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"data has dtype {data.dtype}, which the reference cannot copy")
        # detach only what autograd tracks (~0.3 us a call otherwise): the source is only read
        return (data.detach() if data.requires_grad else data), data.dtype
    if isinstance(data, np.ndarray):
        source = _numpy_to_tensor(data)
        return source, source.dtype
    if isinstance(data, np.generic):
        source = _numpy_to_tensor(np.asarray(data))
        return source, source.dtype
    if isinstance(data, (list, tuple)) or (
        isinstance(data, (numbers.Number, np.bool_)) and not isinstance(data, (np.generic,))
    ):
        if not isinstance(data, (list, tuple, bool, int, float, complex)):
            raise TypeError(
                f"data of type {type(data).__qualname__} is not supported: pass an int, float, bool or complex"
            )
        flat = _flat_list(data)
        if flat is not None:
            return flat if infer_dtype else (flat[0], flat[0].dtype)
        arr = _list_to_array(data)
        source = _numpy_to_tensor(arr)
        if not infer_dtype:
            return source, source.dtype
        return source, _list_own_dtype(data, arr, source)
    raise TypeError(
        f"data must be a list, tuple, numpy.ndarray, CPU torch.Tensor or number, got "
        f"{type(data).__module__}.{type(data).__qualname__}"
    )

def _fork() -> Fork:
    return fork("b16", _host={"as_source_tensor": as_source_tensor, "collections": collections})


def target() -> Target:
    return fork_target_full("b16_iterators_materialised", _fork())
