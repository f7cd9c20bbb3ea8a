"""Round r60's pool bugs (b01, b03, b04, b05, b06) on a CPU host, through the pool's own API and a simulated clock.

Not a bug module and not a contract: the staging pools run only for CUDA targets, so no call of a target on a
CPU-only host reaches them. ``StagingPool`` takes a ``clock`` (streams and events), as the reference's own tests of
the pool policy pass a simulated one; here each stream is a queue whose "busy" items (queued kernels) block until
released, copies read their staging when the stream reaches them, and an event's ``synchronize()`` on unfinished work
counts a stall (the host waiting behind the busy work) and then releases it. Each scenario is the bug module's smallest
input on the reference pool and on the bug's pool (b03's change is in ``h2d._copy_pooled``: the two orders of
``mark_start`` are driven here directly); b02's change (``h2d._fast_path``) needs pinned memory and is not simulated.

    cd dev/heldout && python -m r60.sim_pools      # asserts each outcome stated in the bug modules' docstrings
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import _staging

from . import (
    b01_small_pool_waits_on_started_chunk as b01,
)
from . import (
    b04_pool_cap_never_waits as b04,
)
from . import (
    b05_idle_stream_frees_oldest as b05,
)
from . import (
    b06_first_done_stops_at_busy_oldest as b06,
)

MiB = 1 << 20
_ids = itertools.count(100)


class Stream:
    def __init__(self) -> None:
        self.handle = next(_ids)
        self.items: list[list[Any]] = []  # [kind, done, payload]

    def enqueue(self, kind: str, payload: Any = None) -> None:
        self.items.append([kind, False, payload if payload is not None else {}])
        self.run()

    def run(self) -> None:
        for it in self.items:
            if it[1]:
                continue
            if it[0] == "busy" and not it[2].get("released"):
                return
            it[1] = True
            if it[0] == "copy":
                it[2]["read"]()  # the DMA reads its staging now

    def query(self) -> bool:
        self.run()
        return all(it[1] for it in self.items)

    def release(self) -> None:
        for it in self.items:
            if it[0] == "busy":
                it[2]["released"] = True
        self.run()


class Event:
    def __init__(self, clock: Clock) -> None:
        self.clock, self.at = clock, None

    def record(self, stream: Stream) -> None:
        stream.items.append(["mark", False, {}])
        self.at = (stream, len(stream.items))
        stream.run()

    def query(self) -> bool:
        if self.at is None:
            return True
        s, n = self.at
        s.run()
        return all(it[1] for it in s.items[:n])

    def synchronize(self) -> None:
        if not self.query():
            self.clock.stalls += 1  # the host waits until the busy work ahead has ended
            self.at[0].release()
        assert self.query()


class Clock:
    def __init__(self) -> None:
        self.cur, self.stalls = Stream(), 0

    def stream_key(self) -> int:
        return self.cur.handle

    def current_stream(self) -> Stream:
        return self.cur

    def event(self) -> Event:
        return Event(self)


def small_pool(cls: Any) -> tuple[Any, Clock]:
    c = Clock()
    pool = cls(
        torch.device("cpu"),
        _staging.SMALL_CHUNK_BYTES,
        pin=False,
        small=True,
        max_retained=_staging.SMALL_MAX_RETAINED_BYTES,
        clock=c,
    )
    return pool, c


def large_pool(cls: Any, block: int, cap: int | None = None) -> tuple[Any, Clock]:
    c = Clock()
    cap = max(_staging.MAX_RETAINED_BYTES, 2 * block) if cap is None else cap
    return cls(torch.device("cpu"), block, pin=False, small=False, max_retained=cap, clock=c), c


def small_call(pool: Any, values: Any) -> dict[str, Any]:
    """``_stage_small``'s numpy route: a slice of the open chunk written, then one DMA on the current stream."""
    res: dict[str, Any] = {}
    with pool.lock:
        arr = pool.small_array(len(values), torch.int64)
        arr[:] = values
        pool.clock.current_stream().enqueue("copy", {"read": lambda: res.__setitem__("v", arr.tolist())})
    return res


def large_call(pool: Any, nbytes: int, fill: int, *, start_at_take: bool = False, between: Any = None) -> dict:
    """``_copy_pooled``: take, host copy, ``mark_start``, DMA, give back (``start_at_take``: b03's order)."""
    res: dict[str, Any] = {}
    with pool.lock:
        block = pool.take(nbytes)
        try:
            if start_at_take:
                pool.mark_start(block)
            staging = block.tensor(torch.Size([nbytes]), torch.uint8)
            staging.fill_(fill)  # the host copy
            if between is not None:
                between()  # another thread queues work on the stream during the host copy
            if not start_at_take:
                pool.mark_start(block)
            pool.clock.current_stream().enqueue("copy", {"read": lambda: res.__setitem__("v", int(staging[0]))})
        finally:
            pool.give_back(block)
    return res


