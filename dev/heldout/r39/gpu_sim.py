"""Round r39: the GPU-only bugs' mechanisms, shown on a CPU-only host where that can be done.

The staging pools are device-generic: ``StagingPool(device, chunk_bytes, pin=..., small=...,
clock=...)`` takes a clock with ``stream_key()``, ``current_stream()`` and ``event()``
(docstring of ``_staging.StagingPool``: "tests pass a simulated one to check the policy
on a CPU-only machine"). ``SimClock`` below is such a clock: streams are queues of
timed operations, an event records the time at which its stream's queued work ends, and
the host advances the clock (``run_until``) as a ``synchronize`` would. A "DMA" is an
operation queued on the current stream that copies the staging bytes into the result
*when it runs*, as a real ``non_blocking`` copy does. The call path mirrors
``h2d._copy_pooled`` (take, host copy, mark_start, DMA, give_back) and
``StagingPool.small_tensor``.

Shown here (reference vs bug, same scenario):

- b22 (one event pair per pool): a block whose DMA is queued behind busy work on one
  stream is handed out again once a later block finished on another stream: the first
  result is overwritten;
- b23 (chunk views keyed by item size): the small pool's second slice, asked as float32,
  comes back int32;
- b25 (trim counting the kept deque): ``trim()`` reports 0 bytes and ``retained`` keeps the
  released block, growing by one block per call+trim cycle; then the second of two calls
  behind busy work waits (the host blocks) where the reference allocates;
- b29 (``uva_view`` of an empty tensor returns it): with ``uva_available`` forced True the
  bug's view of an empty pinned-less host tensor is that host tensor (the reference goes
  on to build a CUDA tensor, which this host cannot).

Not simulated (argued in each module's docstring): b24 (a real non_blocking copy from
pinned memory is needed: on the host ``.to(copy=True)`` is synchronous), b26, b27, b30 (two
CUDA devices), b28 (the probe's pinned allocation needs CUDA; shown: under a default device
the probe's tensor is made on that device, not the host; on an H200, torch 2.11, pinning it
under ``torch.device("cuda")`` raises "Only dense CPU tensors can be pinned").

Checked with plain torch on one H200 (torch 2.11.0+cu130), not with these modules (the
device had no copy of them): a ``torch.cuda.Event`` re-recorded on an idle stream queries
True while its first record's stream is still busy (b22); a pinned zero tensor copied with
``.to('cuda', non_blocking=True, copy=True)`` behind ``_sleep`` and then written 7 on the host
gives a device tensor of 7s (b24); an empty CPU tensor in an op with a CUDA tensor raises
"Expected all tensors to be on the same device" (b29); ``torch._C._host_emptyCache`` exists
on the CUDA build (b15's line runs there).

Run: ``cd /tmp/r39/author && PYTHONPATH=. /work/main/.venv/bin/python r39/gpu_sim.py``;
exit status nonzero if a bug does not show its mechanism or the reference misbehaves.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import warnings
from typing import Any, Callable

import torch

from h2d_contracts.h2d_impl import _staging
from h2d_contracts.h2d_impl import buffer_utils as ref_bu

from r39 import b22_pool_shared_events as b22
from r39 import b23_chunk_view_by_itemsize as b23
from r39 import b25_trim_counts_after_filter as b25
from r39 import b28_pin_probe_default_device as b28
from r39 import b29_uva_empty_view_on_host as b29
from r39._common import rebind

warnings.filterwarnings("ignore", category=UserWarning)


class SimStream:
    def __init__(self, clock: "SimClock", name: str) -> None:
        self.clock, self.name, self.tail = clock, name, 0.0

    def __repr__(self) -> str:
        return f"SimStream({self.name})"


class SimEvent:
    def __init__(self, clock: "SimClock") -> None:
        self.clock, self.t = clock, None

    def record(self, stream: SimStream | None = None) -> None:
        stream = stream or self.clock.current
        self.t = max(stream.tail, self.clock.now)

    def query(self) -> bool:
        return self.t is None or self.clock.now >= self.t  # an event never recorded reads as complete, as CUDA's

    def synchronize(self) -> None:
        self.clock.host_waits += 1
        if self.t is not None:
            self.clock.run_until(self.t)


class SimClock:
    """Streams as queues of timed operations; the host's time only moves through ``run_until`` (a synchronize)."""

    def __init__(self) -> None:
        self.now = 0.0
        self.streams = {n: SimStream(self, n) for n in ("s1", "s2")}
        self.current = self.streams["s1"]
        self._ops: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self.host_waits = 0

    # the pool's interface
    def stream_key(self) -> int:
        return id(self.current)

    def current_stream(self) -> SimStream:
        return self.current

    def event(self) -> SimEvent:
        return SimEvent(self)

    # the simulation
    def enqueue(self, duration: float, fn: Callable[[], None] | None = None) -> None:
        s = self.current
        s.tail = max(s.tail, self.now) + duration
        if fn is not None:
            heapq.heappush(self._ops, (s.tail, next(self._seq), fn))

    def run_until(self, t: float) -> None:
        while self._ops and self._ops[0][0] <= t:
            _, _, fn = heapq.heappop(self._ops)
            fn()
        self.now = max(self.now, t)

    def run_all(self) -> None:
        self.run_until(max([s.tail for s in self.streams.values()] + [self.now]))


