"""The staging pool's policy (h2d_impl/_staging.py), checked on the CPU with a simulated clock.

Which chunk a call may write is the whole safety argument of the pool: a chunk whose
queued copy has not run must never be handed out again, or the device reads the next
call's bytes (wrong tokens). On a GPU the snapshot and back-to-back contracts catch that
from outside; here :class:`SimStream` (a FIFO of work items that complete only when the
test says so) and :class:`SimEvent` stand in for CUDA's streams and events, so every
branch of the policy (reuse, wait for our own running copy, allocate behind other work,
backpressure at the cap, the small pool's open chunk) is driven deterministically on any
machine.
"""

from __future__ import annotations

import contextlib

import pytest
import torch

from h2d_contracts.h2d_impl import _staging
from h2d_contracts.h2d_impl._staging import ALIGN, StagingPool

CPU = torch.device("cpu")


class SimStream:
    """A stream: work is enqueued in order and completes, in order, when :meth:`run` says so."""

    def __init__(self, key: int) -> None:
        self.key = key
        self.enqueued = 0
        self.completed = 0

    def enqueue(self) -> int:
        self.enqueued += 1
        return self.enqueued

    def run(self, upto: int | None = None) -> None:
        self.completed = self.enqueued if upto is None else max(self.completed, upto)


class SimEvent:
    def __init__(self, clock: SimClock) -> None:
        self.clock = clock
        self.stream: SimStream | None = None
        self.pos = 0

    def record(self, stream: SimStream) -> None:
        self.stream, self.pos = stream, stream.enqueue()

    def query(self) -> bool:
        return self.stream is None or self.stream.completed >= self.pos

    def synchronize(self) -> None:
        self.clock.waits.append(self.pos)
        if self.stream is not None:
            self.stream.run(self.pos)


class SimClock:
    """Streams and events for :class:`StagingPool`; ``current`` is the current stream."""

    def __init__(self) -> None:
        self.current = SimStream(1)
        self.waits: list[int] = []

    def stream_key(self) -> int:
        return self.current.key

    def current_stream(self) -> SimStream:
        return self.current

    def event(self) -> SimEvent:
        return SimEvent(self)


def _pool(*, small: bool = False, chunk: int = 64, cap: int = 1 << 20) -> tuple[StagingPool, SimClock]:
    clock = SimClock()
    return StagingPool(CPU, chunk, pin=False, small=small, max_retained=cap, clock=clock), clock


def _use(pool: StagingPool, clock: SimClock):
    """Take a chunk, mark its start, queue one copy reading it, give it back (what ``_copy_pooled`` does)."""
    chunk = pool.take()
    pool.mark_start(chunk)
    clock.current.enqueue()  # the DMA reading the chunk
    pool.give_back(chunk)
    return chunk


def test_a_queued_chunk_is_not_reused_behind_other_work():
    """Behind a busy stream (work ahead of our copy), a new chunk is allocated: no wait, no reuse."""
    pool, clock = _pool()
    clock.current.enqueue()  # a long kernel ahead of everything
    a = _use(pool, clock)
    b = pool.take()
    assert b is not a and pool.allocations == 2 and not clock.waits


def test_a_finished_chunk_is_reused():
    pool, clock = _pool()
    a = _use(pool, clock)
    clock.current.run()
    assert pool.take() is a and pool.allocations == 1 and not clock.waits


def test_it_grows_to_hold_a_whole_payload():
    """A call of ``want`` bytes grows the pool to ``want`` even where a finished chunk could be reused (so the next call of
    that size behind a busy stream finds all its chunks), but never past the cap."""
    pool, clock = _pool(cap=192)
    a = _use(pool, clock)
    clock.current.run()
    assert pool.take(want=128) is not a and pool.allocations == 2
    assert pool.take(want=1 << 20) is not a and pool.allocations == 3  # up to the cap (192 = 3 chunks)
    assert pool.take(want=1 << 20) is a and pool.allocations == 3  # at the cap: the finished chunk


def test_below_the_depth_it_allocates_rather_than_waits():
    """Fewer than MIN_DEPTH_BYTES (or the call's payload) retained: allocate, even when the oldest copy is running."""
    pool, clock = _pool()
    a = _use(pool, clock)
    clock.current.run(a.start.pos)
    assert pool.take() is not a and pool.allocations == 2 and not clock.waits
    pool2, clock2 = _pool(cap=1 << 20)
    b = _use(pool2, clock2)
    clock2.current.run(b.start.pos)
    assert pool2.take(want=1 << 20) is not b  # the call's own payload is a budget too


def test_waits_only_for_its_own_running_copy(monkeypatch):
    """Past the depth, the oldest chunk's copy has started (the work before it ran): wait for it (one chunk's DMA), do not allocate."""
    monkeypatch.setattr(_staging, "MIN_DEPTH_BYTES", 64)
    pool, clock = _pool()
    a = _use(pool, clock)
    _use(pool, clock)
    _use(pool, clock)  # three blocks in flight: the depth of blocks this small (two and the spare) is reached
    clock.current.run(a.start.pos)  # the stream reached our copy; it is running
    assert pool.take() is a and pool.allocations == 3
    assert len(clock.waits) == 1


def test_small_pool_never_waits_below_the_cap(monkeypatch):
    """A small pool's chunk spans other work between its copies: its start says nothing; allocate instead of waiting."""
    monkeypatch.setattr(_staging, "MIN_DEPTH_BYTES", 64)
    pool, clock = _pool(small=True)
    a = _use(pool, clock)
    clock.current.run(a.start.pos)
    assert pool.take() is not a and pool.allocations == 2 and not clock.waits