REF = _staging.StagingPool


def b01_case(cls: Any) -> tuple[int, int, dict]:
    pool, c = small_pool(cls)
    small_call(pool, [0])  # the first chunk opened on an idle stream: its start completes
    c.cur.enqueue("busy")
    for i in range(12):
        small_call(pool, np.zeros(32768, np.int64))  # 256 KiB
        if c.stalls:
            return i + 1, c.stalls, pool.stats()
    return 0, c.stalls, pool.stats()


def b03_case(start_at_take: bool) -> tuple[int, dict]:
    pool, c = large_pool(REF, 4 * MiB)
    large_call(pool, 4 * MiB, 1, start_at_take=start_at_take, between=lambda: c.cur.enqueue("busy"))
    for _ in range(3):
        large_call(pool, 4 * MiB, 1, start_at_take=start_at_take)
    return c.stalls, pool.stats()


def b04_case(cls: Any) -> tuple[dict, dict]:
    pool, c = large_pool(cls, 16 * MiB, cap=64 * MiB)  # 256 MiB blocks and a 1 GiB cap, scaled down: four blocks
    c.cur.enqueue("busy")
    for i in range(5):
        large_call(pool, 16 * MiB, i)
    small, cs = small_pool(cls)
    small_call(small, [0])
    cs.cur.enqueue("busy")
    for _ in range(256):
        small_call(small, np.zeros(32768, np.int64))
    return pool.stats(), small.stats()


def b05_case(cls: Any) -> tuple[list, int, int]:
    pool, c = small_pool(cls)
    s1, s2 = Stream(), Stream()
    c.cur = s1
    s1.enqueue("busy")
    a = small_call(pool, [1, 2, 3])
    c.cur = s2
    small_call(pool, [4, 5, 6])
    s1.release()
    large, cl = large_pool(cls, 4 * MiB)
    l1, l2 = Stream(), Stream()
    cl.cur = l1
    l1.enqueue("busy")
    la = large_call(large, 4 * MiB, 1)
    cl.cur = l2
    large_call(large, 4 * MiB, 2)
    l1.release()
    return a["v"], la["v"], pool.stats()["allocations"]


def b06_case(cls: Any) -> tuple[dict, int, int]:
    pool, c = large_pool(cls, 4 * MiB, cap=64 * MiB)  # the 1 GiB cap scaled down (host memory of the simulation)
    s1, s2 = Stream(), Stream()
    c.cur = s1
    s1.enqueue("busy")
    large_call(pool, 4 * MiB, 1)
    c.cur = s2
    for _ in range(4):
        large_call(pool, 4 * MiB, 2)
    four = pool.stats()
    n = 0
    while not c.stalls and n < 400:
        large_call(pool, 4 * MiB, 2)
        n += 1
    return four, pool.stats()["retained_bytes"], c.stalls


def main() -> None:
    ref, bug = b01_case(REF), b01_case(b01.StagingPool)
    print("b01 reference:", ref, "\nb01 bug:      ", bug)
    assert ref[:2] == (0, 0) and ref[2]["retained_bytes"] == 4 * MiB
    assert bug[:2] == (12, 1) and bug[2]["retained_bytes"] == 3 * MiB and bug[2]["waits"] == 1

    ref3, bug3 = b03_case(False), b03_case(True)
    print("b03 reference:", ref3, "\nb03 bug:      ", bug3)
    assert ref3[0] == 0 and ref3[1]["allocations"] == 4 and bug3[0] == 1 and bug3[1]["allocations"] == 3

    ref4, bug4 = b04_case(REF), b04_case(b04.StagingPool)
    print("b04 reference:", ref4, "\nb04 bug:      ", bug4)
    assert ref4[0]["retained_bytes"] == 64 * MiB and ref4[0]["waits"] == 1
    assert bug4[0]["retained_bytes"] == 80 * MiB and bug4[0]["waits"] == 0
    assert ref4[1]["retained_bytes"] == 64 * MiB and ref4[1]["waits"] == 1
    assert bug4[1]["retained_bytes"] == 65 * MiB and bug4[1]["waits"] == 0

    ref5, bug5 = b05_case(REF), b05_case(b05.StagingPool)
    print("b05 reference:", ref5, "\nb05 bug:      ", bug5)
    assert ref5[:2] == ([1, 2, 3], 1) and bug5[:2] == ([4, 5, 6], 2)

    ref6, bug6 = b06_case(REF), b06_case(b06.StagingPool)
    print("b06 reference:", ref6, "\nb06 bug:      ", bug6)
    assert ref6[0]["retained_bytes"] == 8 * MiB and ref6[0]["allocations"] == 2 and ref6[2] == 0
    assert bug6[0]["retained_bytes"] == 20 * MiB and bug6[0]["allocations"] == 5
    assert bug6[1] == 64 * MiB and bug6[2] == 1
    print("all pool outcomes as stated")


if __name__ == "__main__":
    main()
