"""Contract ``values``: the result equals ``data`` converted to the resolved dtype, on the requested device.

Bit for bit (NaN and -0.0 included), same shape, on the requested device with its index,
contiguous when made without ``out`` (any input layout), never part of the caller's
autograd graph. The check is :func:`check_values`; the properties draw every input kind,
layout, dtype and route (``device=``, ``dtype=``, ``out=``), and deterministic tables hit
what random draws reach only by luck (every dtype at its edges, every layout, typed numpy
scalars wherever they sit, Python floats under another default dtype, the first call of a
process).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import call_valid, check_device, domain_kwargs, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.domain import in_domain
from h2d_contracts.harness.oracle import assert_same_values, expected_tensor, own_dtype, resolve_device, resolve_dtype
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, accepted, require_device, run_given
from h2d_contracts.harness.target import Target, run_fresh
from h2d_contracts.harness.violations import NotApplicable, fail
from h2d_contracts.strategies.describe import LazyCall

__all__ = [
    "CONVERSION_PAIRS",
    "FIRST_CALL_CASES",
    "FULL_LADDER_DTYPE",
    "SIZE_DTYPES",
    "LARGE_LENGTHS",
    "LAYOUT_SHAPES",
    "MULTI_MB_ELEMENTS",
    "PRODUCT_SIZES",
    "TYPED_LEAF_PLACES",
    "TYPED_LEAVES",
    "check_values",
    "check_values_bulk",
    "check_values_equal",
    "check_values_first_call",
    "first_call_inputs",
]


@check("values", valid_call=True)
def check_values(target: Target, data: Any, kwargs: dict[str, Any]) -> torch.Tensor:
    """values: the result equals ``data`` converted to the resolved dtype, same shape, on the requested device.

    Also checks the result's device index (``cuda:1`` stays ``cuda:1``), that a result
    made without ``out`` is contiguous (any input layout), and, with ``out``, that the
    returned object *is* ``out``. Returns the result.
    """
    call = target.describe_call(data, kwargs)
    dtype = resolve_dtype(data, kwargs)
    expected = expected_tensor(data, dtype)
    return _judged_call(target, data, kwargs, expected, call)


def _judged_call(target: Target, data: Any, kwargs: dict[str, Any], expected: torch.Tensor, call: str) -> torch.Tensor:
    """Call the target once and judge the result against ``expected``: device, bits, contiguity, autograd."""
    __tracebackhide__ = True
    dtype = expected.dtype
    device = resolve_device(kwargs)
    result = call_valid("values", target, data, kwargs)
    synchronize(device)
    check_device("values", result, device, call)
    pure_copy = isinstance(data, (torch.Tensor, np.ndarray, np.generic)) and own_dtype(data) == dtype
    assert_same_values(result, expected, contract="values", call=call, nan_payloads=pure_copy)
    if kwargs.get("out") is None and not result.is_contiguous():
        # a fresh result is dense and row-major, as torch.tensor's (docs/reference.md: staged into a fresh
        # contiguous buffer); a transposed input returned with its own strides breaks .view()
        fail(
            "values",
            "result is not contiguous",
            got=f"strides {tuple(result.stride())} for shape {tuple(result.shape)}",
            expected=f"strides {tuple(torch.empty(result.shape, device='meta').stride())}",
            call=call,
        )
    if result.requires_grad or result.grad_fn is not None:
        # a copy for the device is data, not a step of the caller's autograd graph (torch.tensor
        # and the reference detach); an out written from a tensor that requires grad joins it
        fail(
            "values",
            "the result is part of the caller's autograd graph",
            got=f"requires_grad={result.requires_grad}, grad_fn={type(result.grad_fn).__name__ if result.grad_fn is not None else None}",
            expected="requires_grad=False, grad_fn=None (a detached copy)",
            call=call,
        )
    return result


@check("values", valid_call=True)
def check_values_bulk(target: Target, data: Any, kwargs: dict[str, Any], source: torch.Tensor) -> torch.Tensor:
    """values, at scale: ``data`` was made from the CPU tensor ``source`` (``source.tolist()``, ``.numpy()``, a view of it).

    The expected result is ``source`` converted to the resolved dtype, in one vectorised
    step: exact by construction, because :func:`strategies.bulk_values` makes every value
    representable in the dtype it is made for (so a million-element list is judged without
    the oracle's element-by-element conversion). Otherwise as :func:`check_values`:
    device, bits, contiguity, autograd. Returns the result.
    """
    # described only if the row fails (a million-element list costs 0.1 s)
    call = LazyCall(data, kwargs, fn=target.fn_name, arg_names=target.arg_names)
    expected = source.detach().contiguous().to(resolve_dtype(data, kwargs))
    return _judged_call(target, data, kwargs, expected, call)  # type: ignore[arg-type]


@check("values", valid_call=True)
def check_values_equal(target: Target, data: Any, kwargs: dict[str, Any], expected: torch.Tensor) -> torch.Tensor:
    """values, against a literal: the result has exactly ``expected``'s shape, dtype and bits (a documented outcome).

    For the regression corpus, whose cases pin an outcome the reference documents (its
    docstrings) besides the oracle's: ``expected`` is a CPU tensor built from literal
    values (``torch.tensor([5, 4, 3, 2, 1, 0])``). Also runs :func:`check_values`.
    """
    result = check_values(target, data, kwargs)
    assert_same_values(
        result,
        expected,
        contract="values",
        call=target.describe_call(data, kwargs) + "  # against the documented outcome",
    )
    return result


#: Inputs whose first conversion in a process makes torch warn once (TORCH_WARN_ONCE): a
#: read-only ndarray (``torch.from_numpy``: "The given NumPy array is not writable") and a
#: list of ndarrays (``torch.tensor``: "Creating a tensor from a list of numpy.ndarrays is
#: extremely slow"). A warning filter set wrongly around those conversions
#: (``simplefilter("ignore", None)``: the filter machinery then raises TypeError) changes
#: only the first such call of a process: the contract suite's mutation runs killed one
#: such mutant in one run and not in another, as the order of earlier tests decided.
FIRST_CALL_CASES = ("read-only int32 ndarray", "list of an int32 and a float32 ndarray")


def first_call_inputs() -> list[Any]:
    """The inputs of :data:`FIRST_CALL_CASES`, freshly built (a read-only int32 array; a list of two arrays)."""
    ro = np.arange(5, dtype=np.int32)
    ro.flags.writeable = False
    return [ro, [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.float32) + 0.5]]


_FIRST_CALL_SCRIPT = """
import json, sys, warnings
from h2d_contracts.contracts import load_target
from h2d_contracts.contracts.values import FIRST_CALL_CASES, first_call_inputs
spec, device = sys.argv[1], sys.argv[2]
target = load_target(spec)
found = []
for what, data in zip(FIRST_CALL_CASES, first_call_inputs()):  # the target first: nothing else has warned yet
    if what not in sys.argv[3:]:
        continue
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            got = target.call(data, {"device": device})
            found.append([what, str(got.dtype), got.cpu().tolist(), None, [f"{w.category.__name__}: {w.message}" for w in seen]])
        except Exception as exc:  # noqa: BLE001 - reported by the parent
            found.append([what, None, None, f"{type(exc).__name__}: {exc}", []])
print("H2D-FIRST " + json.dumps(found))
"""


@check("values")
def check_values_first_call(target: Target, device: torch.device, *, timeout_s: float = 120.0) -> None:
    """values: the first call of its kind in a fresh process (torch's once-per-process warnings) gives the right result, silently.

    Loads the target by its ``--h2d-impl`` spec in a fresh interpreter (``run_fresh``) and
    calls it first with each of :data:`FIRST_CALL_CASES` inside its declared inputs; the
    results (dtype, values) must equal the oracle's, computed here. Raises NotApplicable for
    a target without a spec (built in-process) or with neither case in its domain.
    """
    if not target.spec:
        raise NotApplicable(
            f"values (first call): needs a fresh process that loads the target by its --h2d-impl spec; target {target.name!r} has none"
        )
    cases = [
        (what, data)
        for what, data in zip(FIRST_CALL_CASES, first_call_inputs())
        if in_domain(target, data, {"device": device})
    ]
    if not cases:
        raise NotApplicable(
            f"values (first call): both cases lie outside target {target.name!r}'s declared inputs {sorted(target.inputs)}"
        )
    found = run_fresh(
        "values (first call)",
        _FIRST_CALL_SCRIPT,
        [target.spec, str(device), *(w for w, _ in cases)],
        "H2D-FIRST ",
        timeout_s=timeout_s,
    )
    for (what, dtype, values, error, warned), (_, data) in zip(found, cases):
        kwargs = {"device": device}
        call = target.describe_call(data, kwargs) + "  # the first such call in a fresh process"
        expected = expected_tensor(data, resolve_dtype(data, kwargs))
        if error is not None:
            fail(
                "values",
                f"a valid call raised when it was the first {what} of the process",
                got=error,
                expected="a tensor",
                call=call,
            )
        if dtype != str(expected.dtype) or values != expected.tolist():
            fail(
                "values",
                f"the first {what} of a process converts differently",
                got=f"{dtype} {values}",
                expected=f"{expected.dtype} {expected.tolist()}",
                call=call,
            )
        if warned:
            # a valid call prints nothing into the engine's log, and fails nothing under `python -W error`
            fail(
                "values",
                f"the first {what} of a process emitted a warning",
                got="; ".join(warned)[:300],
                expected="no warning (the data is only read)",
                call=call,
            )


@prop("values")
def prop_values(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every valid call (list / ndarray / tensor, any layout, with/without dtype and out) gives the reference conversion."""
    require_device(target, device, "values")
    want_out = None if "out" in target.capabilities else False

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(device, inputs=target.inputs, requires=target.requires, out=want_out), label="call"
        )
        check_values(target, call.data, call.kwargs)

    run_given(body, overrides)


@prop("values")
def prop_values_zero_length(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: zero-length inputs ([], empty arrays, shape (2, 0)) give the right shape, dtype and device."""
    require_device(target, device, "values")
    want_out = None if "out" in target.capabilities else False
    empty_shapes = hs.shapes(min_dims=1).filter(lambda s: 0 in s)

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(device, inputs=target.inputs, requires=target.requires, shape=empty_shapes, out=want_out),
            label="call",
        )
        check_values(target, call.data, call.kwargs)

    run_given(body, overrides, cap=30)


@prop("values")
def prop_values_pure_copy_bits(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: float tensors/arrays copied to their own dtype keep every bit (NaN payloads, -0.0, subnormals)."""
    require_device(target, device, "values")
    float_dtypes = [d for d in hs.USER_DTYPES + hs.FLOAT8_DTYPES if d.is_floating_point]
    want_out = "out" in target.capabilities
    domain = accepted(target, ["tensor", "ndarray"], "values")

    def body(data: st.DataObject) -> None:
        dtype = data.draw(st.sampled_from(float_dtypes), label="dtype")
        shape = data.draw(hs.shapes(min_dims=1, min_side=1), label="shape")
        kinds = [k for k in domain if k == "tensor" or dtype in hs.NUMPY_OF]
        if not kinds:
            return
        kind = data.draw(st.sampled_from(kinds), label="kind")
        values = data.draw(hs.tensor_values(dtype, tuple(shape), None), label="values")
        # At least one NaN with a payload (the case a canonicalising copy gets wrong).
        nan_bits = {
            torch.float16: 0x7E01,
            torch.bfloat16: 0x7FC1,
            torch.float32: 0x7FC00001,
            torch.float64: 0x7FF8000000000001,
        }
        if dtype in nan_bits:
            hs.set_bits(values, data.draw(st.integers(0, values.numel() - 1), label="NaN at"), nan_bits[dtype])
        payload: Any = values.numpy() if kind == "ndarray" else values
        kwargs: dict[str, Any] = {"device": device}
        how = data.draw(
            st.sampled_from(["own", "dtype", "out"] if want_out else ["own", "dtype"]), label="dtype given as"
        )
        if how == "dtype":
            kwargs["dtype"] = dtype
        elif how == "out":
            kwargs = {"out": torch.zeros(tuple(shape), dtype=dtype, device=device)}
        check_values(target, payload, kwargs)

    run_given(body, overrides, cap=40)


@prop("values")
def prop_values_wide_numpy(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: uint16/32/64 and complex64/128 numpy arrays (no torch user dtype of their own) into their own or representable dtypes."""
    require_device(target, device, "values")
    accepted(target, ["ndarray"], "values")

    def body(data: st.DataObject) -> None:
        np_dtype = np.dtype(
            data.draw(
                st.sampled_from([np.uint16, np.uint32, np.uint64, np.complex64, np.complex128]), label="numpy dtype"
            )
        )
        shape = data.draw(hs.shapes(min_dims=0), label="shape")
        if np_dtype.kind == "u":
            dtype = data.draw(
                st.sampled_from(
                    [
                        None,
                        torch.float16,
                        torch.bfloat16,
                        torch.float32,
                        torch.float64,
                        torch.bool,
                        torch.uint8,
                        torch.int32,
                        torch.int64,
                    ]
                ),
                label="dtype",
            )
            # kind "u" (checked above): an unsigned dtype; numpy's stubs cannot narrow a drawn dtype by its kind
            hi = int(np.iinfo(np_dtype).max)  # type: ignore[type-var]
            if dtype is not None and not dtype.is_floating_point and dtype is not torch.bool:
                hi = min(hi, torch.iinfo(dtype).max)
            ends = st.sampled_from(
                sorted({0, 1, hi, (hi >> 1) + 1})
            )  # the top bit set: read as signed it turns negative
            arr = data.draw(hnp.arrays(np_dtype, shape, elements=ends | st.integers(0, hi)), label="values")
        else:
            dtype = data.draw(st.sampled_from([None, torch.complex64, torch.complex128]), label="dtype")
            arr = data.draw(hnp.arrays(np_dtype, shape), label="values")
        arr = hs.array_in_layout(arr, data.draw(st.sampled_from(hs.ARRAY_LAYOUTS), label="layout"))
        kwargs: dict[str, Any] = {"device": device} if dtype is None else {"device": device, "dtype": dtype}
        check_values(target, arr, kwargs)

    run_given(body, overrides, cap=40)


#: Lengths around the sizes where implementations switch paths (a 4 KiB page of int8,
#: an 8192-element threshold, 64 Ki elements); the default shapes stop at 5 per side.
LARGE_LENGTHS = (4095, 4096, 8192, 8193, 65537)


@prop("values")
def prop_values_large(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: 1-D lists, arrays and tensors of 4095-65537 elements are copied whole (no truncation past a size)."""
    require_device(target, device, "values")
    kinds = accepted(target, ["list", "ndarray", "tensor"], "values")

    def body(data: st.DataObject) -> None:
        n = data.draw(st.sampled_from(LARGE_LENGTHS), label="length")
        dtype = data.draw(st.sampled_from([torch.int64, torch.int32, torch.float32, torch.bool]), label="dtype")
        kind = data.draw(st.sampled_from(kinds), label="kind")
        offset = data.draw(st.integers(-1000, 1000), label="offset")
        base = torch.arange(n, dtype=torch.int64) * 7 + offset  # every element distinct: a lost or moved one shows
        values = (base % 2 == 0) if dtype is torch.bool else base.to(dtype)
        payload: Any = values.tolist() if kind == "list" else values.numpy() if kind == "ndarray" else values
        check_values(target, payload, {"device": device})

    run_given(body, overrides, cap=12)


#: Multi-MB payloads (4-16 MiB of int32/float32): the sizes where the GPU non-blocking
#: contract works, checked for values on every device. Also what proves, on a CPU-only
#: machine, that a failing run over such inputs still ends with a report (tests/test_runner_bounds.py).
MULTI_MB_ELEMENTS = (1 << 20, 4 << 20)


@prop("values")
def prop_values_multi_mb(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: 4-16 MiB arrays and tensors (1-4 Mi int32/float32 elements) are copied whole and exactly."""
    require_device(target, device, "values")
    kinds = accepted(target, ["ndarray", "tensor"], "values")

    def body(data: st.DataObject) -> None:
        n = data.draw(st.sampled_from(MULTI_MB_ELEMENTS), label="elements")
        dtype = data.draw(st.sampled_from([torch.int32, torch.float32]), label="dtype")
        kind = data.draw(st.sampled_from(kinds), label="kind")
        values = (torch.arange(n, dtype=torch.int64) * 3 - n).to(
            dtype
        )  # every element distinct, exact in float32 (|v| < 2**24)
        payload: Any = values.numpy() if kind == "ndarray" else values
        check_values(target, payload, {"device": device})

    run_given(body, overrides, cap=3)


#: Numpy scalars of every kind (found by held-out testing: a tuple of numpy scalars and a bare
#: numpy scalar both lost their dtype unnoticed).
TYPED_LEAVES = (
    np.float16(2.5),
    np.float32(-1.5),
    np.float64(0.1),
    np.int8(-3),
    np.int16(300),
    np.int32(-7),
    np.uint8(200),
    np.bool_(True),
    np.complex64(1 - 2j),
)


#: Where a typed leaf sits: bare, alone or beside a Python number in a list or tuple, in a
#: nested list or tuple, and first or last among 70 Python numbers (a scan that looks only at a
#: prefix, a top-level list, or the first leaf misses it).
TYPED_LEAF_PLACES: dict[str, Callable[[Any], Any]] = {
    "bare": lambda x: x,
    "[x]": lambda x: [x],
    "[1, x]": lambda x: [1, x],
    "[x, 1]": lambda x: [x, 1],
    "(1, x)": lambda x: (1, x),
    "[[1], [x]]": lambda x: [[1], [x]],
    "[(1,), (x,)]": lambda x: [(1,), (x,)],
    "((x, 1), (1, 1))": lambda x: ((x, 1), (1, 1)),
    "[1] * 70 + [x]": lambda x: [1] * 70 + [x],
    "[x] + [1] * 70": lambda x: [x] + [1] * 70,
}


@prop("values")
def prop_values_typed_leaves(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: numpy scalars keep their dtype wherever they sit (bare, in lists, tuples, nested, first or last of 71).

    Deterministic (a table: every numpy scalar kind x every place): the result's dtype is
    ``torch.tensor(data)``'s inference (the scalar's own dtype when bare), its values exact.
    """
    require_device(target, device, "values")
    del overrides
    rows = Rows("typed leaves table")
    for leaf in TYPED_LEAVES:
        for place in TYPED_LEAF_PLACES.values():
            data = place(leaf)
            if not isinstance(data, np.generic):
                try:
                    torch.tensor(data)
                except TypeError:  # torch.tensor itself refuses (np.bool_ beside a Python int): no dtype to follow
                    continue
            rows.row(check_values, target, data, {"device": device})
    rows.finish()


@prop("values")
def prop_values_first_call(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: a read-only ndarray and a list of ndarrays, each the first of its kind in a fresh process (torch warns once per process)."""
    require_device(target, device, "values")
    del overrides  # deterministic: two fixed calls in one fresh process
    check_values_first_call(target, device)


@prop("values")
def prop_values_autograd_and_default_dtype(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: tensors that require grad come back detached; Python floats follow torch's default dtype (a table).

    Rows: leaf and non-leaf tensors requiring grad (contiguous, transposed, float32/float64)
    via ``device=``, ``dtype=`` and ``out=``; then lists, nested lists, tuples and mixed
    int/float lists under ``torch.set_default_dtype(torch.float64)`` (restored after),
    whose dtype torch.tensor takes from the default (found by held-out testing: a CPU variant
    with float32 hard-coded; a result left in the caller's graph).
    """
    require_device(target, device, "values")
    del overrides  # deterministic: every row every run
    with_out = "out" in target.capabilities
    rows = Rows("autograd / default-dtype table")

    leaf32 = torch.tensor([1.5, -2.0, 3.25, 0.5], requires_grad=True)
    leaf64 = torch.arange(6, dtype=torch.float64).view(2, 3).requires_grad_(True)
    for data in (leaf32, leaf32 * 2, leaf64, leaf64.t(), leaf64[:, 1]):
        rows.row(check_values, target, data, {"device": device})
        rows.row(check_values, target, data, {"device": device, "dtype": torch.float64})
        if with_out:
            rows.row(
                check_values, target, data, {"out": torch.zeros(tuple(data.shape), dtype=torch.float32, device=device)}
            )
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        for listed in ([0.1], [[1.5, 2.0], [0.1, -3.0]], (0.1, 2.0), [1, 2.5], [1e300]):
            rows.row(check_values, target, listed, {"device": device})
            if with_out:
                rows.row(
                    check_values,
                    target,
                    listed,
                    {"out": torch.zeros(tuple(np.shape(listed)), dtype=torch.float64, device=device)},
                )
    finally:
        torch.set_default_dtype(previous)
    rows.finish()


def _matrix_values(dtype: torch.dtype) -> list[float]:
    """Values every source kind can carry that ``dtype`` represents, at its edges (float64 literals)."""
    if dtype is torch.bool:
        return [0.0, 1.0, 0.0, 2.5]
    if not dtype.is_floating_point:
        info = torch.iinfo(dtype)
        lo, hi = float(info.min), float(info.max)
        if info.bits == 64:  # float64 cannot carry int64's ends exactly: stay inside
            lo, hi = -(2.0**62), 2.0**62
        return [lo, hi, 0.0, 1234.75 if hi >= 1234 else 100.75, -1234.75 if lo <= -1234 else 0.0]
    return [0.0, -0.0, 1e-30, 1e30, -65504.0, 3.0e38, 2.0**-20, 1.0 + 2.0**-10]


@prop("values")
def prop_values_dtype_matrix(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every target dtype from lists, float64 arrays and float64 tensors, with values at the dtype's edges.

    Deterministic (a table, not drawn): narrow bugs that random draws reach only by
    luck (bfloat16 converted through float16, big floats rounded instead of
    truncated) are hit on every run.
    """
    require_device(target, device, "values")
    del overrides  # not a Hypothesis property: every case runs every time
    table = Rows("dtype matrix")
    for dtype in hs.USER_DTYPES + hs.FLOAT8_DTYPES:
        values = _matrix_values(dtype)
        if dtype in hs.FLOAT8_DTYPES:
            values = [0.0, -0.0, 1.0, 0.5, 2.0]
        rows = [values]
        if dtype in hs.INTEGER_DTYPES:  # only fractional values far from 0: truncation, not rounding
            info = torch.iinfo(dtype)
            for far in ((1234.75, -1234.75, 4096.5), (100.75, -100.5)):
                row = [v for v in far if info.min <= v <= info.max]
                if row:
                    rows.append(row)
        for row in rows:
            for kind in ("list", "ndarray", "tensor"):
                payload: Any = (
                    list(row)
                    if kind == "list"
                    else np.array(row)
                    if kind == "ndarray"
                    else torch.tensor(row, dtype=torch.float64)
                )
                table.row(check_values, target, payload, {"device": device, "dtype": dtype})
    table.finish()


#: Shapes for the layout table: size-1 dimensions first, inside and alone (a reversed
#: size-1 axis keeps a negative stride that np.ascontiguousarray leaves in place), empty.
LAYOUT_SHAPES = ((1,), (3,), (1, 3, 4), (2, 1, 3), (3, 1), (0,), (2, 0))


@prop("values")
def prop_values_layouts(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every array layout (flipped size-1 axes included) and tensor layout x shapes with size-1 axes x dtypes x device=/out= (a table)."""
    require_device(target, device, "values")
    del overrides  # deterministic: every row every run

    with_out = "out" in target.capabilities
    rows = Rows("values layout table")
    for shape in LAYOUT_SHAPES:
        for dtype in (np.int32, np.float64, np.bool_):
            base = (np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) % 7 + 1).astype(dtype)
            sources: list[np.ndarray | torch.Tensor] = [
                hs.array_in_layout(base.copy(), layout) for layout in hs.ARRAY_LAYOUTS
            ]
            sources += [
                hs.tensor_in_layout(torch.from_numpy(base.copy()), layout, pinned=False) for layout in hs.TENSOR_LAYOUTS
            ]
            for data in sources:
                rows.row(check_values, target, data, {"device": device})
                if with_out:
                    rows.row(
                        check_values, target, data, {"out": torch.full(shape, 77, dtype=torch.int64, device=device)}
                    )
    rows.finish()


#: Sizes for the product table: empty, one element, and past a 4 KiB page / 4096-element threshold.
PRODUCT_SIZES = (0, 1, 4097)


@prop("values")
def prop_values_product(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every target dtype (uint16/32/64 and float8 included) x int and float lists, int and float ndarrays, a tensor, a list of arrays x device=, dtype=, out= x sizes 0, 1, 4097, and 0-d sources (a table)."""
    require_device(target, device, "values")
    del overrides  # deterministic: every row every run
    routes = ("device", "dtype", "out") if "out" in target.capabilities else ("device", "dtype")
    rows = Rows("values product table")
    for dtype in hs.TARGET_DTYPES:
        for n in PRODUCT_SIZES:
            ints = (
                np.arange(n, dtype=np.int64) % 2
                if dtype is torch.bool or dtype in hs.FLOAT8_DTYPES
                else np.arange(n, dtype=np.int64) % 100
            )
            # Integral values carried as ints and as floats (a float list or float64 array into an
            # unsigned or integer dtype is a valid call: held-out user trial, a float list into uint64)
            payloads: list[Any] = [
                ints.tolist(),
                ints.copy(),
                torch.from_numpy(ints.astype(np.int32)),
                [ints.astype(np.int16)],
                ints.astype(np.float64).tolist(),
                ints.astype(np.float64),
            ]
            for payload in payloads:
                for route in routes:
                    if route == "device":
                        kwargs: dict[str, Any] = {"device": device}
                    elif route == "dtype":
                        kwargs = {"device": device, "dtype": dtype}
                    else:
                        shape = (
                            (1, n)
                            if isinstance(payload, list) and payload and isinstance(payload[0], np.ndarray)
                            else (n,)
                        )
                        kwargs = {"out": torch.zeros(shape, dtype=dtype, device=device)}
                    rows.row(check_values, target, payload, kwargs)
        # 0-d sources (a Python int and float, a numpy scalar, a 0-d tensor): a range check has a
        # path of its own for them (the contract suite's mutation run left a 0-d
        # integer source into int32 refused, a valid call, unnoticed)
        v = 1 if dtype is torch.bool or dtype in hs.FLOAT8_DTYPES else 5
        for payload in (v, float(v), np.int64(v), torch.tensor(v, dtype=torch.int32)):
            for route in routes:
                kwargs = (
                    {"device": device}
                    if route == "device"
                    else {"device": device, "dtype": dtype}
                    if route == "dtype"
                    else {"out": torch.zeros((), dtype=dtype, device=device)}
                )
                rows.row(check_values, target, payload, kwargs)
    rows.finish()


# --------------------------------------------------------------------------- at scale (registered last: the costliest properties)


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


#: Special values of the float dtypes: signed zeros, the smallest subnormal, the largest finite value, infinities,
#: NaN. A list made of one of them only is where "all zeros" or "all equal" shortcuts live.
SPECIAL_FLOATS = (
    -0.0,
    0.0,
    5e-324,
    -5e-324,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    math.inf,
    -math.inf,
    math.nan,
)


@prop("values", table=True)
def prop_values_special_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every special float (signed zeros, subnormal, extremes, infinities, NaN) as the only value of a flat
    list, a nested list, a tuple, an ndarray and a tensor, of 1, 3 and 8,193 elements, into float16, bfloat16,
    float32, float64 and the list's own dtype: bit for bit (NaN positions as NaN after a conversion)."""
    require_device(target, device, "values")
    del overrides  # deterministic: every row every run
    kinds = accepted(target, ["list", "ndarray", "tensor"], "values")
    rows = Rows("values special table")
    for v_i, value in enumerate(SPECIAL_FLOATS):
        for n in (1, 3, 8193):
            for kind in kinds:
                for d_i, dtype in enumerate((None, torch.float16, torch.bfloat16, torch.float32, torch.float64)):
                    if (v_i + d_i + n) % 2 and n == 8193:
                        continue  # the large size on every other (value, dtype): each still meets it
                    if kind == "list":
                        shapes = [[value] * n, tuple([value] * n)] + ([[[value]] * n] if n < 8193 else [])
                        for data in shapes:
                            kw = domain_kwargs(
                                target,
                                data,
                                {"device": device} if dtype is None else {"device": device, "dtype": dtype},
                            )
                            rows.row(check_values, target, data, kw)
                        continue
                    source = np.full(n, value, dtype=np.float64)
                    array: Any = source if kind == "ndarray" else torch.from_numpy(source.copy())
                    kw = domain_kwargs(
                        target, array, {"device": device} if dtype is None else {"device": device, "dtype": dtype}
                    )
                    rows.row(check_values, target, array, kw)
    rows.finish()


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


@prop("values")
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

    run_given(body, overrides, cap=12)
