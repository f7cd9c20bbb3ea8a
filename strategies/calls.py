"""Strategies for the other arguments: devices, wrong shapes, valid calls, keyword sets, buffer specs and row counts.

``out`` buffers (:mod:`.out_tensors`), the value-range cases (:mod:`.value_ranges`) and bad
inputs (:mod:`.bad_calls`) live in modules of their own; this module re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch
from hypothesis import strategies as st

from . import _validate as _v
from ._dtypes import FLOAT8_DTYPES, NUMPY_OF, USER_DTYPES
from .bad_calls import BadInput, bad_inputs, bad_inputs_table, value_bad_inputs_table
from .describe import describe_call
from .host import (
    HOST_KINDS,
    host_data,
    shapes,
    torch_dtypes,
)
from .out_tensors import OUT_KINDS, POISON, out_buffers, out_in_layout
from .value_ranges import ROUTES, VALUE_KINDS, value_case

__all__ = [
    "OUT_KINDS",
    "POISON",
    "ROUTES",
    "VALUE_KINDS",
    "value_bad_inputs_table",
    "value_case",
    "BadInput",
    "H2DCall",
    "bad_inputs",
    "bad_inputs_table",
    "buffer_specs",
    "devices",
    "h2d_calls",
    "out_buffers",
    "out_in_layout",
    "row_counts",
    "wrong_shapes",
]


@_v.eager(cpu=_v.boolean(), cuda=_v.boolean())
def devices(*, cpu: bool = True, cuda: bool = True) -> st.SearchStrategy[torch.device]:
    """Devices available on this machine: ``cpu`` and every ``cuda:i`` (always with an index)."""
    choices = [torch.device("cpu")] if cpu else []
    if cuda and torch.cuda.is_available():
        choices += [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    if not choices:
        raise ValueError("no device to draw: cpu=False and CUDA is not available")
    return st.sampled_from(choices)


@_v.eager(shape=_v.shape(optional=False, strategy=False), broadcastable=_v.boolean(optional=True))
@st.composite
def wrong_shapes(draw: st.DrawFn, shape: tuple[int, ...], *, broadcastable: bool | None = None) -> tuple[int, ...]:
    """Shapes different from ``shape``; with ``broadcastable=True`` ones ``shape`` broadcasts to.

    Broadcastable wrong shapes (``(4,)`` for data of shape ``(1,)`` or ``()``, ``(2, 3)``
    for ``(3,)``) are what ``Tensor.copy_`` silently accepts.
    """
    shape = tuple(shape)
    if broadcastable is None:
        broadcastable = draw(st.booleans(), label="broadcastable")
    if broadcastable:
        lead = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2), label="leading dims")
        grown = tuple(s if s != 1 else draw(st.integers(1, 4)) for s in shape)
        candidate = tuple(lead) + grown
        if candidate == shape:
            candidate = (2,) + shape
        return candidate
    candidate = draw(shapes(max_dims=3).filter(lambda s: s != shape), label="wrong shape")
    return candidate


@dataclass
class H2DCall:
    """One valid call: ``data`` plus the keyword arguments actually passed.

    ``kwargs`` omits the keys that are "not passed", so defaults are exercised too.
    """

    data: Any
    kwargs: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return describe_call(self.data, self.kwargs)


def _target_dtypes_for(data_dtype: torch.dtype | None) -> list[torch.dtype]:
    return list(USER_DTYPES + FLOAT8_DTYPES)


@_v.eager(
    device=_v.device(),
    kinds=_v.some_of(HOST_KINDS),
    out=_v.boolean(optional=True),
    dtype=_v.boolean(optional=True),
    pass_device=_v.boolean(optional=True),
    pinned=_v.boolean(optional=True),
    shape=_v.shape(),
    out_kind=_v.one_of(OUT_KINDS),
)
@st.composite
def h2d_calls(
    draw: st.DrawFn,
    device: torch.device,
    *,
    kinds: tuple[str, ...] = ("list", "ndarray", "tensor", "list-of-arrays"),
    out: bool | None = None,
    dtype: bool | None = None,
    pass_device: bool | None = None,
    pinned: bool | None = None,
    shape: tuple[int, ...] | st.SearchStrategy[tuple[int, ...]] | None = None,
    out_kind: str | None = None,
    inputs: frozenset[str] | None = None,
    requires: frozenset[str] = frozenset(),
) -> H2DCall:
    """Valid ``async_tensor_h2d`` calls targeting ``device``.

    - out / dtype / pass_device: force ``out=``, ``dtype=`` and ``device=`` to be
      passed (True) or omitted (False); None draws. At least one of device/out is passed.
    - kinds, pinned, shape: forwarded to :func:`host_data`.
    - out_kind: forwarded to :func:`out_buffers`.
    - inputs: a target's declared input kinds (:attr:`Target.inputs`): draw only inside them.
    - requires: the arguments a target requires (:attr:`Target.requires`): passed unless
      forced off (``dtype=False``), which then draws a call outside the target's domain.

    Values are always representable in the resolved dtype, so every call must succeed.
    """
    if "device" in requires and pass_device is None:
        pass_device = True
    if "out" in requires and out is None:
        out = True
    use_out = draw(st.booleans(), label="pass out") if out is None else out
    use_dtype = ("dtype" in requires or draw(st.booleans(), label="pass dtype")) if dtype is None else dtype
    target = draw(torch_dtypes(unsigned_wide=True), label="target dtype") if (use_dtype or use_out) else None
    data = draw(host_data(kinds=kinds, target_dtype=target, pinned=pinned, shape=shape, inputs=inputs), label="data")
    kwargs: dict[str, Any] = {}
    if use_dtype:
        kwargs["dtype"] = target
    if use_out:
        data_shape = tuple(np.shape(data)) if not isinstance(data, torch.Tensor) else tuple(data.shape)
        out_dtype = cast(torch.dtype, target)  # drawn above whenever use_out
        kwargs["out"] = draw(out_buffers(data_shape, out_dtype, device, kind=out_kind), label="out")
    if pass_device is None:
        pass_device = draw(st.booleans(), label="pass device") if use_out else True
    if pass_device or not use_out:
        kwargs["device"] = draw(st.sampled_from(_device_spellings(device)), label="device")
    return H2DCall(data, kwargs)


def _device_spellings(device: torch.device) -> list[Any]:
    """Equivalent ways users spell ``device`` (a bare "cuda" only for the current device)."""
    if device.type == "cpu":
        # "cpu:0" and torch.device("cpu", 0) are the host too (held-out testing found a target refusing them)
        return [torch.device("cpu"), "cpu", "cpu:0", torch.device("cpu", 0)]
    # an index as a numpy integer too (e.g. taken from an array of device ids): the GPU
    # mutation run left its conversion unchecked
    spellings: list[Any] = [device, str(device), device.index, np.int64(device.index)]
    if device.index == torch.cuda.current_device():
        spellings.append("cuda")
    return spellings


@_v.eager(max_rows=_v.integer(), numpy_only=_v.boolean())
@st.composite
def buffer_specs(draw: st.DrawFn, *, max_rows: int = 8, numpy_only: bool = False) -> dict[str, Any]:
    """Keyword sets for ``CpuGpuBuffer(*size, dtype=..., pin_memory=..., with_numpy=...)``.

    Returns a dict with ``size`` (a tuple, rows first, 0 rows allowed), ``dtype``,
    ``pin_memory`` (True or False, also where pinning is unavailable: the documented
    fallback is pageable memory) and ``with_numpy`` (False for
    dtypes numpy lacks, or when drawn). ``device`` is left to the caller.
    """
    rows = draw(st.integers(0, max_rows), label="rows")
    rest = draw(st.lists(st.integers(1, 3), max_size=2), label="row shape")
    dtype = draw(
        torch_dtypes(
            exclude=() if not numpy_only else tuple(d for d in USER_DTYPES + FLOAT8_DTYPES if d not in NUMPY_OF)
        ),
        label="dtype",
    )
    with_numpy = dtype in NUMPY_OF and draw(st.booleans(), label="with_numpy")
    # Pinning asked for where it is unavailable too: the buffer must fall back to pageable memory.
    pin = draw(st.booleans(), label="pin_memory")
    return {"size": (rows, *rest), "dtype": dtype, "pin_memory": pin, "with_numpy": with_numpy}


@_v.eager(capacity=_v.integer(), valid=_v.boolean(optional=True))
def row_counts(
    capacity: int, *, valid: bool | None = None
) -> st.SearchStrategy[int | np.integer[Any] | torch.Tensor | None]:
    """``n`` values for ``copy_to_gpu(n)`` / ``copy_to_cpu(n)``.

    - valid=True: None or ``0..capacity``, as a Python int, a numpy integer (engines
      often compute ``num_reqs`` with numpy) or a 0-d integer tensor (a count read off a
      tensor; ``operator.index`` takes it, as slicing does: held-out round r50 refused it);
      valid=False: negatives and ``capacity+1..`` (the "num_reqs + 1" overrun); None: both.
    """
    ints = st.integers(0, capacity) | st.sampled_from(
        sorted({0, capacity})
    )  # the ends explicitly: capacity is where off-by-ones bite
    good = st.none() | ints | ints.map(np.int64) | ints.map(np.int32) | ints.map(torch.tensor)
    bad = st.integers(-capacity - 3, -1) | st.integers(capacity + 1, capacity + 8)
    if valid is True:
        return good
    if valid is False:
        return bad
    return good | bad