@pytest.mark.parametrize("small", [False, True])
def test_backpressure_at_the_cap(small):
    """With max_retained bytes of chunks all queued behind other work, the next take waits for the oldest."""
    pool, clock = _pool(small=small, chunk=64, cap=128)
    clock.current.enqueue()
    a = _use(pool, clock)
    _use(pool, clock)
    assert pool.retained == 128
    assert pool.take() is a and pool.allocations == 2 and len(clock.waits) == 1


def test_small_slices_are_disjoint_aligned_and_close_on_stream_change():
    pool, clock = _pool(small=True, chunk=512)
    clock.current.enqueue()  # keep every chunk queued
    spans = []
    for nbytes in (1, 7, 64, 65, 3):
        view = pool.small_tensor(torch.Size([nbytes]), torch.uint8, nbytes)
        assert view.numel() == nbytes and (view.storage_offset() % ALIGN == 0)
        spans.append((view.untyped_storage().data_ptr(), view.storage_offset(), nbytes))
    assert len({s[0] for s in spans}) == 1  # one chunk so far
    ends = sorted((o, o + n) for _, o, n in spans)
    assert all(e0 <= s1 for (_, e0), (s1, _) in zip(ends, ends[1:])), ends  # disjoint
    first = pool.open
    clock.current = SimStream(2)  # another current stream: the open chunk is closed on its own stream
    pool.small_tensor(torch.Size([8]), torch.uint8, 8)
    assert pool.open is not first and first.done.stream.key == 1 and not first.done.query()
    # a full chunk is closed too
    second = pool.open
    pool.small_tensor(torch.Size([500]), torch.uint8, 500)  # does not fit after the first slice
    assert pool.open is not second


def test_a_small_slice_is_never_handed_out_twice_while_queued():
    """Back to back behind a busy stream: every slice is new memory until its chunk's copies ran."""
    pool, clock = _pool(small=True, chunk=128)
    clock.current.enqueue()
    seen = set()
    for _ in range(40):
        v = pool.small_tensor(torch.Size([6]), torch.float32, 24)
        key = (v.untyped_storage().data_ptr() + 4 * v.storage_offset(),)
        assert key not in seen
        seen.add(key)
        clock.current.enqueue()


def test_trim_drops_only_finished_chunks():
    pool, clock = _pool()
    a = _use(pool, clock)
    clock.current.enqueue()  # work ahead of b's copy: b is a new chunk
    _use(pool, clock)
    clock.current.run(a.done.pos)  # a's copy ran, b's did not
    assert pool.trim() == 64 and pool.retained == 64 and pool.stats()["in_flight_chunks"] == 1
    assert a not in list(pool._inflight)


def test_host_pool_reuses_at_once():
    """Without a clock (host target: copies are synchronous) the same chunk serves every piece."""
    pool = StagingPool(CPU, 32, pin=False, small=False)
    a = pool.take()
    pool.give_back(a)
    assert pool.take() is a and pool.allocations == 1


def test_empty_staging_cache_and_stats(monkeypatch):
    monkeypatch.setattr(_staging, "_POOLS", {})
    pool = _staging.pool_for(CPU, 32, False, small=True)
    assert _staging.pool_for(CPU, 32, False, small=True) is pool
    pool.small_tensor(torch.Size([2, 2]), torch.uint8, 4)
    assert _staging.staging_stats() == {"cpu/32/small/pageable": pool.stats()}
    assert _staging.empty_staging_cache() == 32 and pool.retained == 0


# --------------------------------------------------------------------------- the pool mutants, caught here too


def _reuses_a_queued_block(cls: type) -> bool:
    """Whether a pool of ``cls`` hands out a block whose copy is still queued behind other work."""
    clock = SimClock()
    pool = cls(CPU, 64, pin=False, small=False, max_retained=1 << 20, clock=clock)
    clock.current.enqueue()  # a long kernel ahead of everything
    a = _use(pool, clock)
    return pool.take() is a


def _hands_out_overlapping_slices(cls: type) -> bool:
    """Whether a small pool of ``cls`` gives two queued calls overlapping bytes."""
    clock = SimClock()
    pool = cls(CPU, 512, pin=False, small=True, max_retained=1 << 20, clock=clock)
    clock.current.enqueue()
    spans = []
    for _ in range(3):
        v = pool.small_tensor(torch.Size([16]), torch.uint8, 16)
        spans.append((v.untyped_storage().data_ptr(), v.storage_offset()))
        clock.current.enqueue()
    return len(set(spans)) < len(spans)


def test_reference_pools_neither_reuse_nor_overlap():
    assert not _reuses_a_queued_block(StagingPool)
    assert not _hands_out_overlapping_slices(StagingPool)


def test_the_pool_mutants_fail_these_checks():
    """The catalogue's pool mutants (contracts/mutants/gpu.py: staging_chunk_reused_before_done, staging_slice_reused_while_queued)
    are caught on the CPU by the policy checks above, as on a GPU by the back-to-back contract."""
    from h2d_contracts.contracts.mutants import gpu as M

    assert _reuses_a_queued_block(M.ChunkReusedBeforeDone)
    assert _hands_out_overlapping_slices(M.SliceNotAdvanced)


# --------------------------------------------------------------------------- found by an outside review of the pool


