"""The ``buffer`` properties: drawn specs, row counts and values, the constructor and copy-size tables, and the op
state machine, each bound to the checks of this package."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import (
    run_state_machine_as_test,
)

import h2d_contracts.strategies as hs
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import SUPPRESS, Rows, nondeterministic, require_device, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail

from .construction import check_buffer_constructed, check_buffer_init
from .copies import (
    check_buffer_made_in_context,
    check_copy_to_cpu,
    check_copy_to_gpu,
    check_copy_views_fresh,
    check_roundtrip_bits,
    check_row_count_rejected,
    check_view_outlives_buffer,
)
from .ops import buffer_state_machine
from .refusals import check_buffer_rejected, check_numpy_view_rejected


def buffer_values(dtype: torch.dtype, shape: tuple[int, ...]) -> st.SearchStrategy[torch.Tensor]:
    """Values for a buffer's rows: a contiguous CPU tensor of ``dtype`` and ``shape`` (any bit pattern of floats)."""
    return hs.tensor_values(dtype, tuple(shape), None)


@prop("buffer", cap=30)
def prop_buffer_init(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: zero-initialised, shapes/dtypes/devices, pinned iff asked, .np aliases .cpu."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        spec = data.draw(hs.buffer_specs(), label="buffer")
        check_buffer_init(target, spec, device)

    run_given(body, overrides)


@prop("buffer", table=True)
def prop_buffer_wide_unsigned(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: uint16, uint32 and uint64 buffers (token ids as uint32), with and without ``.np``: built and copied as any other."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")
    del overrides
    rows = Rows("buffer wide unsigned")
    for dtype in hs.UNSIGNED_WIDE_DTYPES:
        for with_numpy in (True, False):
            spec = {"size": (4, 3), "dtype": dtype, "pin_memory": False, "with_numpy": with_numpy}
            rows.row(check_buffer_init, target, spec, device)
            values = torch.arange(12, dtype=torch.int64).reshape(4, 3).to(dtype)
            rows.row(check_copy_to_gpu, target, spec, device, 3, values)
    rows.finish()


@prop("buffer", table=True)
def prop_buffer_spellings(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: constructor arguments as a user may spell them: sizes as numpy integers, ``with_numpy`` a numpy bool
    (``np.True_``: a test ``with_numpy is True`` loses ``.np``: held-out round r43), built as their plain spelling is;
    ``.np`` of bool, int8, float16, float64 and int64 buffers of ``.cpu``'s own dtype (a table)."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")
    del overrides
    rows = Rows("buffer spellings")
    plain: dict[str, Any] = {"dtype": torch.int32, "device": device, "pin_memory": False}
    rows.row(check_buffer_constructed, target, (np.int64(3), np.int32(2)), plain)
    for flag in (np.True_, np.False_):
        rows.row(check_buffer_constructed, target, (3,), {**plain, "with_numpy": flag})
    # every dtype with a numpy twin, with .np: its view of .cpu's own dtype (held-out round r47: a bool buffer's .np a
    # uint8 view)
    for dtype in (torch.bool, torch.int8, torch.float16, torch.float64, torch.int64):
        rows.row(
            check_buffer_init, target, {"size": (3,), "dtype": dtype, "pin_memory": False, "with_numpy": True}, device
        )
    rows.finish()


@prop("buffer", cap=10)
def prop_buffer_numpy_rejected(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: with_numpy=True for bfloat16 / float8 raises ValueError."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")
    no_numpy = [torch.bfloat16, *hs.FLOAT8_DTYPES]

    def body(data: st.DataObject) -> None:
        spec = data.draw(hs.buffer_specs(), label="buffer")
        spec = {**spec, "dtype": data.draw(st.sampled_from(no_numpy), label="dtype"), "with_numpy": True}
        check_numpy_view_rejected(target, spec, device)

    run_given(body, overrides)


@prop("buffer")
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
    rows = Rows("buffer constructor table")
    table: list[tuple[str, tuple[Any, ...], dict[str, Any], type[BaseException]]] = [
        ("no size", (), ok, ValueError),
        ("negative size", (4, -1), ok, ValueError),
        ("fractional size", (2.5,), ok, TypeError),
        ("bool size", (True,), ok, TypeError),
        ("string size", ("4",), ok, TypeError),
        # sizes go in one by one (*size): a single tuple, list or torch.Size is a misuse, not a shape
        ("size a tuple", ((4,),), ok, TypeError),
        ("size a list", ([4, 2],), ok, TypeError),
        ("size a torch.Size", (torch.Size([4]),), ok, TypeError),
        ("size too large to allocate", (1 << 62,), ok, ValueError),
        ("size past int64", (1 << 63,), ok, ValueError),
        ("dtype None", (4,), {**ok, "dtype": None}, TypeError),
        ("dtype a string", (4,), {**ok, "dtype": "int32"}, TypeError),
        ("device None", (4,), {**ok, "device": None}, TypeError),
        ("device an invalid string", (4,), {**ok, "device": "gpu:x"}, ValueError),
        ("pin_memory a string", (4,), {**ok, "pin_memory": "yes"}, TypeError),
        # ints are not bools, though 1 == True (held-out round r50 tested membership in (None, True, False))
        ("pin_memory the int 1", (4,), {**ok, "pin_memory": 1}, TypeError),
        ("pin_memory the int 0", (4,), {**ok, "pin_memory": 0}, TypeError),
        ("with_numpy a string", (4,), {**ok, "with_numpy": "no"}, TypeError),
        ("with_numpy the int 1", (4,), {**ok, "with_numpy": 1}, TypeError),
        # None is not "where numpy can" (pin_memory=None's "where pinning is available" has no with_numpy twin: held-out
        # round r56 built the buffer, without .np for bfloat16, where the reference refuses)
        ("with_numpy None", (4,), {**ok, "with_numpy": None}, TypeError),
        ("with_numpy None, bfloat16", (4,), {**ok, "dtype": torch.bfloat16, "with_numpy": None}, TypeError),
    ]
    for why, args, kwargs, raises in table:
        rows.row(check_buffer_rejected, target, args, kwargs, raises, why)
    rows.finish()


@prop("buffer", table=True)
def prop_buffer_made_in_contexts(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: a buffer made under no_grad, inference_mode, a meta default device and deterministic mode, written and
    copied after leaving it, as one made in the plain context (a table)."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")
    del overrides  # deterministic: every row every run
    rows = Rows("buffer made in contexts")
    for context in ("no_grad", "inference_mode", "default_device", "deterministic"):
        rows.row(check_buffer_made_in_context, target, context, device)
    rows.finish()


@prop("buffer", cap=30)
def prop_buffer_roundtrip(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: without .np, every dtype (bfloat16 and float8 included) round-trips bit for bit."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        spec = {**data.draw(hs.buffer_specs(), label="buffer"), "with_numpy": False}
        values = data.draw(buffer_values(spec["dtype"], spec["size"]), label="values")
        check_roundtrip_bits(target, spec, device, values)

    run_given(body, overrides)


@prop("buffer")
def prop_buffer_copy(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: copy_to_gpu(n) / copy_to_cpu(n) copy exactly rows [0, n) and return the n-row view."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        max_rows = data.draw(st.sampled_from([8, 8, 8, 200]), label="max rows")  # capacities past 64 too
        spec = data.draw(hs.buffer_specs(max_rows=max_rows), label="buffer")
        n = data.draw(hs.row_counts(spec["size"][0], valid=True), label="n")
        values = data.draw(buffer_values(spec["dtype"], spec["size"]), label="values")
        method = data.draw(st.sampled_from(["copy_to_gpu", "copy_to_cpu"]), label="method")
        (check_copy_to_gpu if method == "copy_to_gpu" else check_copy_to_cpu)(target, spec, device, n, values)

    run_given(body, overrides)


@prop("buffer")
def prop_buffer_copy_sizes(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: capacities 1-4097 (past 64, 128, 1024 and 4096) and 10,923 rows of 3 (past 32,768 elements, with and
    without ``.np``) with n in {0, 1, 300, capacity-1, capacity} and as 0-d integer tensors, both directions; and
    the same n twice, each call a view of its own; a view keeping its values after its buffer is dropped and another
    made (a table)."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")
    del overrides  # deterministic: every size every run
    rows = Rows("buffer copy sizes")
    # and 10,923 rows of 3: 32,769 elements, past torch's serial grain of 32,768, with and without .np (held-out round
    # r53 copied such buffers through .np, which with_numpy=False buffers lack)
    for capacity, with_numpy in (
        *((c, True) for c in (1, 63, 64, 65, 132, 1000, 1025, 4097)),
        (10923, True),
        (10923, False),
    ):
        # pinning asked for at odd capacities, whether or not this host has pinned memory (fallback: pageable)
        spec = {"size": (capacity, 3), "dtype": torch.int32, "pin_memory": capacity % 2 == 1, "with_numpy": with_numpy}
        values = torch.arange(capacity * 3, dtype=torch.int32).view(capacity, 3) + 1
        counts: list[Any] = sorted({0, 1, capacity - 1, capacity} | ({300} if capacity > 300 else set()))
        # and counts read off 0-d integer tensors (held-out round r50 refused them with an isinstance test)
        counts += [torch.tensor(capacity - 1), torch.tensor(capacity, dtype=torch.int32)]
        for n in counts:
            for copy in (check_copy_to_gpu, check_copy_to_cpu):
                rows.row(copy, target, spec, device, n, values)
    # the same n twice, the first result reshaped in place by its caller in between
    spec = {"size": (4, 3), "dtype": torch.int32, "pin_memory": False, "with_numpy": True}
    for n in (1, 4):
        for method in ("copy_to_gpu", "copy_to_cpu"):
            rows.row(check_copy_views_fresh, target, spec, device, n, method)
    # a view kept past its buffer's drop, another buffer of the same spec made and written
    for method in ("copy_to_gpu", "copy_to_cpu"):
        rows.row(check_view_outlives_buffer, target, device, method)
    rows.finish()


@prop("buffer")
def prop_buffer_bad_rows(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: n outside [0, capacity] (negative, capacity+k) raises IndexError; a non-int n TypeError; nothing copied."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        spec = data.draw(hs.buffer_specs(), label="buffer")
        # Not integer row counts, though operator.index or slicing may take some of them.
        not_ints = st.sampled_from(
            [1.0, True, np.bool_(True), "1", torch.tensor(True), torch.tensor([1]), torch.tensor(1.0)]
        )
        n = data.draw(hs.row_counts(spec["size"][0], valid=False) | not_ints, label="n")
        method = data.draw(st.sampled_from(["copy_to_gpu", "copy_to_cpu"]), label="method")
        check_row_count_rejected(target, spec, device, n, method)

    run_given(body, overrides)


#: (a valid ``n``, a refused ``n`` equal to it) pairs: a float, a bool, a numpy float and a 1-D tensor that compare
#: equal to the int before them.
EQUAL_BUT_REFUSED: tuple[tuple[int, Any], ...] = (
    (2, 2.0),
    (1, True),
    (0, False),
    (2, np.float64(2.0)),
    (1, torch.tensor([1])),
)


@prop("buffer", table=True)
def prop_buffer_bad_rows_after_valid(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: an ``n`` that is not an int but equals the valid ``n`` of the call before (2.0 after 2, True after 1) is
    still refused with TypeError naming ``n``, by both copies (a table)."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")
    del overrides  # deterministic: every row every run
    rows = Rows("buffer bad rows after a valid call")
    spec = {"size": (4,), "dtype": torch.int32, "pin_memory": target.pins_host(), "with_numpy": True}
    for method in ("copy_to_gpu", "copy_to_cpu"):
        for valid, bad in EQUAL_BUT_REFUSED:
            rows.row(check_row_count_rejected, target, spec, device, bad, method, valid)
    rows.finish()


@prop("buffer")
def prop_buffer_state_machine(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: random op sequences on one buffer agree with a numpy model (a Hypothesis state machine)."""
    require_device(target, device, "buffer")
    machine = buffer_state_machine(target, device, hs.buffer_specs(max_rows=6), buffer_values)
    kw: dict[str, Any] = {"suppress_health_check": SUPPRESS, "deadline": None, "stateful_step_count": 12}
    kw["max_examples"] = min(settings().max_examples, 25)
    kw.update({k: v for k, v in overrides.items() if k != "max_kinds"})
    try:
        run_state_machine_as_test(machine, settings=settings(**kw))
    except Flaky as exc:
        raise nondeterministic(exc, "buffer", "prop_buffer_state_machine") from exc


@check("buffer")
def check_buffer_default_pinning(target: Target, device: torch.device, pin_memory: Any = "left out") -> None:
    """buffer: ``CpuGpuBuffer(rows, dtype=..., device=...)`` with ``pin_memory`` left out pins ``.cpu`` exactly where
    pinned memory is available: the default of vLLM's buffer since it has one (``pin_memory=PIN_MEMORY``, i.e.
    ``is_pin_memory_available()``) and of the reference (``None``: where available). A constructor without a default
    for it (vLLM 0.10-0.21) is not applicable. A default of ``False`` leaves every engine buffer built the short way
    pageable, so each ``copy_to_gpu`` waits for the stream (an outside round's GPU bug, r45).

    ``pin_memory=True`` given pins ``.cpu`` wherever pinned memory is available, whatever the twin's device (vLLM's
    ``torch.zeros(..., pin_memory=pin_memory)`` never looks at ``device``; r46 pinned it only for a CUDA twin), and
    ``pin_memory=False`` never pins it.
    """
    import inspect

    cls = target.buffer_cls
    if cls is None:
        raise NotApplicable(f"contract 'buffer' needs a CpuGpuBuffer, which target '{target.name}' lacks")
    if pin_memory == "left out":
        try:
            parameter = inspect.signature(cls).parameters.get("pin_memory")
        except (TypeError, ValueError):
            parameter = None
        if parameter is None or parameter.default is inspect.Parameter.empty:
            raise NotApplicable(f"{target.buffer_name} has no default for pin_memory: every caller passes it")
        kwargs: dict[str, Any] = {}
    else:
        kwargs = {"pin_memory": pin_memory}
    asked = "left out" if pin_memory == "left out" else f"={pin_memory}"
    spelled = "" if pin_memory == "left out" else f", pin_memory={pin_memory}"
    call = f"{target.buffer_name}(4096, dtype=torch.int32, device={str(device)!r}{spelled})"
    try:
        buf = cls(4096, dtype=torch.int32, device=device, **kwargs)
    except Exception as exc:  # noqa: BLE001 - a valid construction that raises is this contract's failure
        fail(
            "buffer",
            f"a construction with pin_memory {asked} raised",
            got=f"{type(exc).__name__}: {exc}",
            expected="a buffer",
            call=call,
        )
    want = bool(target.pin_memory_available()) and pin_memory is not False
    if bool(buf.cpu.is_pinned()) != want:
        fail(
            "buffer",
            f"pin_memory {asked}: .cpu pinned-ness",
            got=bool(buf.cpu.is_pinned()),
            expected=f"{want} (pinned exactly where pinned memory is available and pinning was not refused: "
            "vLLM's default PIN_MEMORY)",
            call=call,
        )


@prop("buffer", table=True)
def prop_buffer_default_pinning(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: a buffer built with ``pin_memory`` left out or ``True`` is pinned exactly where pinned memory is available,
    whatever the twin's device; with ``False`` never (a table)."""
    target.require("buffer", "buffer")
    del overrides
    rows = Rows("pin_memory left out, True, False")
    # the twin on this device and, from a CUDA device, on the host too: pinning must not depend on the twin's device
    # (r46 pinned only for a CUDA twin, which a table built for the CUDA device alone never sees)
    twins = [device] if device.type == "cpu" else [device, torch.device("cpu")]
    for twin in twins:
        for pin_memory in ("left out", True, False):
            rows.row(check_buffer_default_pinning, target, twin, pin_memory)
    rows.finish()
