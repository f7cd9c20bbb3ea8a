"""``values`` at scale: the size ladder (every kind and dtype at sizes crossing every power of two up to 2**20), the
conversion ladder, the row ladder of 2-D lists and log-uniform drawn sizes, judged by :func:`check_values_bulk`
against values exact by construction (:func:`strategies.bulk_values`)."""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, accepted, require_device, run_given
from h2d_contracts.harness.target import Target

from .checks import check_values_bulk

#: The dtypes the size ladder runs every kind in (float8 has no numpy dtype and no Python
#: list conversion of its own: the product table covers it at 4097 elements).
SIZE_DTYPES = (
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint16,
    torch.uint32,
    torch.uint64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
)

#: The dtype of each kind whose ladder has every rung (``2**k - 1``, ``2**k``, ``2**k + 1``);
#: the others take one rung per octave, rotating, so together they hit every rung.
FULL_LADDER_DTYPE = {"list": torch.int64, "ndarray": torch.int32, "tensor": torch.float32}


def _ladder_payload(kind: str, source: torch.Tensor, layout: str) -> tuple[Any, torch.Tensor]:
    """``(payload, its values as a tensor)``: ``source`` as a list, an ndarray or a tensor, contiguous or a dense transposed view."""
    if layout == "transposed":
        n = source.numel()
        cols = 3 if n % 3 == 0 else 1
        source = source.reshape(cols, n // cols).t()  # dense, non-contiguous: strides (1, rows)
    if kind == "list":
        return source.tolist(), source
    if kind == "ndarray":
        return source.numpy(), source
    return source, source


@prop("values", table=True, ladder=True)
def prop_values_sizes(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every kind and dtype at sizes crossing every power of two from 1 to 2**20 (a table: strategies.ladder).

    Lists (with ``dtype=``; past 2**16 one list of 2**20 + 1 elements per dtype, every rung
    for :data:`FULL_LADDER_DTYPE`), ndarrays and tensors (their own dtype) of :data:`SIZE_DTYPES`;
    for arrays and tensors also a dense transposed view at every rung past 1,024 elements
    that divides by 3 (a result must still be contiguous). Values from
    :func:`strategies.bulk_values`, judged by :func:`check_values_bulk` (no
    element-by-element oracle at a million elements).
    """
    require_device(target, device, "values")
    sparse = overrides.pop("ladder", "full") == "sparse"
    del overrides  # deterministic: every row every run
    kinds = accepted(target, ["list", "ndarray", "tensor"], "values")
    rows = Rows("values size ladder")
    for kind in kinds:
        for i, dtype in enumerate(SIZE_DTYPES):
            if kind == "ndarray" and dtype not in hs.NUMPY_OF:
                continue  # bfloat16: no numpy dtype
            full = dtype is FULL_LADDER_DTYPE[kind] and not sparse
            # a list of a million numbers costs a quarter second to build, snapshot and judge: past 2**16 a
            # list of each dtype crosses the rest of the ladder in one step (2**20 + 1), the full-ladder dtype at every rung
            sizes = (
                hs.ladder(rotation=i, full=full, sparse=sparse)
                if kind != "list" or full
                else (
                    *hs.ladder(rotation=i, top=16, sparse=sparse),
                    *(() if sparse and i else (2**hs.MAX_EXPONENT + 1,)),
                )
            )
            for n in sizes:
                # the dtype's extremes, subnormals, signed zeros, infinities and NaN at every size (pure copies)
                source = hs.bulk_values(n, dtype, offset=n, specials=True)
                layouts = (
                    ("contiguous", "transposed") if kind != "list" and n > 1024 and n % 3 == 0 else ("contiguous",)
                )
                for layout in layouts:
                    payload, expected = _ladder_payload(kind, source, layout)
                    kwargs: dict[str, Any] = (
                        {"device": device, "dtype": dtype} if kind == "list" else {"device": device}
                    )
                    rows.row(check_values_bulk, target, payload, kwargs, expected)
    rows.finish()


#: (source, target) dtype pairs of the conversion ladder: the same item size (a conversion that
#: reinterprets the bits instead passes every pure copy), widening and narrowing.
CONVERSION_PAIRS = (
    (torch.int32, torch.float32),
    (torch.float32, torch.int32),
    (torch.int64, torch.float64),
    (torch.float64, torch.int64),
    (torch.int16, torch.float16),
    (torch.float16, torch.bfloat16),
    (torch.bfloat16, torch.int16),
    (torch.uint8, torch.int8),
    (torch.int32, torch.int64),
    (torch.float32, torch.float64),
    (torch.int64, torch.int32),
    (torch.float64, torch.float16),
    (torch.bool, torch.uint8),
    (torch.int32, torch.bool),
)


@prop("values", table=True, ladder=True)
def prop_values_conversion_sizes(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: ndarrays and tensors converted by ``dtype=`` (same item size, widening, narrowing) at one rung an octave up to 2**20 (a table).

    Every value is exact in both dtypes (:func:`strategies.bulk_values` with ``exact_in``),
    so the expected result is the values themselves; a conversion that copies the bits
    (a same-size ``view``) or goes through a narrower type above some size passes every
    small test.
    """
    require_device(target, device, "values")
    sparse = overrides.pop("ladder", "full") == "sparse"
    del overrides  # deterministic: every row every run
    kinds = accepted(target, ["ndarray", "tensor"], "values")
    rows = Rows("values conversion ladder")
    for kind in kinds:
        for i, (src, dst) in enumerate(CONVERSION_PAIRS):
            if kind == "ndarray" and src not in hs.NUMPY_OF:
                continue
            for n in hs.ladder(
                rotation=i + (kind == "tensor"), top=hs.MAX_EXPONENT if i % 2 == 0 else 18, sparse=sparse
            ):
                source = hs.bulk_values(n, src, offset=n, exact_in=(dst,) if dst is not torch.bool else ())
                payload = source.numpy() if kind == "ndarray" else source
                rows.row(check_values_bulk, target, payload, {"device": device, "dtype": dst}, source)
    rows.finish()


@prop("values", table=True)
def prop_values_rows(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: 2-D lists (a block table, one row per request) of 1-4097 rows (strategies.ROW_LADDER) x 1, 3, 16 columns.

    int32 and int64 as vLLM's block tables and slot mappings are, and float32, lists with
    and without ``dtype=`` (then inferred: int64, float32); the same shapes as ndarrays. Every row must arrive: a conversion a block of rows at a time
    that drops the last partial block passes every small test.
    """
    require_device(target, device, "values")
    del overrides  # deterministic: every row every run
    kinds = accepted(target, ["list", "ndarray"], "values")
    rows = Rows("values row ladder")
    for kind in kinds:
        for j, cols in enumerate((1, 3, 16)):
            for i, dtype in enumerate((torch.int32, torch.int64, torch.float32)):
                for m, r in enumerate(hs.ROW_LADDER[(i + j) % 2 :: 2] if cols == 16 else hs.ROW_LADDER):
                    source = hs.bulk_values(r * cols, dtype, offset=r, shape=(r, cols))
                    payload = source.tolist() if kind == "list" else source.numpy()
                    kwargs: dict[str, Any] = {"device": device}
                    if kind == "list" and (m % 2 or "dtype" in target.requires):
                        kwargs["dtype"] = (
                            dtype  # else the list's own dtype: int64 for ints, the default float dtype for floats
                        )
                    rows.row(check_values_bulk, target, payload, kwargs, source)
    rows.finish()


@prop("values", cap=12)
def prop_values_log_sizes(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: sizes drawn log-uniformly up to 2**20 (lists 2**16; strategies.log_sizes), any kind, dtype, layout and route.

    Between the ladder's rungs: a size of each octave as likely as any other, shrinking
    toward the smallest size that still fails. Data contiguous or a dense transposed view;
    ``dtype=`` and (where the target has it) ``out=`` drawn, the out contiguous or a
    strided view (every other element of a wider tensor).
    """
    require_device(target, device, "values")
    kinds = accepted(target, ["list", "ndarray", "tensor"], "values")
    use_out = "out" in target.capabilities

    def body(data: st.DataObject) -> None:
        kind = data.draw(st.sampled_from(kinds), label="kind")
        # lists up to 2**16 here (a Python list of a million numbers costs a quarter second to build and
        # judge; the ladder takes them to 2**20), arrays and tensors up to 2**20
        n = data.draw(hs.log_sizes(16 if kind == "list" else hs.MAX_EXPONENT), label="elements")
        dtype = data.draw(
            st.sampled_from([d for d in SIZE_DTYPES if kind != "ndarray" or d in hs.NUMPY_OF]), label="dtype"
        )
        source = hs.bulk_values(n, dtype, offset=data.draw(st.integers(0, 1000), label="offset"))
        payload, expected = _ladder_payload(
            kind, source, data.draw(st.sampled_from(["contiguous", "transposed"]), label="layout")
        )
        kwargs: dict[str, Any] = {"device": device}
        if kind == "list" or "dtype" in target.requires or data.draw(st.booleans(), label="pass dtype"):
            kwargs["dtype"] = dtype
        if use_out and data.draw(st.booleans(), label="pass out"):
            shape = tuple(expected.shape)
            if data.draw(st.booleans(), label="strided out"):
                out = torch.zeros((*shape[:-1], 2 * shape[-1]), dtype=dtype, device=device)[..., ::2]
            else:
                out = torch.zeros(shape, dtype=dtype, device=device)
            kwargs = {"dtype": dtype, "out": out}
        check_values_bulk(target, payload, kwargs, expected)

    run_given(body, overrides)