def test_a_failed_call_gives_its_block_back(monkeypatch):
    """An exception between take and the DMA (a wrong ``out`` here; CUDA OOM in ``.to`` on a GPU) leaves the block in the
    pool's books: in flight with its own (empty) copies, counted once, reusable (the review's bug_leak_on_exception.py)."""
    from h2d_contracts.h2d_impl import h2d as R

    clock = SimClock()
    pool = StagingPool(CPU, 1 << 20, pin=False, small=False, max_retained=4 << 20, clock=clock)
    monkeypatch.setattr(_staging, "_POOLS", {(CPU, 1 << 20, False, False): pool})
    src = torch.ones((1 << 20) // 4)
    for _ in range(3):
        with pytest.raises(RuntimeError):
            R._copy_pooled(src, torch.float32, CPU, torch.empty(7), 1 << 20, pin=False)
    assert pool.retained == (1 << 20) * len(pool._inflight) == (1 << 20) * pool.allocations
    clock.current.run()
    assert pool.trim() == pool.allocations << 20 and pool.retained == 0


def test_a_small_pool_whose_take_raises_does_not_give_its_chunk_back_twice(monkeypatch):
    """``small_tensor`` closes the open chunk before taking the next; a take that raises must not leave the closed chunk
    open (it was handed back twice and counted once: the review's bug_small_close_take_raises.py)."""
    pool, clock = _pool(small=True, chunk=64)
    clock.current.enqueue()
    pool.small_tensor(torch.Size([48]), torch.uint8, 48)
    first = pool.open

    def failing_alloc():
        raise RuntimeError("pinned allocation failed")

    monkeypatch.setattr(pool, "_alloc", failing_alloc)
    with pytest.raises(RuntimeError):
        pool.small_tensor(torch.Size([48]), torch.uint8, 48)  # does not fit: close first, take fails
    monkeypatch.undo()
    pool.small_tensor(torch.Size([48]), torch.uint8, 48)
    assert list(pool._inflight).count(first) == 1 and pool.retained == 64 * pool.allocations


def test_a_finished_chunk_behind_the_oldest_is_reused():
    """The oldest chunk waits behind a kernel on one stream, a later one (another stream) has finished: reuse the later one
    rather than allocate or wait (the review's bug_head_of_line_streams.py)."""
    pool, clock = _pool(cap=128)
    s1, s2 = clock.current, SimStream(2)
    s1.enqueue()  # a long kernel on stream 1
    a = _use(pool, clock)
    clock.current = s2
    b = _use(pool, clock)
    s2.run()
    assert pool.take() is b and not clock.waits and pool.allocations == 2 and a in pool._inflight


def test_one_stream_queries_one_event_per_take(monkeypatch):
    """Back-to-back calls on one stream: the oldest chunk unfinished means every later one on that stream is too (a
    stream's events complete in order), so a take queries one event, not SCAN; another stream's chunks are still
    queried (the head-of-line test above)."""
    monkeypatch.setattr(_staging, "MIN_DEPTH_BYTES", 1 << 20)
    pool, clock = _pool(cap=1 << 20)
    clock.current.enqueue()  # a long kernel ahead of everything
    for _ in range(6):
        _use(pool, clock)
    queries = []
    original = SimEvent.query
    monkeypatch.setattr(SimEvent, "query", lambda self: queries.append(self) or original(self))
    assert pool.take() not in pool._inflight and pool.allocations == 7
    assert len(queries) == 1
    clock.current = SimStream(2)
    b = _use(pool, clock)
    clock.current.run()
    queries.clear()
    assert pool.take() is b
    assert len(queries) == 2  # stream 1's oldest, then stream 2's chunk (finished: reused)


def test_per_thread_default_stream_is_one_stream_per_thread(monkeypatch):
    """cudaStreamPerThread (handle 2) is a different stream in each thread: a finished chunk copied on thread B's is reused
    while thread A's waits behind a kernel (the fast-paths review's repro_shared_key.py: keyed by handle alone, the take
    skipped B's chunk and waited for A's kernel)."""
    import threading

    monkeypatch.setattr(_staging, "MIN_DEPTH_BYTES", 64)
    pool, clock = _pool(cap=128)
    a_stream = SimStream(_staging._PER_THREAD_STREAM)
    clock.current = a_stream
    a_stream.enqueue()  # a long kernel on thread A's stream
    a = _use(pool, clock)
    b_stream = SimStream(_staging._PER_THREAD_STREAM)
    got = []

    def thread_b():
        clock.current = b_stream
        b = _use(pool, clock)
        b_stream.run()
        got.append((pool.take(), b))

    worker = threading.Thread(target=thread_b)
    worker.start()
    worker.join()
    taken, b = got[0]
    assert taken is b and not clock.waits and pool.allocations == 2 and a in pool._inflight


def test_start_is_marked_right_before_the_copy():
    """``take`` records nothing; ``mark_start`` (right before the DMA) records the start, so work another thread queues
    during the host copy lies before it, not between start and done (the review's bug_start_event_too_early.py)."""
    pool, clock = _pool()
    chunk = pool.take()
    assert chunk.start.pos == 0 and clock.current.enqueued == 0
    clock.current.enqueue()  # another thread's kernel, queued while the host copy runs
    pool.mark_start(chunk)
    dma = clock.current.enqueue()
    pool.give_back(chunk)
    assert chunk.start.pos == dma - 1 and chunk.done.pos == dma + 1


def _waits_for_a_kernel_queued_during_the_host_copy(cls: type, finished: int, chunk: int, calls: int) -> bool:
    """Two threads on one stream (an outside round's GPU bug, r60 b03), as a row of the GPU check
    (``check_other_thread_work_never_waited``): the pool holds ``finished`` finished blocks of ``chunk`` bytes (two
    where the check's warm-up calls queue behind spin work, one where they run back to back on an idle stream); a
    call takes one, another thread queues a long kernel during its host copy, the call marks its start and queues its
    DMA; then, with the stream inside that kernel, ``calls - 1`` more calls, past the pool's depth (two blocks of
    64 MiB, three of 16 MiB: ``_staging.AHEAD_BYTES``), must allocate (their oldest block's copy is still behind the
    kernel), never wait for the kernel. Whether any call waited."""
    clock = SimClock()
    pool = cls(CPU, chunk, pin=False, small=False, max_retained=64 * chunk, clock=clock)
    warm = [pool.take() for _ in range(finished)]
    for block in warm:
        pool.mark_start(block)
        clock.current.enqueue()
        pool.give_back(block)
    clock.current.run()
    first = pool.take()
    kernel = clock.current.enqueue()  # the other thread's kernel, queued during the first call's host copy
    pool.mark_start(first)
    clock.current.enqueue()  # the first call's DMA
    pool.give_back(first)
    clock.current.run(kernel - 1)  # the stream is running the kernel
    for _ in range(calls - 1):
        _use(pool, clock)
    return bool(clock.waits)


@pytest.mark.parametrize("finished", [1, 2])
@pytest.mark.parametrize(("chunk", "calls"), [(64 << 20, 6), (16 << 20, 8)])
def test_another_threads_kernel_queued_during_the_host_copy_is_not_waited_for(finished, chunk, calls):
    """The reference allocates past its depth; the catalogue's mutant that records the start at the take
    (contracts/mutants/r60_kinds.py, pool_start_marked_at_take; on a GPU prop_other_thread_work_never_waited kills it)
    waits for the kernel within each of the GPU check's two rows (6 calls of 64 MiB, 8 of 16 MiB)."""
    from h2d_contracts.contracts.mutants import r60_kinds as M

    assert not _waits_for_a_kernel_queued_during_the_host_copy(StagingPool, finished, chunk, calls)
    assert _waits_for_a_kernel_queued_during_the_host_copy(M.StartAtTake, finished, chunk, calls)
    # and not before the depth: the GPU check needs a row longer than the depth (three calls of 16 MiB allocate)
    assert not _waits_for_a_kernel_queued_during_the_host_copy(
        M.StartAtTake, finished, chunk, 3 if chunk == 16 << 20 else 2
    )


def test_a_host_target_result_is_not_the_pooled_staging():
    """For a host target (the call-trace path) ``.to`` would return the staging itself; the next call overwrites it."""
    from h2d_contracts.h2d_impl import h2d as R

    first = R._to_device([1.0], torch.tensor([1.0]), torch.float32, CPU, None, pin=False)
    R._to_device([2.0], torch.tensor([2.0]), torch.float32, CPU, None, pin=False)
    big = torch.ones(1 << 17)
    r = R._to_device(big, big, torch.float32, CPU, None, pin=False, small_max=0)
    R._to_device(big * 3, big * 3, torch.float32, CPU, None, pin=False, small_max=0)
    assert first.item() == 1.0 and bool((r == 1).all())


# --------------------------------------------------------------------------- boundaries and counters (mutmut's survivors)


def _in_flight(pool, clock, k: int, *, behind_other_work: bool, started: bool):
    """Put ``k`` chunks in flight; the first one's copy queued behind other work, or started (running), or neither."""
    if behind_other_work:
        clock.current.enqueue()
    chunks = [_use(pool, clock) for _ in range(k)]
    if started:
        clock.current.run(chunks[0].start.pos)
    return chunks


def test_the_depth_budget_is_inclusive_and_counts_three_small_blocks(monkeypatch):
    """Blocks of at most SPARE_BLOCK_MAX_BYTES: growing to exactly max(MIN_DEPTH_BYTES, three blocks) allocates; one
    block more waits for the running oldest (a wait of at most one block's DMA, not a cudaHostAlloc: dev/pool_sim.py)."""
    assert (_staging.MIN_DEPTH_BLOCKS, _staging.SPARE_BLOCK_MAX_BYTES) == (2, 4 << 20)
    monkeypatch.setattr(_staging, "MIN_DEPTH_BYTES", 64)
    pool, clock = _pool(chunk=64)
    _in_flight(pool, clock, 2, behind_other_work=False, started=True)
    pool.take()  # grow to 192 == 3 blocks: allocate, no wait
    assert pool.allocations == 3 and pool.waits == 0 and not clock.waits
    pool1, clock1 = _pool(chunk=64)
    _in_flight(pool1, clock1, 3, behind_other_work=False, started=True)
    pool1.take()  # 256 > 3 blocks and the oldest is running: wait
    assert pool1.allocations == 3 and pool1.waits == 1 == len(clock1.waits)
    monkeypatch.setattr(_staging, "MIN_DEPTH_BYTES", 256)
    pool2, clock2 = _pool(chunk=64)
    _in_flight(pool2, clock2, 3, behind_other_work=False, started=True)
    pool2.take()  # grow to 256 == MIN_DEPTH_BYTES: allocate
    assert pool2.allocations == 4 and pool2.waits == 0
    pool2.take()  # 320 > 256 and the oldest is running: wait
    assert pool2.allocations == 4 and pool2.waits == 1 == len(clock2.waits)


@pytest.mark.parametrize(
    ("chunk", "depth"),
    [
        ((4 << 20) - 64, 3),
        (4 << 20, 12),
        (16 << 20, 3),
        ((24 << 20) - 64, 3),
        (24 << 20, 2),
        ((24 << 20) + 64, 2),
        (64 << 20, 2),
    ],
)
def test_blocks_from_4_mib_keep_48_mib_ahead(chunk, depth):
    """From AHEAD_MIN_BLOCK_BYTES a pool holds at least AHEAD_BYTES of blocks before it waits for its running oldest
    (the bytes rounded up to whole blocks; below, three blocks of at most 4 MiB, two above): with ``depth - 1`` in
    flight a take allocates, with ``depth`` it waits (a block just written DMAs at half the rate: _staging). Past
    half of AHEAD_BYTES the depth is two blocks: a third is not pinned while the oldest copy runs (its
    cudaHostAlloc, about 17 ms for 64 MiB, cost more than the wait)."""
    assert (_staging.AHEAD_BYTES, _staging.AHEAD_MIN_BLOCK_BYTES) == (48 << 20, 4 << 20)
    pool, clock = _pool(chunk=chunk, cap=1 << 30)
    assert pool._depth_blocks() == depth
    _in_flight(pool, clock, depth - 1, behind_other_work=False, started=True)
    pool.take()
    assert pool.allocations == depth and pool.waits == 0 and not clock.waits
    pool.take()
    assert pool.allocations == depth and pool.waits == 1 == len(clock.waits)


def test_a_small_pool_past_the_depth_still_allocates_for_a_running_oldest(monkeypatch):
    monkeypatch.setattr(_staging, "MIN_DEPTH_BYTES", 64)
    pool, clock = _pool(small=True, chunk=64)
    _in_flight(pool, clock, 3, behind_other_work=False, started=True)
    pool.take()
    assert pool.allocations == 4 and pool.waits == 0 and not clock.waits


def test_the_cap_is_inclusive(monkeypatch):
    """Behind other work a pool allocates up to exactly its cap; one block past it waits (and counts the wait)."""
    monkeypatch.setattr(_staging, "MIN_DEPTH_BYTES", 64)
    pool, clock = _pool(chunk=64, cap=192)
    _in_flight(pool, clock, 2, behind_other_work=True, started=False)
    pool.take()  # 192 == cap: allocate
    assert pool.allocations == 3 and pool.waits == 0
    pool.take()
    assert pool.allocations == 3 and pool.waits == 1 == len(clock.waits)
    pool.take()  # the next oldest: a second wait, counted
    assert pool.allocations == 3 and pool.waits == 2 == len(clock.waits)


def test_a_take_that_fails_leaves_a_usable_pool():
    """A take whose stream lookup raises keeps its chunk (free, counted); the next take returns a real chunk."""
    pool, clock = _pool(chunk=64)
    real = clock.current_stream
    calls = {"n": 0}

    def flaky():
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("no current stream")
        return real()

    clock.current_stream = flaky
    with pytest.raises(RuntimeError):
        pool.take()
    chunk = pool.take()
    assert isinstance(chunk, _staging._Chunk) and pool.allocations == 1 and pool.retained == 64


def test_a_chunk_given_back_unmarked_has_start_at_done():
    """Given back without mark_start (the caller failed before any copy): its start is recorded with its done, on its
    stream, so "started" never makes a later take wait for work that is not its copy."""
    pool, clock = _pool(chunk=64)
    a = _use(pool, clock)  # marked and used once
    clock.current.run()
    b = pool.take()
    assert b is a and b.marked is False
    clock.current.enqueue()  # other work queued after the take
    pool.give_back(b)
    assert b.start.stream is clock.current and b.done.pos == b.start.pos + 1


def test_small_slices_pack_tightly_and_an_exact_fit_stays_in_the_chunk():
    pool, clock = _pool(small=True, chunk=128)
    clock.current.enqueue()
    a = pool.small_tensor(torch.Size([63]), torch.uint8, 63)
    b = pool.small_tensor(torch.Size([64]), torch.uint8, 64)  # 64 + 64 == 128: fits exactly
    assert a.storage_offset() == 0 and b.storage_offset() == 64
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() and pool.allocations == 1


def test_trim_keeps_the_chunks_in_flight_and_the_pool_stays_usable():
    pool, clock = _pool(chunk=64)
    clock.current.enqueue()
    a, b = _use(pool, clock), _use(pool, clock)
    pool.trim()
    assert list(pool._inflight) == [a, b]
    host = StagingPool(CPU, 64, pin=False, small=True)
    host.small_tensor(torch.Size([4]), torch.uint8, 4)
    assert host.trim() == 64 and host.retained == 0
    assert host.small_tensor(torch.Size([4]), torch.uint8, 4).numel() == 4 and host.retained == 64


def test_trim_closes_the_open_chunk_on_its_stream():
    pool, clock = _pool(small=True, chunk=64)
    clock.current.enqueue()
    pool.small_tensor(torch.Size([8]), torch.uint8, 8)
    opened = pool.open
    assert pool.trim() == 0 and pool.open is None and list(pool._inflight) == [opened] and not opened.done.query()


def test_stats_report_every_counter():
    pool, clock = _pool(small=True, chunk=64, cap=1 << 20)
    clock.current.enqueue()
    pool.small_tensor(torch.Size([8]), torch.uint8, 8)
    _use(pool, clock)
    assert pool.stats() == {
        "chunk_bytes": 64,
        "retained_bytes": 128,
        "in_flight_chunks": 2,
        "free_chunks": 0,
        "allocations": 2,
        "waits": 0,
    }


def test_pool_for_caps_and_kinds(monkeypatch):
    monkeypatch.setattr(_staging, "_POOLS", {})
    small = _staging.pool_for(CPU, 64, False, small=True)
    large = _staging.pool_for(CPU, 64, True, small=False)
    huge = _staging.pool_for(CPU, 1 << 31, False, small=False)
    assert small.max_retained == _staging.SMALL_MAX_RETAINED_BYTES and not small.wait_if_started
    assert large.max_retained == _staging.MAX_RETAINED_BYTES and large.wait_if_started
    assert huge.max_retained == 2 << 31  # two blocks of a size class larger than the cap
    assert _staging.pool_for(CPU, 64, True, small=False) is large
    assert set(_staging.staging_stats()) == {"cpu/64/small/pageable", "cpu/64", f"cpu/{1 << 31}/pageable"}


def test_empty_staging_cache_sums_every_pool(monkeypatch):
    monkeypatch.setattr(_staging, "_POOLS", {})
    for chunk in (32, 64):
        _staging.pool_for(CPU, chunk, False, small=True).small_tensor(torch.Size([4]), torch.uint8, 4)
    assert _staging.empty_staging_cache() == 96


def test_odd_chunk_sizes_view_whole_elements():
    """A chunk whose size is not a multiple of the itemsize (tests use such sizes) is viewed up to its last whole element."""
    chunk = _staging._Chunk(torch.zeros(65, dtype=torch.uint8))
    t = chunk.tensor(torch.Size([2, 16]), torch.int16)
    assert t.shape == (2, 16) and t.untyped_storage().data_ptr() == chunk.block.untyped_storage().data_ptr()


def test_pooled_staging_made_under_inference_mode_is_written_outside_it():
    """A pool's block or dtype view first made under ``torch.inference_mode()`` is kept for later calls: it must be a
    normal tensor, else the next call outside the mode raises "Inplace update to inference tensor outside
    InferenceMode" (the contracts' calling contexts found it on an H200). Driven through the device half with the
    host as the target (no CUDA needed)."""
    from h2d_contracts.h2d_impl import _staging, h2d

    _staging.empty_staging_cache()
    cpu = torch.device("cpu")
    for dtype in (torch.float32, torch.int16):
        source = torch.arange(6, dtype=dtype)
        with torch.inference_mode():
            first = h2d._to_device(source, source, dtype, cpu, None, pin=False)
        second = h2d._to_device(source + 1, source + 1, dtype, cpu, None, pin=False)
        assert torch.equal(first, source) and torch.equal(second, source + 1)
        big = torch.arange(1 << 16, dtype=dtype)  # past the small pool: a block of a size class
        with torch.inference_mode():
            h2d._to_device(big, big, dtype, cpu, None, pin=False)
        assert torch.equal(h2d._to_device(big, big, dtype, cpu, None, pin=False), big)


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference_mode"])
def test_kept_staging_is_made_with_grad_on_and_inference_off_whatever_the_callers_mode(mode):
    """``_staging.long_lived()`` (the context pooled blocks, kept views and buffers' tensors are made in) turns grad mode on and
    inference mode off, as ``torch.inference_mode(False)`` does, in every calling mode, entering that context only
    where the caller's mode differs, and leaves the caller's mode as it found it."""
    outer = {"grad": contextlib.nullcontext, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}[mode]
    with outer():
        before = (torch.is_grad_enabled(), torch.is_inference_mode_enabled())
        with _staging.long_lived():
            assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
            made = torch.zeros(8, dtype=torch.uint8).view(torch.int16)
        assert (torch.is_grad_enabled(), torch.is_inference_mode_enabled()) == before
    assert not made.is_inference()
    made.copy_(torch.arange(4, dtype=torch.int16))  # a normal tensor: written outside any mode


def test_a_block_taken_whole_again_keeps_its_view_only_for_the_same_shape_and_dtype():
    """``_Chunk.tensor(shape, dtype)`` of a block taken whole returns its last view again for the same shape and dtype
    (one view object, no new ``as_strided``), a new one for another shape or dtype, and always a contiguous view of
    the block's first bytes; a view first made inside ``torch.inference_mode()`` is a normal tensor, writable after
    leaving it (a pooled block outlives the call)."""
    chunk = _staging._Chunk(torch.zeros(64, dtype=torch.uint8))
    a = chunk.tensor(torch.Size([4, 2]), torch.int32)
    assert chunk.tensor(torch.Size([4, 2]), torch.int32) is a
    b = chunk.tensor(torch.Size([8]), torch.int32)
    c = chunk.tensor(torch.Size([4, 2]), torch.float32)
    assert b is not a and c is not a and chunk.tensor(torch.Size([4, 2]), torch.int32) is not a
    for view, shape, dtype in ((b, (8,), torch.int32), (c, (4, 2), torch.float32)):
        assert view.shape == shape and view.dtype == dtype and view.is_contiguous()
        assert view.data_ptr() == chunk.block.data_ptr()
    b.copy_(torch.arange(8, dtype=torch.int32))
    assert chunk.block[:32].view(torch.int32).tolist() == list(range(8))
    fresh = _staging._Chunk(torch.zeros(64, dtype=torch.uint8))
    with torch.inference_mode():
        made = fresh.tensor(torch.Size([2]), torch.int64)
    assert not made.is_inference()
    fresh.tensor(torch.Size([2]), torch.int64).copy_(torch.tensor([5, 6]))  # outside the mode: no RuntimeError
    assert fresh.block[:16].view(torch.int64).tolist() == [5, 6]


class _PerThreadDefault:
    """cudaStreamPerThread as ``torch.cuda.ExternalStream(2)`` gives it: one handle, and work or an event recorded on it
    lands on the calling thread's own stream (each thread's a :class:`SimStream`)."""

    key = _staging._PER_THREAD_STREAM

    def __init__(self) -> None:
        import threading

        self._local = threading.local()

    def own(self) -> SimStream:
        """The calling thread's stream."""
        if not hasattr(self._local, "stream"):
            self._local.stream = SimStream(self.key)
        return self._local.stream

    def enqueue(self) -> int:
        return self.own().enqueue()


class _PerThreadEvent(SimEvent):
    def record(self, stream) -> None:
        super().record(stream.own() if isinstance(stream, _PerThreadDefault) else stream)


class _PerThreadClock(SimClock):
    """Every thread's current stream is its cudaStreamPerThread."""

    def __init__(self) -> None:
        super().__init__()
        self.current = _PerThreadDefault()  # type: ignore[assignment]

    def event(self) -> SimEvent:
        return _PerThreadEvent(self)


_SMALL_ROUTES = {
    "torch copy_": lambda n: (torch.arange(n, dtype=torch.int32), False),
    "numpy copyto": lambda n: (torch.arange(n, dtype=torch.int32), True),
    "int list": lambda n: (list(range(n)), None),
}


def _per_thread_rig(monkeypatch, route: str, *, raise_first: bool = False):
    """A small pool on :class:`_PerThreadClock` behind ``_stage_small`` / ``_stage_int_list`` (``route``), its DMA queued on
    the calling thread's simulated stream. Returns ``(pool, staged, call, run_b)``: ``staged`` the (address, bytes) of each
    DMA's source; ``call()`` one small call of 4 int32; ``run_b(k)`` ``k`` calls on a new thread, each followed by its
    stream running. ``raise_first``: the first DMA raises after it was queued."""
    import threading

    from h2d_contracts.h2d_impl import h2d as R

    clock = _PerThreadClock()
    pool = StagingPool(CPU, 128, pin=False, small=True, max_retained=1 << 20, clock=clock)
    monkeypatch.setattr(_staging, "pool_for", lambda *a, **k: pool)
    staged: list[tuple[int, int]] = []
    raising = [raise_first]

    def dma(staging: torch.Tensor, target: torch.device, out: torch.Tensor | None) -> torch.Tensor:
        clock.current.enqueue()  # the copy reading the slice, on the calling thread's stream
        staged.append((staging.data_ptr(), staging.numel() * staging.element_size()))
        if raising[0]:
            raising[0] = False
            raise RuntimeError("a failure after the copy was queued")
        return staging.clone()

    monkeypatch.setattr(R, "_dma", dma)

    def call() -> None:
        data, plain = _SMALL_ROUTES[route](4)
        if plain is None:
            assert R._stage_int_list(data, torch.int32, CPU, 1 << 10) is not None
        else:
            R._stage_small(data, torch.int32, CPU, None, 16, False, plain=plain)

    def run_b(k: int) -> None:
        errors: list[BaseException] = []

        def thread_b() -> None:
            try:
                for _ in range(k):
                    call()
                    clock.current.own().run()
            except BaseException as e:  # noqa: BLE001 - re-raised on the calling thread
                errors.append(e)

        worker = threading.Thread(target=thread_b)
        worker.start()
        worker.join()
        if errors:
            raise errors[0]

    return pool, staged, call, run_b


def _overlapping(staged: list[tuple[int, int]], span: tuple[int, int]) -> list[int]:
    start, nbytes = span
    return [s for s, n in staged if s < start + nbytes and start < s + n]


@pytest.mark.parametrize("route", sorted(_SMALL_ROUTES))
def test_a_per_thread_stream_chunk_closed_by_another_thread_is_not_reused_before_its_copy(monkeypatch, route):
    """cudaStreamPerThread is a different stream in each thread. Thread A stages a small call behind a long kernel on its
    stream; thread B's calls then close A's open chunk, run their own stream and fill chunks: no slice B writes may lie
    in A's chunk while A's copy is still queued. Keyed by the raw handle, the small pool shared A's open chunk with B,
    and the ``done`` B recorded on closing it landed on B's stream: B reused A's bytes (the outside review of
    2026-12-06; docs/reference.md). Driven through ``_stage_small``'s two routes and ``_stage_int_list``."""
    pool, staged, call, run_b = _per_thread_rig(monkeypatch, route)
    pool.clock.current.enqueue()  # a long kernel on thread A's stream, never run in this test
    call()
    run_b(12)  # 64 bytes a slice (ALIGN): six chunks of 128 bytes
    assert len(staged) == 13
    overlap = _overlapping(staged[1:], staged[0])
    assert not overlap, f"thread B wrote {len(overlap)} slices into A's still-queued bytes"


@pytest.mark.parametrize("route", sorted(_SMALL_ROUTES))
def test_a_thread_given_an_exited_threads_ident_does_not_own_its_chunk(monkeypatch, route):
    """CPython hands an exited thread's ``threading.get_ident()`` to the next thread, while the exited thread's copies may
    still be queued on its cudaStreamPerThread; the new thread has a new stream. Keyed by the ident, the new thread
    took the old one's open chunk for its own and re-recorded its ``done`` on its own stream (the second outside
    review of 2026-12-06). Here every thread reports the same ident (as CPython may): thread A stages behind a long
    kernel and exits, thread B's calls must not reuse A's bytes."""
    import threading
    import types

    # the pool's module sees one ident for every thread (threading itself must keep its own to join threads)
    same_ident = types.SimpleNamespace(**{**vars(threading), "get_ident": lambda: 12345})
    monkeypatch.setattr(_staging, "threading", same_ident)
    pool, staged, call, run_b = _per_thread_rig(monkeypatch, route)

    def thread_a() -> None:
        pool.clock.current.enqueue()  # a long kernel on A's stream, never run
        call()

    worker = threading.Thread(target=thread_a)
    worker.start()
    worker.join()
    run_b(12)
    overlap = _overlapping(staged[1:], staged[0])
    assert not overlap, f"thread B wrote {len(overlap)} slices into the exited thread A's still-queued bytes"


@pytest.mark.parametrize("route", sorted(_SMALL_ROUTES))
def test_a_copy_queued_before_a_failure_stays_covered_on_a_per_thread_stream(monkeypatch, route):
    """A call whose copy was queued and then failed (an ``out.copy_`` raising after its memcpy, an interrupt) still
    records its chunk's ``done`` on cudaStreamPerThread: the next thread closing the chunk records nothing there, so
    without it the chunk read as finished (the second outside review of 2026-12-06)."""
    pool, staged, call, run_b = _per_thread_rig(monkeypatch, route, raise_first=True)
    pool.clock.current.enqueue()  # a long kernel on thread A's stream, never run
    with pytest.raises(RuntimeError, match="after the copy was queued"):
        call()
    run_b(12)
    overlap = _overlapping(staged[1:], staged[0])
    assert not overlap, f"thread B wrote {len(overlap)} slices into A's still-queued bytes"


def test_a_small_pool_whose_mark_start_raises_keeps_the_chunk(monkeypatch):
    """A chunk taken to open, whose start could not be recorded, goes back to the free list (no copy reads it): before, it
    was in no list and still counted in ``retained``, so it could never be trimmed and held part of the cap for good
    (the second outside review of 2026-12-06)."""
    pool, clock = _pool(small=True, chunk=64)
    real = pool.mark_start

    def fails(chunk):
        raise RuntimeError("cudaEventRecord failed")

    monkeypatch.setattr(pool, "mark_start", fails)
    with pytest.raises(RuntimeError, match="cudaEventRecord"):
        pool.small_tensor(torch.Size([8]), torch.uint8, 8)
    assert pool.retained == 64 and pool.stats()["free_chunks"] == 1 and pool.open is None
    monkeypatch.setattr(pool, "mark_start", real)
    pool.small_tensor(torch.Size([8]), torch.uint8, 8)
    assert pool.allocations == 1


def _small_route_chunks(cls: type, route: str) -> tuple[int, int]:
    """Through ``route`` of a small pool of class ``cls``: the chunks opened by two slices on side stream 1, and by a
    third after the current stream changes to side stream 2."""
    clock = SimClock()
    pool = cls(CPU, 1 << 10, pin=False, small=True, clock=clock)

    def slice_() -> None:
        if route == "small_tensor":
            pool.small_tensor(torch.Size([4]), torch.int64, 32)
        else:
            pool.small_array(4, torch.int64)

    slice_()
    slice_()
    same_stream = pool.allocations
    clock.current = SimStream(3)  # not 2: cudaStreamPerThread's handle, keyed by thread
    slice_()
    return same_stream, pool.allocations


@pytest.mark.parametrize("route", ["small_tensor", "small_array"])
def test_the_small_pool_mutants_reach_both_small_routes(route):
    """The catalogue's two small-pool mutants change what both small routes share (``_small_start``): the numpy-written
    route (``small_array``, plain inputs into their own dtype) bypassed a mutation made in ``small_tensor`` alone, and
    on a GPU both mutants survived their contracts (docs/records/gpu/2026-12-06-2c22c1e/summary.md)."""
    from h2d_contracts.contracts.mutants.engine import OpenChunkKeptAcrossStreams
    from h2d_contracts.contracts.mutants.gpu import OpenKeyStale

    assert _small_route_chunks(StagingPool, route) == (1, 2)  # one chunk per stream
    assert _small_route_chunks(OpenChunkKeptAcrossStreams, route) == (1, 1)  # kept across the stream change
    assert _small_route_chunks(OpenKeyStale, route) == (2, 3)  # a chunk per slice on a side stream


@pytest.mark.parametrize("route", ["small_tensor", "small_array"])
def test_the_slice_mutant_reaches_both_small_routes(route):
    """``staging_slice_reused_while_queued``'s pool stages every small call into the same bytes through either route."""
    from h2d_contracts.contracts.mutants.gpu import SliceNotAdvanced

    def two_slices(cls: type) -> tuple[int, int]:
        pool = cls(CPU, 1 << 10, pin=False, small=True, clock=SimClock())
        if route == "small_tensor":
            a, b = (pool.small_tensor(torch.Size([4]), torch.int64, 32) for _ in range(2))
            return a.data_ptr(), b.data_ptr()
        x, y = (pool.small_array(4, torch.int64) for _ in range(2))
        return x.ctypes.data, y.ctypes.data

    first, second = two_slices(StagingPool)
    assert second - first == ALIGN
    first, second = two_slices(SliceNotAdvanced)
    assert second == first
    # a slice given back unused (an int list out of range: _stage_int_list) leaves the mutant's offset where it was
    pool = SliceNotAdvanced(CPU, 1 << 10, pin=False, small=True, clock=SimClock())
    pool.small_array(4, torch.int64)
    pool.unreserve_last(4, torch.int64)
    assert pool.open_off == 0 and len(pool.small_array(8, torch.int64)) == 8


def test_the_depth_is_bounded_by_the_cap():
    """A cap below AHEAD_BYTES (``H2D_STAGING_MAX_BYTES``) bounds a 4 MiB pool's depth: with the oldest copy
    running it allocates up to the cap (four blocks of 4 MiB under a 16 MiB cap) and waits past it."""
    chunk = 4 << 20
    pool, clock = _pool(chunk=chunk, cap=4 * chunk)
    assert pool._depth_blocks() == 12
    _in_flight(pool, clock, 3, behind_other_work=False, started=True)
    pool.take()
    assert pool.allocations == 4 and pool.waits == 0 and not clock.waits
    pool.take()
    assert pool.allocations == 4 and pool.waits == 1 == len(clock.waits)
