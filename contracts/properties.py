"""The contract catalogue as runnable Hypothesis properties: strategies bound to checks.

Each ``prop_<name>(target, device, **settings)`` draws inputs from :mod:`strategies`
(labelled, so a falsifying example reads well) and runs one ``check_*`` on each.
Without ``settings`` it runs under the loaded Hypothesis profile; the kit's
meta-tests pass overrides to hunt mutants. The pytest suite in ``tests/`` calls these,
and so can any other harness::

    from h2d_contracts.contracts import load_target
    from h2d_contracts.contracts.properties import prop_values
    prop_values(load_target("reference"), torch.device("cpu"))

Every property is listed in :data:`PROPERTIES` under its catalogue id.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

import numpy as np
import torch
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Flaky
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.strategies._dtypes import INTEGER_DTYPES
from h2d_contracts.strategies.host import _values, set_bits

from . import buffer as cb
from . import cpu_path as cc
from . import gpu as cg
from . import h2d as ch
from .errors import BAD_INPUT_KINDS
from ._report import ContractViolation
from .target import Target, last_call

__all__ = ["PROPERTIES", "GPU_CONTRACTS", "run_property"]

#: Contracts that only mean something on CUDA.
GPU_CONTRACTS = frozenset({"staging", "non-blocking", "snapshot", "stream", "hygiene", "device-hygiene"})

_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


#: Hypothesis phases of every property: no ``explain`` (it re-runs a failing example under
#: ``sys.settrace``, which turned one multi-MB failure on the H200 into minutes of tracing:
#: issue 10), and for timed properties (each example queues ~100 ms of GPU work) no
#: ``shrink`` either: their draws are a size, a kind and a flag, readable unshrunk, and
#: a shrink pass could rerun them hundreds of times.
PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
TIMED_PHASES = (Phase.explicit, Phase.reuse, Phase.generate)


def _contract_of(func: Callable[..., Any]) -> str:
    """The catalogue id of the property whose body ``func`` is (``prop_values.<locals>.body`` -> ``values``)."""
    name = func.__qualname__.split(".")[0]
    for cid, props in PROPERTIES.items():
        if any(p.__name__ == name for p in props):
            return cid
    return "values"


def _kind_of(message: str) -> str:
    """A violation's kind: what failed (the first line up to ": got"), with digits and quoted row labels
    masked, plus the exception type when one was raised ("... raised: got ValueError: ..."), so rows that
    fail the same way are one kind whatever their values, and a new exception type is a new kind."""
    first = message.splitlines()[0] if message else ""
    what, _, got = first.partition(": got ")
    what = re.sub(r"'[^']*'", "'...'", re.sub(r"\d", "#", what))
    raised = re.match(r"[A-Za-z_]\w*(?:Error|Exception|Warning)\b", got)
    return what + (f": got {raised.group(0)}" if raised else "")


class _Rows:
    """Runs a deterministic table's rows to the end and reports one failing row per kind.

    A table that stopped at its first failing row would hide every later kind behind it:
    a target with one known fault (an expectation entry) and one new fault in a later row
    would be reported as the known one only. Each row runs inside :meth:`row`; a row's
    ContractViolation is kept if its kind is new (:func:`_kind_of`), up to ``cap`` kinds;
    rows of further kinds are counted and reported as one more violation that no
    expectation covers. :meth:`finish` raises the single violation, or an
    ``ExceptionGroup`` of one per kind (the report and the expectations walk groups: a
    failure is expected only if every kind in it is). Anything else a row raises (a
    kit error, a timeout) propagates at once.
    """

    def __init__(self, table: str, cap: int = 16) -> None:
        self.table, self.cap = table, cap
        self.rows = self.failed = self.unshown = 0
        self.kinds: dict[tuple[str, str], ContractViolation] = {}

    def row(self, check: Callable[..., None], *args: Any, **kwargs: Any) -> None:
        self.rows += 1
        try:
            check(*args, **kwargs)
        except ContractViolation as exc:
            self.failed += 1
            key = (exc.contract, _kind_of(str(exc)))
            if key not in self.kinds:
                if len(self.kinds) < self.cap:
                    self.kinds[key] = exc
                else:
                    self.unshown += 1

    def finish(self) -> None:
        found = list(self.kinds.values())
        if not found:
            return
        if self.unshown:
            # kinds past the cap are not shown, so they must not pass as expected either: this
            # violation matches no expectation entry's kind and keeps the failure UNEXPECTED
            found.append(ContractViolation(found[0].contract, f"{self.table}: {self.unshown} more failing rows of kinds beyond the first {self.cap}, not shown"))
        if len(found) == 1 and self.failed == 1:
            raise found[0]
        raise ExceptionGroup(f"{self.table}: {self.failed} of {self.rows} rows failed; the first row of each of {len(self.kinds)} kinds", found)


def _nondeterministic(exc: BaseException, contract: str, prop: str) -> ContractViolation:
    """A ContractViolation for a target whose outcome changed when Hypothesis replayed the same input.

    Hypothesis reports that as ``Flaky`` (``FlakyFailure``: failed once, passed on replay;
    ``FlakyStrategyDefinition``: the draws diverged, "is your data generation depending
    on external state?"). The kit's strategies are deterministic, so the changing party
    is the target: say so, with the first outcome and the last call made.
    """
    inner = [str(e) for e in getattr(exc, "exceptions", ()) if isinstance(e, ContractViolation)]
    first = inner[0] if inner else f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    last = last_call()
    msg = (
        f"nondeterministic target: {prop} got a different outcome when Hypothesis replayed the same input "
        f"(the kit's strategies are deterministic, so the target answered differently on the same call); "
        f"first outcome:\n    {first.replace(chr(10), chr(10) + '    ')}"
    )
    if last:
        msg += f"\n  last call made: {last}"
    return ContractViolation(contract, msg)


#: The default profile's examples per property (h2d_contracts/plugin.py): a property's ``cap`` is its
#: budget under that profile, and scales with any other (fuzz: 5000 / 40 = 125 times as many).
DEFAULT_EXAMPLES = 40


def capped_examples(cap: int, profile_examples: int | None = None) -> int:
    """Examples for a property capped at ``cap`` under the default profile: ``cap`` scaled by the current profile.

    ``cap * profile / DEFAULT_EXAMPLES``, at least 1 and at most the profile's own
    ``max_examples`` (default profile: ``cap`` itself; ``fuzz`` with 5000: 125 x ``cap``;
    ``dev`` with 10: a quarter). ``profile_examples`` defaults to the loaded profile's.
    """
    prof = settings().max_examples if profile_examples is None else profile_examples
    return max(1, min(prof, cap * prof // DEFAULT_EXAMPLES))


def _run(body: Callable[[st.DataObject], None], overrides: dict[str, Any], cap: int | None = None, *, timed: bool = False) -> None:
    """Run ``body`` under @given(st.data()) with the current profile plus ``overrides``.

    ``cap`` is a heavy property's budget under the default profile, scaled with the
    loaded one (:func:`capped_examples`); ``timed``
    drops the shrink phase (see :data:`TIMED_PHASES`). A target that answers differently
    on the same input is reported as a nondeterministic target (a ContractViolation naming
    the call), not as Hypothesis's Flaky error about the strategy.
    """
    kw: dict[str, Any] = {"suppress_health_check": _SUPPRESS, "deadline": None, "phases": TIMED_PHASES if timed else PHASES}
    if cap is not None and "max_examples" not in overrides:
        kw["max_examples"] = capped_examples(cap)
    kw.update(overrides)
    try:
        given(data=st.data())(settings(**kw)(body))()
    except Flaky as exc:
        raise _nondeterministic(exc, _contract_of(body), body.__qualname__.split(".")[0]) from exc


def _device_ok(target: Target, device: torch.device, contract: str) -> None:
    if not target.supports_device(device):
        target.require("cuda", contract)


# --------------------------------------------------------------------------- values, dtype


def prop_values(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every valid call (list / ndarray / tensor, any layout, with/without dtype and out) gives the reference conversion."""
    _device_ok(target, device, "values")
    want_out = None if "out" in target.capabilities else False

    def body(data: st.DataObject) -> None:
        call = data.draw(hs.h2d_calls(device, out=want_out), label="call")
        ch.check_values(target, call.data, call.kwargs)

    _run(body, overrides)


def prop_values_zero_length(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: zero-length inputs ([], empty arrays, shape (2, 0)) give the right shape, dtype and device."""
    _device_ok(target, device, "values")
    want_out = None if "out" in target.capabilities else False
    empty_shapes = hs.shapes(min_dims=1).filter(lambda s: 0 in s)

    def body(data: st.DataObject) -> None:
        call = data.draw(hs.h2d_calls(device, shape=empty_shapes, out=want_out), label="call")
        ch.check_values(target, call.data, call.kwargs)

    _run(body, overrides, cap=30)


def prop_values_pure_copy_bits(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: float tensors/arrays copied to their own dtype keep every bit (NaN payloads, -0.0, subnormals)."""
    _device_ok(target, device, "values")
    float_dtypes = [d for d in hs.USER_DTYPES + hs.FLOAT8_DTYPES if d.is_floating_point]
    want_out = "out" in target.capabilities

    def body(data: st.DataObject) -> None:
        dtype = data.draw(st.sampled_from(float_dtypes), label="dtype")
        shape = data.draw(hs.shapes(min_dims=1, min_side=1), label="shape")
        kinds = ["tensor", "ndarray"] if dtype in hs.NUMPY_OF else ["tensor"]
        kind = data.draw(st.sampled_from(kinds), label="kind")
        values = data.draw(_values(dtype, tuple(shape), None), label="values")
        # At least one NaN with a payload (the case a canonicalising copy gets wrong).
        nan_bits = {torch.float16: 0x7E01, torch.bfloat16: 0x7FC1, torch.float32: 0x7FC00001, torch.float64: 0x7FF8000000000001}
        if dtype in nan_bits:
            set_bits(values, data.draw(st.integers(0, values.numel() - 1), label="NaN at"), nan_bits[dtype])
        payload: Any = values.numpy() if kind == "ndarray" else values
        kwargs: dict[str, Any] = {"device": device}
        how = data.draw(st.sampled_from(["own", "dtype", "out"] if want_out else ["own", "dtype"]), label="dtype given as")
        if how == "dtype":
            kwargs["dtype"] = dtype
        elif how == "out":
            kwargs = {"out": torch.zeros(tuple(shape), dtype=dtype, device=device)}
        ch.check_values(target, payload, kwargs)

    _run(body, overrides, cap=40)


def prop_values_wide_numpy(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: uint16/32/64 and complex64/128 numpy arrays (no torch user dtype of their own) into their own or representable dtypes."""
    _device_ok(target, device, "values")
    from hypothesis.extra import numpy as hnp

    from h2d_contracts.strategies.host import ARRAY_LAYOUTS, _array_layout

    def body(data: st.DataObject) -> None:
        np_dtype = np.dtype(data.draw(st.sampled_from([np.uint16, np.uint32, np.uint64, np.complex64, np.complex128]), label="numpy dtype"))
        shape = data.draw(hs.shapes(), label="shape")
        if np_dtype.kind == "u":
            dtype = data.draw(st.sampled_from([None, torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool, torch.uint8, torch.int32, torch.int64]), label="dtype")
            hi = int(np.iinfo(np_dtype).max)
            if dtype is not None and not dtype.is_floating_point and dtype is not torch.bool:
                hi = min(hi, torch.iinfo(dtype).max)
            ends = st.sampled_from(sorted({0, 1, hi, (hi >> 1) + 1}))  # the top bit set: read as signed it turns negative
            arr = data.draw(hnp.arrays(np_dtype, shape, elements=ends | st.integers(0, hi)), label="values")
        else:
            dtype = data.draw(st.sampled_from([None, torch.complex64, torch.complex128]), label="dtype")
            arr = data.draw(hnp.arrays(np_dtype, shape), label="values")
        arr = _array_layout(arr, data.draw(st.sampled_from(ARRAY_LAYOUTS), label="layout"))
        kwargs: dict[str, Any] = {"device": device} if dtype is None else {"device": device, "dtype": dtype}
        ch.check_values(target, arr, kwargs)

    _run(body, overrides, cap=40)


#: Lengths around the sizes where implementations switch paths (a 4 KiB page of int8,
#: an 8192-element threshold, 64 Ki elements); the default shapes stop at 5 per side.
LARGE_LENGTHS = (4095, 4096, 8192, 8193, 65537)


def prop_values_large(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: 1-D lists, arrays and tensors of 4095-65537 elements are copied whole (no truncation past a size)."""
    _device_ok(target, device, "values")

    def body(data: st.DataObject) -> None:
        n = data.draw(st.sampled_from(LARGE_LENGTHS), label="length")
        dtype = data.draw(st.sampled_from([torch.int64, torch.int32, torch.float32, torch.bool]), label="dtype")
        kind = data.draw(st.sampled_from(["list", "ndarray", "tensor"]), label="kind")
        offset = data.draw(st.integers(-1000, 1000), label="offset")
        base = torch.arange(n, dtype=torch.int64) * 7 + offset  # every element distinct: a lost or moved one shows
        values = (base % 2 == 0) if dtype is torch.bool else base.to(dtype)
        payload: Any = values.tolist() if kind == "list" else values.numpy() if kind == "ndarray" else values
        ch.check_values(target, payload, {"device": device})

    _run(body, overrides, cap=12)


#: Multi-MB payloads (4-16 MiB of int32/float32): the sizes where the GPU non-blocking
#: contract works, checked for values on every device. Also what proves, on a CPU-only
#: machine, that a failing run over such inputs still ends with a report (tests/test_runner_bounds.py).
MULTI_MB_ELEMENTS = (1 << 20, 4 << 20)


def prop_values_multi_mb(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: 4-16 MiB arrays and tensors (1-4 Mi int32/float32 elements) are copied whole and exactly."""
    _device_ok(target, device, "values")

    def body(data: st.DataObject) -> None:
        n = data.draw(st.sampled_from(MULTI_MB_ELEMENTS), label="elements")
        dtype = data.draw(st.sampled_from([torch.int32, torch.float32]), label="dtype")
        kind = data.draw(st.sampled_from(["ndarray", "tensor"]), label="kind")
        values = (torch.arange(n, dtype=torch.int64) * 3 - n).to(dtype)  # every element distinct, exact in float32 (|v| < 2**24)
        payload: Any = values.numpy() if kind == "ndarray" else values
        ch.check_values(target, payload, {"device": device})

    _run(body, overrides, cap=3)


#: Numpy scalars of every kind (issue 9, held-out round 1: a tuple of numpy scalars and a bare
#: numpy scalar both lost their dtype unnoticed).
TYPED_LEAVES = (np.float16(2.5), np.float32(-1.5), np.float64(0.1), np.int8(-3), np.int16(300), np.int32(-7), np.uint8(200), np.bool_(True), np.complex64(1 - 2j))
#: Where a typed leaf sits: bare, alone or beside a Python number in a list or tuple, in a
#: nested list or tuple, and first or last among 70 Python numbers (a scan that looks only at a
#: prefix, a top-level list, or the first leaf misses it).
TYPED_LEAF_PLACES = {
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


def prop_values_typed_leaves(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: numpy scalars keep their dtype wherever they sit (bare, in lists, tuples, nested, first or last of 71).

    Deterministic (a table: every numpy scalar kind x every place): the result's dtype is
    ``torch.tensor(data)``'s inference (the scalar's own dtype when bare), its values exact.
    """
    _device_ok(target, device, "values")
    del overrides
    rows = _Rows("typed leaves table")
    for leaf in TYPED_LEAVES:
        for place in TYPED_LEAF_PLACES.values():
            data = place(leaf)
            if not isinstance(data, np.generic):
                try:
                    torch.tensor(data)
                except TypeError:  # torch.tensor itself refuses (np.bool_ beside a Python int): no dtype to follow
                    continue
            rows.row(ch.check_values, target, data, {"device": device})
    rows.finish()


def prop_values_first_call(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: a read-only ndarray and a list of ndarrays, each the first of its kind in a fresh process (torch warns once per process)."""
    _device_ok(target, device, "values")
    del overrides  # deterministic: two fixed calls in one fresh process
    ch.check_values_first_call(target, device)


def prop_values_autograd_and_default_dtype(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: tensors that require grad come back detached; Python floats follow torch's default dtype (a table).

    Rows: leaf and non-leaf tensors requiring grad (contiguous, transposed, float32/float64)
    via ``device=``, ``dtype=`` and ``out=``; then lists, nested lists, tuples and mixed
    int/float lists under ``torch.set_default_dtype(torch.float64)`` (restored after),
    whose dtype torch.tensor takes from the default (held-out round 2: a CPU variant
    with float32 hard-coded; a result left in the caller's graph).
    """
    _device_ok(target, device, "values")
    del overrides  # deterministic: every row every run
    with_out = "out" in target.capabilities
    rows = _Rows("autograd / default-dtype table")

    leaf32 = torch.tensor([1.5, -2.0, 3.25, 0.5], requires_grad=True)
    leaf64 = torch.arange(6, dtype=torch.float64).view(2, 3).requires_grad_(True)
    for data in (leaf32, leaf32 * 2, leaf64, leaf64.t(), leaf64[:, 1]):
        rows.row(ch.check_values, target, data, {"device": device})
        rows.row(ch.check_values, target, data, {"device": device, "dtype": torch.float64})
        if with_out:
            rows.row(ch.check_values, target, data, {"out": torch.zeros(tuple(data.shape), dtype=torch.float32, device=device)})
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        for data in ([0.1], [[1.5, 2.0], [0.1, -3.0]], (0.1, 2.0), [1, 2.5], [1e300]):
            rows.row(ch.check_values, target, data, {"device": device})
            if with_out:
                rows.row(ch.check_values, target, data, {"out": torch.zeros(tuple(np.shape(data)), dtype=torch.float64, device=device)})
    finally:
        torch.set_default_dtype(previous)
    rows.finish()


def _matrix_values(dtype: torch.dtype) -> list:
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


def prop_values_dtype_matrix(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every target dtype from lists, float64 arrays and float64 tensors, with values at the dtype's edges.

    Deterministic (a table, not drawn): narrow bugs that random draws reach only by
    luck (bfloat16 converted through float16, big floats rounded instead of
    truncated) are hit on every run.
    """
    _device_ok(target, device, "values")
    del overrides  # not a Hypothesis property: every case runs every time
    for dtype in hs.USER_DTYPES + hs.FLOAT8_DTYPES:
        values = _matrix_values(dtype)
        if dtype in hs.FLOAT8_DTYPES:
            values = [0.0, -0.0, 1.0, 0.5, 2.0]
        rows = [values]
        if dtype in INTEGER_DTYPES:  # only fractional values far from 0: truncation, not rounding
            info = torch.iinfo(dtype)
            for far in ((1234.75, -1234.75, 4096.5), (100.75, -100.5)):
                row = [v for v in far if info.min <= v <= info.max]
                if row:
                    rows.append(row)
        for row in rows:
            for kind in ("list", "ndarray", "tensor"):
                payload: Any = list(row) if kind == "list" else np.array(row) if kind == "ndarray" else torch.tensor(row, dtype=torch.float64)
                ch.check_values(target, payload, {"device": device, "dtype": dtype})


#: Shapes for the layout table: size-1 dimensions first, inside and alone (a reversed
#: size-1 axis keeps a negative stride that np.ascontiguousarray leaves in place), empty.
LAYOUT_SHAPES = ((1,), (3,), (1, 3, 4), (2, 1, 3), (3, 1), (0,), (2, 0))


def prop_values_layouts(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every array layout (flipped size-1 axes included) and tensor layout x shapes with size-1 axes x dtypes x device=/out= (a table)."""
    _device_ok(target, device, "values")
    del overrides  # deterministic: every row every run
    from h2d_contracts.strategies.host import ARRAY_LAYOUTS, TENSOR_LAYOUTS, _array_layout, _tensor_layout

    with_out = "out" in target.capabilities
    rows = _Rows("values layout table")
    for shape in LAYOUT_SHAPES:
        for dtype in (np.int32, np.float64, np.bool_):
            base = (np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) % 7 + 1).astype(dtype)
            sources = [_array_layout(base.copy(), layout) for layout in ARRAY_LAYOUTS]
            sources += [_tensor_layout(torch.from_numpy(base.copy()), layout, pinned=False) for layout in TENSOR_LAYOUTS]
            for data in sources:
                rows.row(ch.check_values, target, data, {"device": device})
                if with_out:
                    rows.row(ch.check_values, target, data, {"out": torch.full(shape, 77, dtype=torch.int64, device=device)})
    rows.finish()


#: Sizes for the product table: empty, one element, and past a 4 KiB page / 4096-element threshold.
PRODUCT_SIZES = (0, 1, 4097)


def prop_values_product(target: Target, device: torch.device, **overrides: Any) -> None:
    """values: every target dtype (uint16/32/64 and float8 included) x int and float lists, int and float ndarrays, a tensor, a list of arrays x device=, dtype=, out= x sizes 0, 1, 4097, and 0-d sources (a table)."""
    _device_ok(target, device, "values")
    del overrides  # deterministic: every row every run
    routes = ("device", "dtype", "out") if "out" in target.capabilities else ("device", "dtype")
    rows = _Rows("values product table")
    for dtype in hs.TARGET_DTYPES:
        for n in PRODUCT_SIZES:
            ints = np.arange(n, dtype=np.int64) % 2 if dtype is torch.bool or dtype in hs.FLOAT8_DTYPES else np.arange(n, dtype=np.int64) % 100
            # Integral values carried as ints and as floats (a float list or float64 array into an
            # unsigned or integer dtype is a valid call: held-out user trial, a float list into uint64)
            payloads: list[Any] = [ints.tolist(), ints.copy(), torch.from_numpy(ints.astype(np.int32)), [ints.astype(np.int16)], ints.astype(np.float64).tolist(), ints.astype(np.float64)]
            for payload in payloads:
                for route in routes:
                    if route == "device":
                        kwargs: dict[str, Any] = {"device": device}
                    elif route == "dtype":
                        kwargs = {"device": device, "dtype": dtype}
                    else:
                        shape = (1, n) if isinstance(payload, list) and payload and isinstance(payload[0], np.ndarray) else (n,)
                        kwargs = {"out": torch.zeros(shape, dtype=dtype, device=device)}
                    rows.row(ch.check_values, target, payload, kwargs)
        # 0-d sources (a Python int and float, a numpy scalar, a 0-d tensor): a range check has a
        # path of its own for them (the contract suite's mutation run of 0264e68 left a 0-d
        # integer source into int32 refused, a valid call, unnoticed)
        v = 1 if dtype is torch.bool or dtype in hs.FLOAT8_DTYPES else 5
        for payload in (v, float(v), np.int64(v), torch.tensor(v, dtype=torch.int32)):
            for route in routes:
                kwargs = {"device": device} if route == "device" else {"device": device, "dtype": dtype} if route == "dtype" else {"out": torch.zeros((), dtype=dtype, device=device)}
                rows.row(ch.check_values, target, payload, kwargs)
    rows.finish()


def prop_no_alias_layouts(target: Target, device: torch.device, **overrides: Any) -> None:
    """no-alias: one fixed input in every array and tensor layout (read-only and broadcast arrays included)."""
    _device_ok(target, device, "no-alias")
    del overrides  # deterministic: every layout every run
    from h2d_contracts.strategies.host import ARRAY_LAYOUTS, TENSOR_LAYOUTS, _array_layout, _tensor_layout

    base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    rows = _Rows("no-alias layout table")
    for layout in ARRAY_LAYOUTS:
        rows.row(ch.check_no_alias, target, _array_layout(base.copy(), layout), {"device": device})
    for layout in TENSOR_LAYOUTS:
        values = torch.from_numpy(base.copy()).reshape(1, 2, 3, 4) if layout == "channels_last" else torch.from_numpy(base.copy())
        rows.row(ch.check_no_alias, target, _tensor_layout(values, layout, pinned=False), {"device": device})
    rows.finish()


def prop_dtype_resolution(target: Target, device: torch.device, **overrides: Any) -> None:
    """dtype: explicit dtype, else out.dtype, else the data's own."""
    _device_ok(target, device, "dtype")
    want_out = None if "out" in target.capabilities else False

    def body(data: st.DataObject) -> None:
        call = data.draw(hs.h2d_calls(device, out=want_out), label="call")
        ch.check_dtype_resolution(target, call.data, call.kwargs)

    _run(body, overrides)


def prop_dtype_mismatch(target: Target, device: torch.device, **overrides: Any) -> None:
    """dtype: dtype= disagreeing with out.dtype raises TypeError and writes nothing."""
    _device_ok(target, device, "dtype")
    target.require("out", "dtype")

    def body(data: st.DataObject) -> None:
        call = data.draw(hs.h2d_calls(device, out=True, dtype=False), label="call")
        out_dtype = call.kwargs["out"].dtype
        other = data.draw(hs.torch_dtypes().filter(lambda d: d != out_dtype), label="mismatching dtype")
        ch.check_dtype_mismatch_rejected(target, call.data, {**call.kwargs, "dtype": other})

    _run(body, overrides)


# --------------------------------------------------------------------------- out, target


def prop_out_written(target: Target, device: torch.device, **overrides: Any) -> None:
    """out: returns out itself, writes exactly its elements, contiguous or not."""
    _device_ok(target, device, "out")
    target.require("out", "out")

    def body(data: st.DataObject) -> None:
        call = data.draw(hs.h2d_calls(device, out=True), label="call")
        ch.check_out_written_exactly(target, call.data, call.kwargs)

    _run(body, overrides)


#: Dense inputs of out's dtype (pinned where pinning exists: then nothing needs converting or
#: staging, the zero-copy path) written into out of every layout. A target that returned a
#: new tensor, or ignored out, for exactly these inputs passed every random draw in the
#: GPU mutation run of 79c9cc9 (reports/mutation/): such a draw is rare.
OUT_DENSE_TABLE = tuple(
    (shape, layout, out_kind)
    for shape, layouts in (((6,), ("contiguous", "offset")), ((3, 5), ("contiguous", "transposed")), ((2, 3, 4), ("transposed",)), ((2, 3, 4, 5), ("channels_last", "transposed")))
    for layout in layouts
    for out_kind in hs.OUT_KINDS
)


def prop_out_dense_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """out: dense tensors (pinned where pinning exists) of out's dtype, into out of every layout: out itself, written exactly."""
    _device_ok(target, device, "out")
    target.require("out", "out")
    pinned = hs.pinning_available()
    for i, (shape, layout, out_kind) in enumerate(OUT_DENSE_TABLE):
        dtype = (torch.float32, torch.int64)[i % 2]
        values = torch.arange(math.prod(shape), dtype=dtype).view(shape) - 7
        data = hs.tensor_in_layout(values, layout, pinned=pinned)
        out = hs.out_in_layout(shape, dtype, device, out_kind)
        kwargs: dict[str, Any] = {"out": out, "device": device} if i % 3 == 0 else {"out": out}
        ch.check_out_written_exactly(target, data, kwargs)


def prop_out_shape_rejected(target: Target, device: torch.device, **overrides: Any) -> None:
    """out: any shape mismatch (broadcastable included) raises ValueError and leaves out untouched."""
    _device_ok(target, device, "out")
    target.require("out", "out")

    def body(data: st.DataObject) -> None:
        call = data.draw(hs.h2d_calls(device, out=True, dtype=False), label="call")
        shape = tuple(call.kwargs["out"].shape)
        wrong = data.draw(hs.wrong_shapes(shape), label="out shape")
        out = data.draw(hs.out_buffers(wrong, call.kwargs["out"].dtype, device), label="wrong out")
        ch.check_out_shape_rejected(target, call.data, {**call.kwargs, "out": out})

    _run(body, overrides)


def prop_no_target(target: Target, device: torch.device, **overrides: Any) -> None:
    """target: neither device nor out raises TypeError."""

    def body(data: st.DataObject) -> None:
        payload = data.draw(hs.host_data(), label="data")
        ch.check_no_target_rejected(target, payload)

    _run(body, overrides, cap=20)


def prop_no_alias(target: Target, device: torch.device, **overrides: Any) -> None:
    """no-alias: the result never shares memory with ndarray / tensor inputs, on every device."""
    _device_ok(target, device, "no-alias")

    def body(data: st.DataObject) -> None:
        call = data.draw(hs.h2d_calls(device, kinds=("ndarray", "tensor"), out=False), label="call")
        ch.check_no_alias(target, call.data, call.kwargs)

    _run(body, overrides)


def prop_bad_input(target: Target, device: torch.device, kinds: tuple[str, ...] | None = None, **overrides: Any) -> None:
    """bad-input: each catalogue kind raises its documented exception type; out untouched."""
    _device_ok(target, device, "bad-input")

    def body(data: st.DataObject) -> None:
        bad = data.draw(hs.bad_inputs(device, kinds=kinds), label="bad input")
        ch.check_bad_input(target, bad.data, bad.kwargs, bad.raises, bad.kind)

    _run(body, overrides, cap=10 if kinds and len(kinds) == 1 else None)


# --------------------------------------------------------------------------- input-untouched


def prop_input_untouched(target: Target, device: torch.device, **overrides: Any) -> None:
    """input-untouched: after any valid call (every kind, layout, route) or failing call (every bad-input kind) data and out's surroundings are unchanged."""
    _device_ok(target, device, "input-untouched")
    want_out = None if "out" in target.capabilities else False

    def body(data: st.DataObject) -> None:
        if data.draw(st.booleans(), label="failing call"):
            bad = data.draw(hs.bad_inputs(device), label="bad input")
            if bad.kwargs.get("out") is not None and "out" not in target.capabilities:
                return
            ch.check_input_untouched(target, bad.data, bad.kwargs, raises=bad.raises)
        else:
            call = data.draw(hs.h2d_calls(device, out=want_out), label="call")
            ch.check_input_untouched(target, call.data, call.kwargs)

    _run(body, overrides)


def input_untouched_table(device: torch.device, *, with_out: bool = True) -> list[tuple[str, Any, dict[str, Any], type[BaseException] | None]]:
    """The deterministic input-untouched table: (label, data, kwargs, raises or None), rebuilt fresh per call.

    Every input kind (flat / nested lists, tuples, lists of arrays, byte-swapped and
    read-only ndarrays, tensors and their views, pinned where pinning exists) through
    every route (``device=``, ``dtype=`` with a conversion, ``out=``), valid and failing
    (wrong out shape, dtype disagreeing with out, a value the target dtype cannot hold).
    The list lengths straddle the multiples of 8 and 64 an in-place padding would target.
    """
    rows: list[tuple[str, Any, dict[str, Any], type[BaseException] | None]] = []
    pinned = hs.pinning_available()

    def out(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        base = torch.full((int(np.prod(shape, dtype=np.int64)) + 2,), 77, dtype=dtype, device=device)
        return base[1:-1].view(shape)  # storage on both sides: a write past out's elements shows

    def sources() -> list[tuple[str, Any]]:
        t2 = torch.arange(12, dtype=torch.int32).view(3, 4)
        store = torch.arange(20, dtype=torch.int64)
        items: list[tuple[str, Any]] = []
        for n in (1, 3, 7, 8, 9, 65):
            items.append((f"int list [{n}]", list(range(1, n + 1))))
        items += [
            ("float list", [1.5, -0.0, float("nan"), 2.0]),
            ("bool list", [True, False, True]),
            ("nested list", [[1, 2, 3], [4, 5, 6]]),
            ("tuple", (1, 2, 3)),
            ("mixed list/tuple", [(1, 2), [3, 4]]),
            (">i4 array", np.arange(1, 6, dtype=">i4")),
            (">f8 array", np.array([1.5, -2.25, 3.0], dtype=">f8")),
            (">i4 2-D fortran array", np.asfortranarray(np.arange(1, 7, dtype=">i4").reshape(2, 3))),
            ("read-only >i2 array", _readonly(np.arange(1, 5, dtype=">i2"))),
            ("read-only int32 array", _readonly(np.arange(1, 5, dtype=np.int32))),
            ("reversed array", np.arange(1, 6, dtype=np.int64)[::-1]),
            ("int32 tensor", torch.arange(1, 6, dtype=torch.int32)),
            ("transposed tensor view", t2.t()),
            ("offset tensor view", store[5:9]),
        ]
        if pinned:
            items.append(("pinned tensor", torch.arange(1, 6, dtype=torch.int64).pin_memory()))
            items.append(("pinned column view", torch.arange(12, dtype=torch.int32).pin_memory().view(6, 2)[:, 0]))
        return items

    for label, data in sources():
        shape = tuple(data.shape) if isinstance(data, (np.ndarray, torch.Tensor)) else tuple(np.shape(np.asarray(data)))
        floaty = isinstance(data, list) and isinstance(data[0], float)
        rows.append((f"{label} -> device", data, {"device": device}, None))
        rows.append((f"{label} -> dtype=float64", _fresh(data), {"device": device, "dtype": torch.float64}, None))
        if not floaty:
            rows.append((f"{label} -> dtype=int64", _fresh(data), {"device": device, "dtype": torch.int64}, None))
        if with_out:
            rows.append((f"{label} -> float32 out", _fresh(data), {"out": out(shape, torch.float32)}, None))
            rows.append((f"{label} -> out of a wrong shape", _fresh(data), {"out": out((*shape, 2), torch.float32)}, ValueError))
            rows.append((f"{label} -> dtype disagreeing with out", _fresh(data), {"dtype": torch.float64, "out": out(shape, torch.float32)}, TypeError))
        big = None if floaty else _with_first(_fresh(data), 2**14)
        if big is not None:
            rows.append((f"{label} -> dtype=int8, value too large", big, {"device": device, "dtype": torch.int8}, ValueError))
    if with_out:
        # Failing calls on out's side: out made under inference mode (torch's copy_ writes
        # first, then raises), out overlapping the data's bytes.
        with torch.inference_mode():
            inference_out = out((3,), torch.int32)
        rows.append(("int list -> inference-mode out", [1, 2, 3], {"out": inference_out}, ValueError))
        shared = torch.arange(8, dtype=torch.float32)
        rows.append(("tensor -> out overlapping it", shared[:4], {"out": shared[2:6]}, ValueError))
        # data an ndarray view of out's own host memory (vLLM 0.33.0 writes through it: H200
        # run of fc47aca); a row, not only a draw of the property, so every run checks it
        viewed = torch.arange(8, dtype=torch.float32)
        rows.append(("ndarray view -> out overlapping it", viewed.numpy()[:7], {"out": viewed[1:]}, ValueError))
    return rows


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


def _fresh(data: Any) -> Any:
    """An independent copy of ``data`` with the same kind, dtype (byte order), layout and flags."""
    import copy as _copy

    if isinstance(data, torch.Tensor):  # the same storage size, offset and strides, pinned-ness kept
        storage = data.untyped_storage()
        raw = torch.empty(storage.nbytes(), dtype=torch.uint8, pin_memory=data.is_pinned())
        raw.copy_(torch.empty(0, dtype=torch.uint8).set_(storage))
        return torch.empty(0, dtype=data.dtype).set_(raw.untyped_storage(), data.storage_offset(), data.size(), data.stride())
    if isinstance(data, np.ndarray):
        copy_ = np.array(data, copy=True, order="K", dtype=data.dtype)
        if not data.flags.writeable:
            copy_.setflags(write=False)
        return copy_
    return _copy.deepcopy(data)


def _with_first(data: Any, value: int) -> Any:
    """``data`` (a fresh copy) with its first element set to ``value``; None where that is impossible (tuples)."""
    if isinstance(data, torch.Tensor):
        data[(0,) * data.dim()] = value
        return data
    if isinstance(data, np.ndarray):
        was = data.flags.writeable
        data.setflags(write=True)
        data[(0,) * data.ndim] = value
        data.setflags(write=was)
        return data
    first = data
    while isinstance(first[0], (list, tuple)):
        first = first[0]
    if not isinstance(first, list):
        return None
    first[0] = value
    return data


def prop_input_untouched_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """input-untouched: a deterministic table of every input kind through every route, valid and failing (see :func:`input_untouched_table`)."""
    _device_ok(target, device, "input-untouched")
    del overrides  # deterministic: every row every run
    rows = _Rows("input-untouched table")
    for _label, data, kwargs, raises in input_untouched_table(device, with_out="out" in target.capabilities):
        rows.row(ch.check_input_untouched, target, data, kwargs, raises=raises)
    rows.finish()


def prop_bad_input_value_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """bad-input: every value-range kind (NaN/inf/out of range/complex/unsigned) x list, ndarray, tensor x out=, dtype= (a table)."""
    _device_ok(target, device, "bad-input")
    del overrides  # deterministic: every row every run
    with_out = "out" in target.capabilities
    rows = _Rows("bad-input value table")
    for bad in hs.value_bad_inputs_table(device):
        if "out" in bad.kwargs and not with_out:
            continue
        rows.row(ch.check_bad_input, target, bad.data, bad.kwargs, bad.raises, f"{bad.kind} as a {type(bad.data).__name__} via {'out=' if 'out' in bad.kwargs else 'dtype='}")
    rows.finish()


#: (data shape, wrong out shape): inner-dimension mismatches a broadcast would fill,
#: same-numel reshapes a flat copy would accept, truncations and growths, scalars.
WRONG_OUT_SHAPES: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((2, 1), (2, 3)),
    ((1, 3), (2, 3)),
    ((3,), (2, 3)),
    ((3,), (1, 3)),
    ((1,), (4,)),
    ((), (1,)),
    ((), (3,)),
    ((1, 3), (3,)),
    ((2, 3), (3, 2)),
    ((6,), (2, 3)),
    ((2, 3), (6,)),
    ((4,), (3,)),
    ((3,), (4,)),
    ((2, 0), (0,)),
    ((0,), (2, 0)),
    ((2, 2, 1), (2, 2, 5)),
)


def _shaped(kind: str, shape: tuple[int, ...]) -> Any:
    values = np.arange(1, int(np.prod(shape, dtype=np.int64)) + 1, dtype=np.int64).reshape(shape)
    if kind == "list":
        return values.tolist()  # a 0-d array's tolist() is a Python int: the scalar case
    return values if kind == "ndarray" else torch.from_numpy(values.copy())


def prop_out_shape_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """out: a table of wrong out shapes ([[1], [2]] into (2, 3), same-numel reshapes, scalars) x list, ndarray, tensor x contiguous/strided out."""
    _device_ok(target, device, "out")
    target.require("out", "out")
    del overrides  # deterministic: every row every run
    rows = _Rows("out shape table")
    for data_shape, out_shape in WRONG_OUT_SHAPES:
        for kind in ("list", "ndarray", "tensor"):
            for strided in (False, True):
                n = int(np.prod(out_shape, dtype=np.int64))
                base = torch.full((2 * n + 1,), 77, dtype=torch.int64, device=device)
                out = base[1::2].view(out_shape) if strided and n else base[1 : 1 + n].view(out_shape)
                rows.row(ch.check_out_shape_rejected, target, _shaped(kind, data_shape), {"out": out})
    rows.finish()


# --------------------------------------------------------------------------- buffer


def _buffer_values(dtype: torch.dtype, shape: tuple[int, ...]) -> st.SearchStrategy[torch.Tensor]:
    return _values(dtype, tuple(shape), None)


def prop_buffer_init(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: zero-initialised, shapes/dtypes/devices, pinned iff asked, .np aliases .cpu."""
    _device_ok(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        spec = data.draw(hs.buffer_specs(), label="buffer")
        cb.check_buffer_init(target, spec, device)

    _run(body, overrides, cap=30)


def prop_buffer_numpy_rejected(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: with_numpy=True for bfloat16 / float8 raises ValueError."""
    _device_ok(target, device, "buffer")
    target.require("buffer", "buffer")
    no_numpy = [torch.bfloat16, *hs.FLOAT8_DTYPES]

    def body(data: st.DataObject) -> None:
        spec = data.draw(hs.buffer_specs(), label="buffer")
        spec = {**spec, "dtype": data.draw(st.sampled_from(no_numpy), label="dtype"), "with_numpy": True}
        cb.check_numpy_view_rejected(target, spec, device)

    _run(body, overrides, cap=10)


def prop_buffer_bad_args(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: bad constructor arguments are refused with TypeError/ValueError naming the argument (a table).

    Rows from the documented Raises of ``CpuGpuBuffer``: no size, a negative, fractional,
    bool or string size, a size too large to allocate, a missing or non-dtype ``dtype``, a
    missing or invalid ``device``, a non-bool ``pin_memory`` or ``with_numpy``. The brief:
    "bad input gets a clear exception naming the argument"; ``assert``-based checks
    (vLLM's style) vanish under ``python -O``.
    """
    target.require("buffer", "buffer")
    del overrides  # deterministic: every row every run
    ok: dict[str, Any] = {"dtype": torch.int32, "device": device, "pin_memory": False, "with_numpy": True}
    rows = _Rows("buffer constructor table")
    table: list[tuple[str, tuple[Any, ...], dict[str, Any], type[BaseException]]] = [
        ("no size", (), ok, ValueError),
        ("negative size", (4, -1), ok, ValueError),
        ("fractional size", (2.5,), ok, TypeError),
        ("bool size", (True,), ok, TypeError),
        ("string size", ("4",), ok, TypeError),
        ("size too large to allocate", (1 << 62,), ok, ValueError),
        ("dtype None", (4,), {**ok, "dtype": None}, TypeError),
        ("dtype a string", (4,), {**ok, "dtype": "int32"}, TypeError),
        ("device None", (4,), {**ok, "device": None}, TypeError),
        ("device an invalid string", (4,), {**ok, "device": "gpu:x"}, ValueError),
        ("pin_memory a string", (4,), {**ok, "pin_memory": "yes"}, TypeError),
        ("with_numpy a string", (4,), {**ok, "with_numpy": "no"}, TypeError),
    ]
    for why, args, kwargs, raises in table:
        rows.row(cb.check_buffer_rejected, target, args, kwargs, raises, why)
    rows.finish()


def prop_buffer_roundtrip(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: without .np, every dtype (bfloat16 and float8 included) round-trips bit for bit."""
    _device_ok(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        spec = {**data.draw(hs.buffer_specs(), label="buffer"), "with_numpy": False}
        values = data.draw(_buffer_values(spec["dtype"], spec["size"]), label="values")
        cb.check_roundtrip_bits(target, spec, device, values)

    _run(body, overrides, cap=30)


def prop_buffer_copy(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: copy_to_gpu(n) / copy_to_cpu(n) copy exactly rows [0, n) and return the n-row view."""
    _device_ok(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        max_rows = data.draw(st.sampled_from([8, 8, 8, 200]), label="max rows")  # capacities past 64 too
        spec = data.draw(hs.buffer_specs(max_rows=max_rows), label="buffer")
        buf = cb.make_buffer(target, spec, device)
        n = data.draw(hs.row_counts(spec["size"][0], valid=True), label="n")
        values = data.draw(_buffer_values(spec["dtype"], spec["size"]), label="values")
        method = data.draw(st.sampled_from(["copy_to_gpu", "copy_to_cpu"]), label="method")
        check = cb.check_copy_to_gpu if method == "copy_to_gpu" else cb.check_copy_to_cpu
        check(target, buf, n, values, cb.repr_spec(spec, device))

    _run(body, overrides)


def prop_buffer_copy_sizes(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: capacities 1-1000 (past 64 and 128) with n in {0, 1, capacity-1, capacity}, both directions (a table)."""
    _device_ok(target, device, "buffer")
    target.require("buffer", "buffer")
    del overrides  # deterministic: every size every run
    for capacity in (1, 63, 64, 65, 132, 1000):
        # pinning asked for at odd capacities, whether or not this host has pinned memory (fallback: pageable)
        spec = {"size": (capacity, 3), "dtype": torch.int32, "pin_memory": capacity % 2 == 1, "with_numpy": True}
        values = torch.arange(capacity * 3, dtype=torch.int32).view(capacity, 3) + 1
        for n in sorted({0, 1, capacity - 1, capacity}):
            for check in (cb.check_copy_to_gpu, cb.check_copy_to_cpu):
                buf = cb.make_buffer(target, spec, device)
                check(target, buf, n, values, cb.repr_spec(spec, device))


def prop_buffer_bad_rows(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: n outside [0, capacity] (negative, capacity+k) raises IndexError; a non-int n TypeError; nothing copied."""
    _device_ok(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        spec = data.draw(hs.buffer_specs(), label="buffer")
        buf = cb.make_buffer(target, spec, device)
        # Not integer row counts, though operator.index or slicing may take some of them.
        not_ints = st.sampled_from([1.0, True, np.bool_(True), "1", torch.tensor(True), torch.tensor([1]), torch.tensor(1.0)])
        n = data.draw(hs.row_counts(spec["size"][0], valid=False) | not_ints, label="n")
        method = data.draw(st.sampled_from(["copy_to_gpu", "copy_to_cpu"]), label="method")
        cb.check_row_count_rejected(target, buf, n, method, cb.repr_spec(spec, device))

    _run(body, overrides)


def prop_buffer_state_machine(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: random op sequences agree with a numpy model."""
    from hypothesis.stateful import run_state_machine_as_test

    _device_ok(target, device, "buffer")
    machine = cb.buffer_state_machine(target, device, hs.buffer_specs(max_rows=6), _buffer_values)
    kw: dict[str, Any] = {"suppress_health_check": _SUPPRESS, "deadline": None, "stateful_step_count": 12}
    kw["max_examples"] = min(settings().max_examples, 25)
    kw.update(overrides)
    try:
        run_state_machine_as_test(machine, settings=settings(**kw))
    except Flaky as exc:
        raise _nondeterministic(exc, "buffer", "prop_buffer_state_machine") from exc


# --------------------------------------------------------------------------- cpu-path


def prop_cpu_path(target: Target, device: torch.device, **overrides: Any) -> None:
    """cpu-path: the CPU-platform variant and the main path agree on valid and bad inputs."""
    target.require("cpu-variant", "cpu-path")
    cpu = torch.device("cpu")

    def body(data: st.DataObject) -> None:
        if data.draw(st.booleans(), label="bad input"):
            bad = data.draw(hs.bad_inputs(cpu), label="bad")
            cc.check_cpu_path_agrees(target, bad.data, bad.kwargs)
        else:
            call = data.draw(hs.h2d_calls(cpu), label="call")
            cc.check_cpu_path_agrees(target, call.data, call.kwargs)

    _run(body, overrides)


# --------------------------------------------------------------------------- GPU only


def prop_staging(target: Target, device: torch.device, **overrides: Any) -> None:
    """staging: no "Pageable -> Device" memcpy for any input kind, layout, pinned or not, with or without out."""
    cg.requires_cuda(target, "staging", device)

    def body(data: st.DataObject) -> None:
        call = data.draw(hs.h2d_calls(device, out=None if "out" in target.capabilities else False), label="call")
        cg.check_staging(target, call.data, call.kwargs)

    _run(body, overrides, cap=25)


def prop_staging_strided_pinned(target: Target, device: torch.device, **overrides: Any) -> None:
    """staging: a strided pinned view (e.g. a column slice of a pinned 2-D buffer) is not DMA'd from pageable memory."""
    cg.requires_cuda(target, "staging", device)

    def body(data: st.DataObject) -> None:
        layout = data.draw(st.sampled_from(["transposed", "sliced", "expanded"]), label="layout")
        t = data.draw(hs.cpu_tensors(shape=hs.shapes(min_dims=2, min_side=2), pinned=True, layout=layout), label="pinned view")
        cg.check_staging(target, t, {"device": device})

    _run(body, overrides, cap=15)


def prop_pinned_not_restaged(target: Target, device: torch.device, **overrides: Any) -> None:
    """staging: a pinned, dense input (contiguous, transposed, channels-last) of the target dtype is not copied again."""
    cg.requires_cuda(target, "staging", device)
    for shape, layout in DENSE_PERMUTED_TABLE:
        t = hs.tensor_in_layout(torch.arange(math.prod(shape), dtype=torch.float32).view(shape), layout, pinned=True)
        cg.check_pinned_not_restaged(target, t, {"device": device})

    def body(data: st.DataObject) -> None:
        layout = data.draw(st.sampled_from(DENSE_LAYOUTS), label="layout")
        t = data.draw(hs.cpu_tensors(shape=hs.shapes(min_dims=1, min_side=1), pinned=True, layout=layout), label="pinned tensor")
        cg.check_pinned_not_restaged(target, t, {"device": device})

    _run(body, overrides, cap=10)


#: Tensor layouts whose elements fill their bytes (a permutation of contiguous): a pinned
#: input in one of them is DMA'd as it lies, never staged again (DESIGN.md: "an already
#: pinned input is not copied again"); the staging and snapshot contracts draw them.
DENSE_LAYOUTS = ("contiguous", "transposed", "channels_last")

#: Dense permutations of two to four dimensions, every side >= 2, as a table: random shapes
#: rarely have three sides > 1, and a density rule that holds for two dimensions only
#: (``expected = size`` for ``expected *= size``) survived them in the GPU mutation run of
#: 79c9cc9 (reports/mutation/).
DENSE_PERMUTED_TABLE = (((5, 3), "transposed"), ((2, 3, 4), "transposed"), ((2, 3, 4, 5), "transposed"), ((2, 3, 4, 5), "channels_last"))

#: Payload sizes for the non-blocking contract: the design brief (../shared/DESIGN.md) measured blocking from 4 MB up.
NON_BLOCKING_BYTES = (4 << 20, 16 << 20, 64 << 20)


def prop_non_blocking(target: Target, device: torch.device, **overrides: Any) -> None:
    """non-blocking: 4-64 MB tensors (pageable, pinned, pinned transposed, strided pinned) and arrays, with and without out, return at once."""
    cg.requires_cuda(target, "non-blocking", device)
    import numpy as np

    def body(data: st.DataObject) -> None:
        nbytes = data.draw(st.sampled_from(NON_BLOCKING_BYTES), label="bytes")
        kind = data.draw(st.sampled_from(["pageable", "pinned", "pinned-transposed", "pinned-column-slice", "ndarray"]), label="kind")
        n = nbytes // 4
        if kind == "ndarray":
            payload: Any = np.arange(n, dtype=np.int32)
        elif kind == "pinned-column-slice":
            payload = torch.arange(2 * n, dtype=torch.int32).pin_memory().view(-1, 2)[:, 0]
        elif kind == "pinned-transposed":
            # dense in a permutation: DMA'd as it lies, so no host pass may be needed (a
            # blocking .to() on this path survived the GPU mutation run of 79c9cc9)
            payload = torch.arange(n, dtype=torch.int32).pin_memory().view(2, n // 2).t()
        else:
            payload = torch.arange(n, dtype=torch.int32)
            payload = payload.pin_memory() if kind == "pinned" else payload
        kwargs: dict[str, Any] = {"device": device}
        if "out" in target.capabilities and data.draw(st.booleans(), label="with out"):
            kwargs = {"out": torch.empty(tuple(np.shape(payload)), dtype=torch.int32, device=device)}
        cg.check_non_blocking(target, payload, kwargs)

    _run(body, overrides, cap=8, timed=True)


def prop_buffer_non_blocking(target: Target, device: torch.device, **overrides: Any) -> None:
    """non-blocking: CpuGpuBuffer.copy_to_gpu(n) / copy_to_cpu(n) (n given or None) of 4-64 MB of pinned rows return at once."""
    cg.requires_cuda(target, "non-blocking", device)
    target.require("buffer", "non-blocking")

    def body(data: st.DataObject) -> None:
        nbytes = data.draw(st.sampled_from(NON_BLOCKING_BYTES), label="bytes")
        rows = nbytes // 4096
        spec = {"size": (rows, 1024), "dtype": torch.int32, "pin_memory": True, "with_numpy": False}
        buf = cb.make_buffer(target, spec, device)
        buf.cpu.copy_(torch.arange(rows * 1024, dtype=torch.int32).view(rows, 1024))
        buf.gpu.copy_(-torch.arange(rows * 1024, dtype=torch.int32, device=device).view(rows, 1024))
        # n=None: copy_to_gpu() / copy_to_cpu() of every row, a path of its own (its blocking copies
        # survived the GPU mutation run of 79c9cc9 while only n=int was drawn)
        n = data.draw(st.sampled_from([None, rows, rows // 2]), label="n")
        for direction in ("copy_to_gpu", "copy_to_cpu"):  # both, every example: neither may be left unchecked
            cg.check_buffer_non_blocking(target, buf, n, direction)

    _run(body, overrides, cap=6, timed=True)


def prop_snapshot(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: staged sources (lists, arrays, pageable or strided tensors) can be overwritten right after the call."""
    cg.requires_cuda(target, "snapshot", device)

    def body(data: st.DataObject) -> None:
        call = data.draw(hs.h2d_calls(device, out=None if "out" in target.capabilities else False, shape=hs.shapes(min_dims=1, min_side=1)), label="call")
        if not cg._staged_kind(call.data, call.kwargs):
            call.data = call.data.t() if call.data.dim() == 2 and min(call.data.shape) > 1 else call.data.cpu().clone()
            if not cg._staged_kind(call.data, call.kwargs):
                call.data = call.data.clone()  # pageable
        cg.check_snapshot(target, call.data, call.kwargs)

    _run(body, overrides, cap=15)


def prop_back_to_back(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: two calls queued behind a busy stream both land intact (no staging buffer reused too early).

    Drawn calls (small lists and arrays) and, one draw in two, a 1 or 8 MiB array: staging
    pools often serve large payloads from other blocks than small ones (the reference: a
    shared chunk up to 256 KiB, whole blocks above), and a block reused while its copy is
    queued shows only with a payload that takes one.
    """
    cg.requires_cuda(target, "snapshot", device)
    import numpy as np

    def body(data: st.DataObject) -> None:
        large = data.draw(st.sampled_from([0, 1 << 20, 8 << 20]) if data.draw(st.booleans(), label="large") else st.just(0), label="large payload bytes")
        if large:
            cg.check_back_to_back(target, np.arange(large // 4, dtype=np.int32), {"device": device})
            return
        call = data.draw(hs.h2d_calls(device, kinds=("list", "ndarray"), out=None if "out" in target.capabilities else False, shape=hs.shapes(min_dims=1, min_side=1)), label="call")
        cg.check_back_to_back(target, call.data, call.kwargs)

    _run(body, overrides, cap=10, timed=True)


def prop_pinned_hazard(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: for pinned inputs the documented hazard is real and the documented wait makes them safe."""
    cg.requires_cuda(target, "snapshot", device)

    def body(data: st.DataObject) -> None:
        layout = data.draw(st.sampled_from(DENSE_LAYOUTS), label="layout")
        t = data.draw(hs.cpu_tensors(dtype=hs.torch_dtypes(exclude=(torch.bool,)), shape=hs.shapes(min_dims=1, min_side=1), pinned=True, layout=layout), label="pinned tensor")
        cg.check_pinned_hazard(target, t, {"device": device})

    _run(body, overrides, cap=8)


def prop_buffer_hazard(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: CpuGpuBuffer.cpu rows overwritten after copy_to_gpu(n): safe after the documented wait only."""
    cg.requires_cuda(target, "snapshot", device)
    target.require("buffer", "snapshot")

    def body(data: st.DataObject) -> None:
        spec = {**data.draw(hs.buffer_specs(), label="buffer"), "pin_memory": True}
        spec["size"] = (max(spec["size"][0], 1), *spec["size"][1:])
        buf = cb.make_buffer(target, spec, device)
        buf.cpu.copy_(data.draw(_buffer_values(spec["dtype"], spec["size"]), label="values"))
        n = data.draw(st.integers(1, spec["size"][0]), label="n")
        cg.check_buffer_hazard(target, buf, n)

    _run(body, overrides, cap=8)


def prop_stream(target: Target, device: torch.device, **overrides: Any) -> None:
    """stream: the copy is ordered on the current stream (side stream), with and without out."""
    cg.requires_cuda(target, "stream", device)

    def body(data: st.DataObject) -> None:
        use_out = "out" in target.capabilities and data.draw(st.booleans(), label="with out")
        call = data.draw(hs.h2d_calls(device, out=use_out, shape=hs.shapes(min_dims=1, min_side=1)), label="call")
        if use_out:
            cg.check_stream_out(target, call.data, call.kwargs)
        else:
            cg.check_stream_no_out(target, call.data, call.kwargs)

    _run(body, overrides, cap=10)


def prop_cross_device(target: Target, device: torch.device, **overrides: Any) -> None:
    """stream: a non-current device's index and current stream are honoured (device="cuda:1", out on cuda:1)."""
    cg.requires_cuda(target, "stream", device)
    if torch.cuda.device_count() < 2:
        from ._report import NotApplicable

        raise NotApplicable(f"stream: cross-device contract needs 2 CUDA devices, this machine has {torch.cuda.device_count()}")
    current = device.index
    other = torch.device("cuda", (current + 1) % torch.cuda.device_count())

    def body(data: st.DataObject) -> None:
        with torch.cuda.device(current):
            call = data.draw(hs.h2d_calls(other, out=False, pass_device=True), label="call")
            ch.check_values(target, call.data, call.kwargs)
            if "out" in target.capabilities:
                call = data.draw(hs.h2d_calls(other, out=True, shape=hs.shapes(min_dims=1, min_side=1)), label="out call")
                cg.check_stream_out(target, call.data, call.kwargs, current_device=current)

    _run(body, overrides, cap=10)


# --------------------------------------------------------------------------- reliability


def prop_concurrency(target: Target, device: torch.device, **overrides: Any) -> None:
    """concurrency: 8 threads x 10,000 calls, own streams (CUDA) / the host; every result right.

    Not a Hypothesis property: the inputs are fixed (``reliability.mixed_inputs``);
    ``overrides`` may set ``threads`` and ``calls``.
    """
    from . import reliability

    _device_ok(target, device, "concurrency")
    reliability.check_concurrent_calls(target, device, threads=overrides.get("threads", 8), calls=overrides.get("calls", 10_000))


def prop_hygiene(target: Target, device: torch.device, **overrides: Any) -> None:
    """hygiene: 100,000 mixed calls leave no more pinned host or device memory referenced than 10,000 warm-up calls did (CUDA only).

    Run in a fresh process that loads the target by its spec (the readings are
    process-wide: see :func:`contracts.reliability.check_resource_hygiene_isolated`).
    """
    from . import reliability

    reliability.check_resource_hygiene_isolated(target, device, calls=overrides.get("calls", 100_000), warmup=overrides.get("warmup", 10_000))


def prop_device_hygiene(target: Target, device: torch.device, **overrides: Any) -> None:
    """device-hygiene: calls aimed at a non-primary CUDA device touch no other device (a fresh process; 2 GPUs).

    Not a Hypothesis property: one fixed set of calls in a fresh interpreter
    (:func:`contracts.gpu.check_device_hygiene`); ``overrides`` are ignored. Aims at
    ``device``'s index when it is not 0, else at ``cuda:1``.
    """
    del overrides
    cg.requires_cuda(target, "device-hygiene", device)
    index = device.index if device.index else 1
    cg.check_device_hygiene(target, index)


#: catalogue id -> properties that check it.
PROPERTIES: dict[str, tuple[Callable[..., None], ...]] = {
    "values": (prop_values, prop_values_zero_length, prop_values_pure_copy_bits, prop_values_wide_numpy, prop_values_large, prop_values_multi_mb, prop_values_dtype_matrix, prop_values_layouts, prop_values_typed_leaves, prop_values_autograd_and_default_dtype, prop_values_first_call),
    "dtype": (prop_dtype_resolution, prop_dtype_mismatch),
    "out": (prop_out_written, prop_out_dense_table, prop_out_shape_table, prop_out_shape_rejected),
    "target": (prop_no_target,),
    "no-alias": (prop_no_alias, prop_no_alias_layouts),
    "bad-input": (prop_bad_input_value_table, prop_bad_input),
    "input-untouched": (prop_input_untouched_table, prop_input_untouched),
    "buffer": (prop_buffer_init, prop_buffer_numpy_rejected, prop_buffer_bad_args, prop_buffer_roundtrip, prop_buffer_copy, prop_buffer_copy_sizes, prop_buffer_bad_rows, prop_buffer_state_machine),
    "cpu-path": (prop_cpu_path,),
    "staging": (prop_staging, prop_staging_strided_pinned, prop_pinned_not_restaged),
    "non-blocking": (prop_non_blocking, prop_buffer_non_blocking),
    "snapshot": (prop_snapshot, prop_back_to_back, prop_pinned_hazard, prop_buffer_hazard),
    "stream": (prop_stream, prop_cross_device),
    "concurrency": (prop_concurrency,),
    "hygiene": (prop_hygiene,),
    "device-hygiene": (prop_device_hygiene,),
}


def run_property(contract: str, target: Target, device: torch.device, **overrides: Any) -> None:
    """Run every property of catalogue id ``contract`` against ``target`` on ``device``."""
    for prop in PROPERTIES[contract]:
        prop(target, device, **overrides)
