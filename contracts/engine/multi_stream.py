"""Contract ``multi-stream``: schedules of calls over three streams, some behind spin work, some with their host
source overwritten right after the call, every result checked after synchronising; drawn and as a table."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

from h2d_contracts.harness.checks import check
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import require_device, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail

from ..buffer import make_buffer
from .streams import StreamSet

#: Input kinds of a multi-stream schedule.
MULTI_STREAM_KINDS = ("list", "ndarray", "pinned-ndarray", "tensor", "pinned-tensor", "out", "buffer")

#: Sizes a multi-stream call draws from (elements): small ones share a small-payload staging
#: chunk, the large ones take blocks of their own.
MULTI_STREAM_SIZES = (1, 17, 255, 4097, 65537, 262145)


def _source(kind: str, n: int, step: int, target: Target, device: torch.device) -> Any:
    values = (np.arange(n, dtype=np.int64) * 7919 + step * 104729) % (2**31 - 1)
    if kind == "list":
        return values.tolist()
    if kind == "ndarray" or kind == "out":
        return values.astype(np.int32)
    if kind == "pinned-ndarray":  # a numpy view of pinned memory (a CpuGpuBuffer's .np): an array, so staged
        arr = values.astype(np.int32)
        return torch.from_numpy(arr).pin_memory().numpy() if target.pins_host() else arr
    t = torch.from_numpy(values.astype(np.int32))
    if kind == "pinned-tensor" and target.pins_host():
        return t.pin_memory()
    return t


def _overwrite(data: Any) -> None:
    if isinstance(data, list):
        data[:] = [-1] * len(data)
    elif isinstance(data, np.ndarray):
        data[:] = -1
    elif isinstance(data, torch.Tensor):
        data.fill_(-1)


@check("multi-stream")
def check_streams(target: Target, device: torch.device, schedule: list[tuple[str, int, int, int, bool]]) -> None:
    """multi-stream: replay ``schedule`` and check every result after synchronising.

    ``schedule``: ``(kind, n, stream, busy, overwrite)`` per call: ``kind`` one of
    :data:`MULTI_STREAM_KINDS`; ``n`` elements (int32); the call made with stream
    ``stream`` (0 the current one, 1-2 side streams) current; ``busy`` > 0 queues that many
    ms of spin work on that stream first (``busy`` 0: none); ``overwrite``: the host
    overwrites the source right after the call, which the contract allows for staged
    sources (lists, arrays, pageable tensors); a pinned tensor and a buffer's ``.cpu`` are
    never overwritten (the documented hazard). On the host, streams and spin work are
    no-ops.

    Raises:
        ContractViolation: a result differs from the source at its call.
    """
    streams = StreamSet(device, 3)
    kept: list[tuple[int, Any, torch.Tensor, np.ndarray]] = []
    for i, (kind, n, stream, busy_ms, overwrite) in enumerate(schedule):
        if busy_ms:
            streams.busy(stream, float(busy_ms))
        with streams.use(stream):
            if kind == "buffer":
                # a new buffer per call: one whose copy is queued is never refilled (the documented hazard)
                buf = make_buffer(
                    target,
                    {"size": (n,), "dtype": torch.int32, "pin_memory": target.pins_host(), "with_numpy": True},
                    device,
                )
                buf.np[:] = _source("ndarray", n, i, target, device)
                buf.copy_to_gpu(n)
                kept.append((i, buf, buf.gpu[:n], buf.np.copy()))
                continue
            data = _source(kind, n, i, target, device)
            expected = np.asarray(data.numpy() if isinstance(data, torch.Tensor) else data, dtype=np.int32).copy()
            if kind == "out":
                out = torch.full((n,), -7, dtype=torch.int32, device=device)
                result = target.call(data, {"out": out, "dtype": torch.int32})
            else:
                result = target.call(data, {"device": device, "dtype": torch.int32})
            if result.device.type == "cpu" and not target.host_copy:
                result = result.clone()  # a host path standing in for a device copy may return its input
            if overwrite and not (isinstance(data, torch.Tensor) and data.is_pinned()):
                _overwrite(data)
            kept.append((i, data, result, expected))
    streams.synchronize()
    for i, _, result, expected in kept:
        got = result.cpu().numpy()
        if not np.array_equal(got, expected):
            bad = np.flatnonzero(got != expected)
            kind, n, stream, busy_ms, overwrite = schedule[i]
            fail(
                "multi-stream",
                f"call {i} of {len(schedule)} ({kind} of {n} on stream {stream}{f', behind {busy_ms} ms' if busy_ms else ''}{', source overwritten after the call' if overwrite else ''}): {len(bad)} of {n} elements differ, first at {int(bad[0])}",
                got=int(got[bad[0]]),
                expected=int(expected[bad[0]]),
                call=f"schedule {schedule!r}",
            )


def _schedules(target: Target, device: torch.device) -> st.SearchStrategy[list[tuple[str, int, int, int, bool]]]:
    kinds = [k for k in MULTI_STREAM_KINDS if k.removeprefix("pinned-") in target.inputs]
    kinds += [
        k
        for k in ("out", "buffer")
        if k in target.capabilities and "ndarray" in target.inputs or k == "buffer" and k in target.capabilities
    ]
    kinds = sorted(set(kinds), key=MULTI_STREAM_KINDS.index)
    if not kinds:
        raise NotApplicable(f"contract 'multi-stream': target {target.name!r} takes none of {MULTI_STREAM_KINDS}")
    one = st.tuples(
        st.sampled_from(kinds),
        st.sampled_from(MULTI_STREAM_SIZES),
        st.integers(0, 2),
        st.sampled_from((0, 0, 5, 20)) if device.type == "cuda" else st.just(0),
        st.booleans(),
    )
    return st.lists(one, min_size=1, max_size=8)


@prop("multi-stream", cap=30)
def prop_multi_stream(target: Target, device: torch.device, **overrides: Any) -> None:
    """multi-stream: drawn schedules of calls over three streams, some streams busy, some sources overwritten after the call."""
    require_device(target, device, "multi-stream")
    schedules = _schedules(target, device)

    def body(data: st.DataObject) -> None:
        check_streams(target, device, data.draw(schedules, label="schedule"))

    run_given(body, overrides)


@prop("multi-stream", table=True)
def prop_multi_stream_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """multi-stream: fixed interleavings (a table): a call on a busy side stream, then calls on an idle stream reusing staging memory."""
    require_device(target, device, "multi-stream")
    del overrides
    kinds: list[str] = [k for k in ("list", "ndarray", "tensor") if k in target.inputs]
    if not kinds:
        raise NotApplicable(f"contract 'multi-stream': target {target.name!r} takes none of list, ndarray, tensor")
    slow = 20 if device.type == "cuda" else 0
    if "ndarray" in kinds:
        kinds.append("pinned-ndarray")
    for kind in kinds:
        for n in (17, 4097, 262145):
            check_streams(
                target,
                device,
                [(kind, n, 1, slow, True), (kind, n, 0, 0, True), (kind, n, 2, 0, True), (kind, n, 1, 0, True)],
            )
            check_streams(
                target,
                device,
                [(kind, n, 0, slow, True), (kind, n, 1, 0, True), (kind, n, 1, slow, True), (kind, n, 0, 0, True)],
            )
        # one small call waits behind a busy stream while 161 small calls on an idle one cycle the small-payload
        # staging memory (16 KiB each: 2.5 MiB, past a pool chunk of 1 MiB twice): a chunk shared by the two
        # streams and taken back by the idle stream's event is overwritten under the waiting copy
        for busy_stream, idle in ((1, 0), (0, 1)):
            first = [(kind, 4097, idle, 0, True), (kind, 4097, busy_stream, 5 * slow, True)]  # the idle stream opens it
            check_streams(target, device, first + [(kind, 4097, idle, 0, True)] * 160)