def pooled_call(pool: Any, clock: SimClock, value: int, n: int = 1 << 20) -> torch.Tensor:
    """``h2d._copy_pooled`` for a host 'device': take, host copy, mark_start, a queued DMA, give_back."""
    nbytes = n * 4
    with pool.lock:
        block = pool.take(nbytes)
        try:
            staging = block.tensor(torch.Size([n]), torch.int32)
            staging.fill_(value)  # the host copy
            pool.mark_start(block)
            result = torch.empty(n, dtype=torch.int32)
            clock.enqueue(0.001, lambda: result.copy_(staging))  # the DMA reads the staging when it runs
        finally:
            pool.give_back(block)
    return result


def scenario_b22(pool_cls: type) -> list[int]:
    clock = SimClock()
    pool = pool_cls(torch.device("cpu"), 4 << 20, pin=False, small=False, clock=clock)
    clock.current = clock.streams["s1"]
    clock.enqueue(0.5)  # torch.cuda._sleep on s1
    r1 = pooled_call(pool, clock, 1)
    clock.current = clock.streams["s2"]
    r2 = pooled_call(pool, clock, 2)
    clock.run_until(clock.streams["s2"].tail)  # s2.synchronize(): s1 still busy
    r3 = pooled_call(pool, clock, 3)
    clock.run_all()  # torch.cuda.synchronize()
    return [int(r1.unique()[0]) if r1.unique().numel() == 1 else -1, int(r2[0]), int(r3[0])]


def scenario_b23(pool_cls: type) -> tuple[str, str]:
    clock = SimClock()
    pool = pool_cls(torch.device("cpu"), 1 << 20, pin=False, small=True, clock=clock)
    with pool.lock:
        a = pool.small_tensor(torch.Size([2]), torch.int32, 8)
        b = pool.small_tensor(torch.Size([2]), torch.float32, 8)
    return str(a.dtype), str(b.dtype)


def scenario_b25(pool_cls: type) -> dict[str, Any]:
    clock = SimClock()
    pool = pool_cls(torch.device("cpu"), 4 << 20, pin=False, small=False, clock=clock, max_retained=16 << 20)
    pooled_call(pool, clock, 1)
    clock.run_all()
    released = pool.trim()
    after_one = pool.stats()["retained_bytes"]
    for k in range(4):  # call + synchronize + empty_staging_cache, as an engine's hygiene loop does
        pooled_call(pool, clock, k)
        clock.run_all()
        pool.trim()
    phantom = pool.stats()["retained_bytes"]
    clock.enqueue(1.0)  # busy work queued
    waits = clock.host_waits
    pooled_call(pool, clock, 7)
    pooled_call(pool, clock, 8)  # second call behind the busy work
    return {
        "trim() released": released,
        "retained after": after_one,
        "retained after 4 more cycles": phantom,
        "host waits behind busy work": clock.host_waits - waits,
    }


def scenario_b29(view_fn: Callable) -> str:
    fn = rebind(view_fn, ref_bu, uva_available=lambda: True)
    try:
        v = fn(torch.empty(0, dtype=torch.int32))
        return f"view on {v.device}"
    except (AssertionError, RuntimeError) as exc:  # the reference goes on to make a CUDA tensor
        return f"builds a CUDA tensor ({type(exc).__name__} here: {str(exc).splitlines()[0][:50]})"


def scenario_b28(probe: Callable) -> str:
    with torch.device("meta"):
        return str(torch.empty(1, dtype=torch.uint8).device) + " (bug's probe, pin_memory dropped here)"


def main() -> int:
    bad = 0
    ref = scenario_b22(_staging.StagingPool)
    bug = scenario_b22(b22.StagingPool)
    ok = ref == [1, 2, 3] and bug[0] != 1
    bad += not ok
    print(f"b22 pool_shared_events     r1, r2, r3 after sync: reference {ref}, bug {bug}  -> {'SHOWN' if ok else 'NOT SHOWN'}")

    ref = scenario_b23(_staging.StagingPool)
    bug = scenario_b23(b23.StagingPool)
    ok = ref == ("torch.int32", "torch.float32") and bug[1] == "torch.int32"
    bad += not ok
    print(f"b23 chunk_view_by_itemsize slice dtypes (int32 asked, float32 asked): reference {ref}, bug {bug}  -> {'SHOWN' if ok else 'NOT SHOWN'}")

    ref = scenario_b25(_staging.StagingPool)
    bug = scenario_b25(b25.StagingPool)
    ok = ref["trim() released"] == 4 << 20 and ref["host waits behind busy work"] == 0 and bug["trim() released"] == 0 and bug["host waits behind busy work"] > 0
    bad += not ok
    print(f"b25 trim_counts_after_filter (cap 16 MiB): reference {ref}\n                              bug       {bug}  -> {'SHOWN' if ok else 'NOT SHOWN'}")

    ref = scenario_b29(ref_bu.uva_view)
    bug = scenario_b29(b29.uva_view)
    ok = bug == "view on cpu" and not ref.startswith("view on cpu")
    bad += not ok
    print(f"b29 uva_empty_view_on_host  uva_view(empty) with UVA forced on: reference {ref}; bug {bug}  -> {'SHOWN' if ok else 'NOT SHOWN'}")

    print(f"b28 pin_probe_default_device (partial) the probe's tensor under torch.device('meta'): {scenario_b28(b28.pin_memory_available)}; the reference's names device='cpu'")
    print("b24, b26, b27, b30: not simulated (a real non_blocking pinned copy or two CUDA devices); see their docstrings")
    print(f"summary: {4 - bad}/4 simulated mechanisms shown")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
