"""Pinned staging pools: page-locked chunks and blocks reused only after a completion event says their copy ran.

Why not torch's caching host allocator (CHA) per call, as vLLM does: on the H200
(measured by the bench, see docs/performance.md) a ``torch.empty(..., pin_memory=True)`` cost about
7 us of a 21 us small call, and back-to-back large calls asked it for whole-payload
blocks that were rarely free again by the next call, so steady-state throughput fell to
41-58% of the pinned DMA limit while each miss paid a fresh ``cudaHostAlloc``
(about 0.25-0.5 ms per MiB). These pools recycle instead:

- **Small payloads** (at most :data:`SMALL_MAX_BYTES`, 256 KiB) are sub-allocated, 64-byte
  aligned, from one open chunk of :data:`SMALL_CHUNK_BYTES`; the chunk is closed (one
  event recorded) when it is full or the current stream changes, so a small call records
  no event and allocates nothing.
- **Large payloads** take one block of their size class (the next power of two, at least
  :data:`MIN_BLOCK_BYTES`), one pool per class: one host copy and one DMA per call. The
  host copy is one OpenMP region: staging in 4 MiB pieces (one region each, pipelined with
  the DMA) stalled for 84-126 ms per 64 MiB call when another process shared the cores
  (measured on an H200 with ``H2D_STAGING_TRACE``, see docs/performance.md).

When to wait, when to allocate. Every chunk or block in flight carries two events on its
stream: ``start`` (recorded before its first copy) and ``done`` (after its last). It is
reused once ``done`` has completed. Otherwise the oldest in-flight one decides:

- while the pool holds less than the call's payload, it allocates even if a finished
  block exists: it comes to hold the largest payload seen (up to the cap), so a later call
  of that size behind a busy stream finds what it needs.
- while it holds fewer than its depth (:meth:`StagingPool._depth_blocks`: two blocks,
  :data:`MIN_DEPTH_BLOCKS`, three of 1-2 MiB, :data:`SPARE_BLOCK_MAX_BYTES`, and from 4 MiB
  blocks as many as 48 MiB, :data:`AHEAD_BYTES`: 12 of 4 MiB, 3 of 16 MiB; never more than
  the cap): allocate (enough in flight for one call's host copy to overlap the
  DMAs of the calls before it, and for a block's DMA to come after the host has written
  others: a block just written DMAs at about half the rate).
- beyond that, if the oldest's ``start`` has completed, the stream is running *our*
  copies, so waiting for its ``done`` costs at most one block's DMA (about 18 us per MiB at
  55 GB/s), far less than pinning another block (``cudaHostAlloc``: about 0.9 ms plus
  0.25 ms per MiB on the H200, ``dev/pool_depth_probe.py``): wait. This keeps back-to-back
  calls near the DMA limit without the pool growing.
- otherwise other work (a kernel, a busy stream) is ahead of our copies and the wait is
  unbounded: allocate, never wait, unless the pool already holds its cap
  (:data:`MAX_RETAINED_BYTES` or two blocks, whichever is larger); only then wait
  (backpressure, bounded pinned memory).

So a call waits for the stream only for its own running copies or when a pool's cap of
staging is already queued behind other work.

Pools are per device (allocated with that device current, so no CUDA context is created
elsewhere) and thread-safe: a pool's lock is held from taking a chunk or block until the
copy reading it is issued, so none is closed while a copy from it is still to be queued.
:func:`empty_staging_cache` drops every chunk and block whose copies have completed
(``torch.cuda.empty_cache``-like hygiene; they go back to torch's caching host allocator,
which ``torch._C._host_emptyCache()`` then releases).

The pools are written device-generically: for a host target (the CPU call-trace tests
under a simulated pinned allocator) there are no streams and every chunk is reusable at
once.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

__all__ = [
    "AHEAD_BYTES",
    "AHEAD_MIN_BLOCK_BYTES",
    "MIN_BLOCK_BYTES",
    "MAX_RETAINED_BYTES",
    "MIN_DEPTH_BLOCKS",
    "MIN_DEPTH_BYTES",
    "SPARE_BLOCK_MAX_BYTES",
    "SMALL_CHUNK_BYTES",
    "SMALL_MAX_BYTES",
    "StagingPool",
    "empty_staging_cache",
    "pool_for",
    "staging_stats",
]

#: Smallest block of the large-payload pools, bytes; blocks are powers of two from here.
MIN_BLOCK_BYTES = 1 << 20
#: Chunk size of the small-payload pool, bytes: one ``cudaHostAlloc`` of about 1 ms on
#: the H200 for the first call of a process, 16,384 calls of 64 bytes per event.
SMALL_CHUNK_BYTES = 1 << 20
#: Retained bytes at which a small pool waits for its oldest chunk (backpressure): about
#: a quarter of a million small calls queued and not yet run.
SMALL_MAX_RETAINED_BYTES = 64 << 20
#: Payloads of at most this many bytes are sub-allocated from the small pool.
SMALL_MAX_BYTES = 256 << 10
#: Below this many blocks a large pool allocates rather than wait for its running oldest: with
#: k blocks, a call that has waited for the oldest still has k - 1 DMAs queued to overlap its host
#: copy. One block serialised host copy and DMA (15-17 GB/s at every size on the H200, an earlier
#: version).
MIN_DEPTH_BLOCKS = 2
#: Pools of blocks of at most this many bytes keep one block more than :data:`MIN_DEPTH_BLOCKS` (from 4 MiB
#: :data:`AHEAD_BYTES` asks more, so this decides the 1 and 2 MiB classes):
#: a short DMA (a freshly written 4 MiB block's ran at about 20 GB/s, 200 us) is within a host
#: step's jitter. In the bench's steady-state sample on the H200 (``dev/pool_depth_probe.py``,
#: docs/performance.md) three blocks of 4 MiB gave 24-27 GB/s, two 22-23; at 16 and 64 MiB three
#: gained nothing, and the third 64 MiB block's ``cudaHostAlloc`` (about 17 ms at the rate in the
#: module docstring) fell within the timed calls in one round of three (9 GB/s).
SPARE_BLOCK_MAX_BYTES = 4 << 20
#: Pools of blocks of at least :data:`AHEAD_MIN_BLOCK_BYTES` keep at least this many bytes of blocks in flight
#: before a take waits for its running oldest (12 blocks of 4 MiB, 6 of 8 MiB, 3 of 16 MiB). A block the host has
#: just written with ``copy_`` DMAs at about half the rate (one NVIDIA H100: 22.7 against 43.2 GB/s at 4 MiB, 28.9
#: against 49.6 at 16 MiB; the written lines still in the CPU's caches, ``dev/fresh_dma_probe.py``), and back-to-back
#: staged calls DMA each block right after its write unless the host has written others since: a ring of three 4 MiB
#: pinned buffers sustained 27 GB/s, of 8 buffers 45, of 16 buffers 48; of three 16 MiB buffers 54
#: (``dev/fresh_dma_probe.py --pipeline-calls 64 --ring N``; docs/performance.md). The extra blocks are pinned only
#: while calls outrun their DMAs (a pool reuses a finished block first), and kept until :func:`empty_staging_cache`
#: (after which a burst pins them again): up to 48 MiB for each of the 4, 8 and 16 MiB classes, where the depth
#: before held 12, 16 and 32. A cap below it (``H2D_STAGING_MAX_BYTES``) bounds it: the pool then waits at the cap.
AHEAD_BYTES = 48 << 20
#: Smallest block to which :data:`AHEAD_BYTES` applies: below it a pool would pin dozens of blocks, one
#: ``cudaHostAlloc`` (about 1 ms) each, for rows no target measures (target 3 starts at 4 MiB).
AHEAD_MIN_BLOCK_BYTES = 4 << 20
#: Below this many retained bytes a pool also allocates rather than wait (a byte floor under
#: the block count; tests set it). Until 2026-12 it was 64 MiB: 16 blocks of 4 MiB, pinned one
#: ``cudaHostAlloc`` at a time while back-to-back calls ran (about 1 ms each, a dozen 4 MiB DMAs)
#: instead of a wait of at most one DMA: on the H200 that depth held the bench's steady-state
#: sample to 12-14 GB/s at 4 MiB and 13-45 at 16 MiB, where two blocks gave 22-23 and 40-46
#: (``dev/pool_depth_probe.py``; ``dev/pool_sim.py`` models it).
MIN_DEPTH_BYTES = 0
#: Pinned bytes one pool may hold before a call waits for the oldest queued copy
#: (backpressure); ``H2D_STAGING_MAX_BYTES`` in the environment overrides it.
MAX_RETAINED_BYTES = int(os.environ.get("H2D_STAGING_MAX_BYTES", 1 << 30))
#: Diagnostics: a file to which every ``take`` slower than 0.5 ms appends one line (branch,
#: retained bytes, queue length, the oldest chunk's state), and ``_copy_pooled`` a phase
#: breakdown of every call slower than 5 ms. Off unless ``H2D_STAGING_TRACE`` is set.
TRACE_PATH = os.environ.get("H2D_STAGING_TRACE")
#: In-flight chunks a take scans for a finished one (the oldest first).
SCAN = 8
#: Sub-allocations start at multiples of this (covers every dtype's alignment).
ALIGN = 64
#: CUDA's ``cudaStreamPerThread`` handle.
_PER_THREAD_STREAM = 2


_THREAD = threading.local()
_TOKENS = itertools.count(1)


def _thread_token() -> int:
    """A number for the calling thread that no other thread of the process ever gets, unlike
    ``threading.get_ident()``, which CPython hands to the next thread as soon as one exits (while the exited thread's
    copies may still be queued on its cudaStreamPerThread: an outside review, 2026-12-06)."""
    try:
        return _THREAD.token  # type: ignore[no-any-return]
    except AttributeError:
        _THREAD.token = token = next(_TOKENS)
        return token


def _qualified_key(key: int) -> int:
    """A raw stream handle ``key`` as the pools tell streams apart: cudaStreamPerThread's handle, a different stream in
    each thread, qualified by the calling thread's :func:`_thread_token`; every other handle as it is."""
    return key if key != _PER_THREAD_STREAM else hash((key, _thread_token()))


def _aligned(nbytes: int) -> int:
    """``nbytes`` rounded up to a multiple of :data:`ALIGN`: the bytes a small slice takes in its chunk."""
    return (nbytes + ALIGN - 1) // ALIGN * ALIGN


@functools.lru_cache(maxsize=1024)
def _contiguous_strides(shape: torch.Size) -> tuple[int, ...]:
    """C-order strides of ``shape``, in elements."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


_AS_IS = contextlib.nullcontext()


def long_lived() -> contextlib.AbstractContextManager[Any]:
    """The context tensors kept across calls or steps are made in (pooled staging blocks and their kept views, the
    tensors of :class:`h2d_impl.buffer.CpuGpuBuffer` and of the buffers in :mod:`h2d_impl.buffer_utils`):
    ``torch.inference_mode(False)``, entered only where the caller's grad or inference mode differs from what it sets
    (inference mode on, or grad mode off), else a context that does nothing. Those two flags decide whether a tensor
    made is an inference tensor or a view made without grad; the others the context also sets (forward AD,
    autograd's multithreading) change nothing in the tensors made.

    Such a tensor is state, not a call's or step's result. Made under ``torch.inference_mode()`` (where engines run
    their steps) it would be an inference tensor, which torch refuses to write outside that mode ("Inplace update to
    inference tensor outside InferenceMode": the contracts' calling contexts found it in a staging block on an H200,
    held-out round r57's author in a pool slot grown under inference_mode). Made as normal tensors they serve inside
    and outside the mode; vLLM allocates in the calling mode. Entering ``torch.inference_mode(False)`` where grad mode
    is already on and inference mode off changes nothing there, and cost about 119 us of a cold 4 KiB call's Python
    time on an H100 (two entries; ``dev/cold_small_probe.py --cprofile``, docs/performance.md). It also turns grad
    mode on: entered under ``torch.no_grad()`` as before, so the tensors are made in the same state as before. A new
    context object per entry (``torch.inference_mode`` objects are not reentrant); the do-nothing one is shared.
    """
    if torch.is_inference_mode_enabled() or not torch.is_grad_enabled():
        return torch.inference_mode(False)
    return _AS_IS


class _Chunk:
    __slots__ = (
        "block",
        "nbytes",
        "address",
        "start",
        "done",
        "stream",
        "key",
        "owner",
        "views",
        "arrays",
        "marked",
        "last",
    )

    def __init__(self, block: torch.Tensor) -> None:
        self.block = block  # uint8, pinned (or pageable where pinning is off), contiguous
        self.nbytes: int = block.numel()  # its bytes, kept: each numel() is a call into torch
        self.address: int = block.data_ptr()  # its first byte's host address (the small path's memmove: small_at)
        self.views: dict[torch.dtype, torch.Tensor] = {}  # the block viewed as each dtype staged in it
        self.arrays: dict[torch.dtype, np.ndarray] = {}  # the same, as numpy arrays (lists written in place)
        self.start: Any = None  # event recorded before the chunk's first copy of this use
        self.done: Any = None  # event recorded after its last copy of this use
        self.stream: Any = None
        self.key: int = 0  # the pool's stream_key() of ``stream``
        # on cudaStreamPerThread, the thread whose stream it is (its events can be recorded from that thread only)
        self.owner: int | None = None
        self.marked = False  # start recorded for this use (mark_start)
        # the whole-block view last made by tensor(start=0): (shape, dtype, view)
        self.last: tuple[torch.Size, torch.dtype, torch.Tensor] | None = None

    def tensor(self, shape: torch.Size, dtype: torch.dtype, start: int = 0) -> torch.Tensor:
        """A contiguous ``dtype`` tensor of ``shape`` in this chunk, from byte ``start`` (a multiple of the itemsize).

        A block taken whole (``start`` 0) for the same shape and dtype as its last use gets that use's view again:
        the view cost 8-16 us of a 1-16 MiB call behind a busy stream on the H200 (``dev/busy_path_probe.py``;
        docs/performance.md). Only the reference's own copies read it.
        """
        if start == 0:
            last = self.last
            if last is not None and last[1] is dtype and last[0] == shape:
                return last[2]
            with long_lived():  # kept across calls: a view made in inference mode is an inference tensor
                view = self._view(shape, dtype, 0)
            self.last = (shape, dtype, view)
            return view
        return self._view(shape, dtype, start)

    def array(self, dtype: torch.dtype) -> np.ndarray:
        """The whole chunk as a 1-D numpy array of ``dtype`` (one with a numpy equivalent), kept for the chunk's life."""
        arr = self.arrays.get(dtype)
        if arr is None:
            arr = self.arrays[dtype] = self._typed(dtype).numpy()
        return arr

    def _typed(self, dtype: torch.dtype) -> torch.Tensor:
        typed = self.views.get(dtype)
        if typed is None:
            whole = self.nbytes - self.nbytes % dtype.itemsize  # tests use odd chunk sizes
            with long_lived():  # kept across calls: never a view made in inference mode
                # the block itself where it holds whole elements (every pool's chunk size): no slice to make
                typed = self.views[dtype] = (self.block if whole == self.nbytes else self.block[:whole]).view(dtype)
        return typed

    def _view(self, shape: torch.Size, dtype: torch.dtype, start: int) -> torch.Tensor:
        return self._typed(dtype).as_strided(shape, _contiguous_strides(shape), start // dtype.itemsize)


class StagingPool:
    """Chunks (small pool) or blocks (one size class of the large pools) of ``chunk_bytes`` pinned host bytes for staging copies to ``device``.

    Args:
        device: the target device (``torch.device``) whose streams the copies run on;
            ``cpu`` for the device-generic path of the call-trace tests.
        chunk_bytes: size of every chunk, bytes.
        pin: allocate chunks with ``pin_memory=True`` (False where pinning is unavailable).
        small: chunks are sub-allocated by many calls (:meth:`small_tensor`), not taken whole.
        max_retained: bytes of chunks the pool may hold before it waits instead of allocating.
        clock: streams and events (``stream_key()``, ``current_stream()``, ``event()``);
            CUDA's for a CUDA device, none for the host (no streams: chunks are free at
            once); tests pass a simulated one to check the policy on a CPU-only machine.

    Not for direct use: :func:`h2d_impl.async_tensor_h2d` takes chunks under :attr:`lock`.
    """

    def __init__(
        self,
        device: torch.device,
        chunk_bytes: int,
        *,
        pin: bool,
        small: bool,
        max_retained: int = MAX_RETAINED_BYTES,
        clock: Any = None,
    ) -> None:
        self.device = device
        # A small pool's chunk collects many calls, with any amount of other work queued
        # between its first and last copy: that its first copy started says nothing about
        # when its last ends, so a small pool allocates rather than wait (below the cap).
        self.wait_if_started = not small
        self.chunk_bytes = chunk_bytes
        self.pin = pin
        self.max_retained = max(max_retained, chunk_bytes)
        self.lock = threading.Lock()
        self._free: list[_Chunk] = []
        self._inflight: collections.deque[_Chunk] = collections.deque()
        self.retained = 0
        self.allocations = 0
        self.waits = 0
        # the open chunk of a small pool: sub-allocated until full or the stream changes
        self.open: _Chunk | None = None
        self.open_key: int = 0
        self.open_off = 0
        self.clock = clock if clock is not None else (_CudaClock(device) if device.type == "cuda" else None)
        self.stream_key: Callable[[], int] = self.clock.stream_key if self.clock is not None else (lambda: 0)

    # -- chunks ------------------------------------------------------------------------

    def _alloc(self) -> _Chunk:
        # A pooled block outlives the call that made it: made under a caller's torch.inference_mode() it would be
        # an inference tensor, and the next call outside the mode could not write it ("Inplace update to inference
        # tensor outside InferenceMode": the contracts' calling contexts found it on an H200)
        with long_lived():
            block = torch.empty(self.chunk_bytes, dtype=torch.uint8, device="cpu", pin_memory=self.pin)
        self.retained += self.chunk_bytes
        self.allocations += 1
        return _Chunk(block)

    def _depth_blocks(self) -> int:
        """Blocks held before a take waits for its own running copy: :data:`MIN_DEPTH_BLOCKS`, one more for blocks of
        at most :data:`SPARE_BLOCK_MAX_BYTES`, and from :data:`AHEAD_MIN_BLOCK_BYTES` at least enough blocks for
        :data:`AHEAD_BYTES`. :meth:`take` bounds the depth's bytes by ``max_retained``."""
        blocks = MIN_DEPTH_BLOCKS + (self.chunk_bytes <= SPARE_BLOCK_MAX_BYTES)
        if self.chunk_bytes >= AHEAD_MIN_BLOCK_BYTES:
            blocks = max(blocks, -(-AHEAD_BYTES // self.chunk_bytes))
        return blocks

    def take(self, want: int = 0) -> _Chunk:
        """A chunk no queued copy reads, for copies on the current stream (caller holds :attr:`lock`).

        The caller calls :meth:`mark_start` right before issuing the first copy that reads
        the chunk and :meth:`give_back` after the last one (in a ``finally``: a chunk taken
        and not given back would stay counted in ``retained`` and never be reused).

        ``want``: bytes of the call this chunk serves (its whole payload). Below ``want``
        retained bytes the pool allocates, reusable chunks or not (it comes to hold the
        largest payload seen, up to ``max_retained``). Below
        ``max(MIN_DEPTH_BYTES, its depth in chunks)`` retained bytes (:meth:`_depth_blocks`: two or three chunks,
        from 4 MiB chunks at least 48 MiB of them) it allocates rather than waits,
        so one call can always be staged whole without waiting (a call behind a busy
        stream reuses what its predecessors allocated) and back-to-back calls keep enough
        chunks in flight for the host copy to overlap the DMA. ``max_retained`` bounds
        it: a payload larger than that waits for its own earlier pieces.
        """
        if TRACE_PATH:
            return self._traced_take(want)
        return self._take(want)

    def _traced_take(self, want: int) -> _Chunk:
        oldest = self._inflight[0] if self._inflight else None
        state = "none" if oldest is None else f"done={oldest.done.query()} started={oldest.start.query()}"
        before = (self.retained, len(self._inflight), self.allocations, self.waits)
        t0 = time.perf_counter()
        chunk = self._take(want)
        ms = (time.perf_counter() - t0) * 1e3
        if ms > 0.5:
            branch = "alloc" if self.allocations > before[2] else "wait" if self.waits > before[3] else "reuse"
            trace(
                f"take {ms:.2f} ms {branch} want={want} retained={before[0]} inflight={before[1]} oldest[{state}] chunk={self.chunk_bytes}"
            )
        return chunk

    def _first_done(self) -> _Chunk | None:
        """Remove and return the oldest of the first :data:`SCAN` in-flight chunks whose copies ran, if any.

        Not only the oldest: with several streams the oldest may sit behind other work on
        one stream while a later one, copied on another stream, is already free (found by
        an outside review of the pool).
        A chunk on a stream whose earlier chunk has not finished is skipped unqueried: the
        events of one stream complete in the order they were recorded. So back-to-back calls
        on one stream query one event per take, not :data:`SCAN` (each ``cudaEventQuery``
        is about 1 us; a 1 MiB call's DMA about 20 us).
        """
        blocked: set[int] = set()
        for i, chunk in enumerate(self._inflight):
            if i == SCAN:
                return None
            if chunk.key in blocked:
                continue
            if chunk.done.query():
                del self._inflight[i]
                return chunk
            blocked.add(chunk.key)
        return None

    def _take(self, want: int) -> _Chunk:
        if self._free:
            chunk = self._free.pop()
        elif self.clock is None:
            chunk = self._alloc()
        else:
            oldest = self._inflight[0] if self._inflight else None
            grow = self.retained + self.chunk_bytes
            ready = None
            if self.retained < min(want, self.max_retained):
                # The pool holds less than this call's payload: grow now, even where a finished
                # chunk could be reused, so the next call of this size finds its whole payload's
                # chunks (an idle stream recycles two or three; behind a busy stream the rest
                # were fresh cudaHostAllocs: 8.4 ms for 64 MiB on the H200 without this rule).
                chunk = self._alloc()
            elif oldest is not None and (ready := self._first_done()) is not None:
                chunk = ready
            elif (
                oldest is not None
                and grow > min(max(MIN_DEPTH_BYTES, self._depth_blocks() * self.chunk_bytes), self.max_retained)
                and ((self.wait_if_started and oldest.start.query()) or grow > self.max_retained)
            ):
                # Our own copies are running (a wait of at most one chunk's DMA), or the pool is
                # full (backpressure): wait for the oldest chunk rather than pin more memory.
                self.waits += 1
                oldest.done.synchronize()
                chunk = self._inflight.popleft()
            else:
                chunk = self._alloc()
        chunk.marked = False
        if self.clock is not None:
            try:
                chunk.stream = self.clock.current_stream()
                key = self.stream_key()
                # cudaStreamPerThread (handle 2, e.g. torch.cuda.ExternalStream(2)) is one handle
                # for a different stream in each thread: key it by thread too, or _first_done
                # would take two threads' streams for one (found by an outside review of the fast paths)
                chunk.owner = _thread_token() if key == _PER_THREAD_STREAM else None
                chunk.key = _qualified_key(key)
                if chunk.start is None:
                    chunk.start, chunk.done = self.clock.event(), self.clock.event()
            except BaseException:
                self._free.append(chunk)  # no copy reads it: free for the next take, still counted
                raise
        return chunk

    def mark_start(self, chunk: _Chunk) -> None:
        """Record ``chunk``'s start on its stream, right before the first copy reading it is issued.

        After the host copy, not in :meth:`take`: with the start recorded before a long host
        copy, another thread could queue a kernel on the same stream between the start and
        the DMA, and "its start has completed" would no longer mean "only our copy is left"
        (found by an outside review of the pool).
        """
        if self.clock is not None:
            chunk.start.record(chunk.stream)
        chunk.marked = True

    def give_back(self, chunk: _Chunk) -> None:
        """Mark ``chunk``'s copies issued (caller holds :attr:`lock`): reusable once ``done`` completes."""
        if self.clock is not None:
            # a chunk of another thread's cudaStreamPerThread (a small pool's open chunk, closed by the next thread):
            # recorded here, its events would land on this thread's stream; its owner recorded ``done`` after each
            # copy (:meth:`copied`), and a start is recorded when the chunk is opened
            if chunk.owner is None or chunk.owner == _thread_token():
                # nothing was issued (the caller failed first): start = done, no wait behind others
                if not chunk.marked:
                    chunk.start.record(chunk.stream)
                chunk.done.record(chunk.stream)
            self._inflight.append(chunk)
        else:
            self._free.append(chunk)

    def copied(self) -> None:
        """Record the open chunk's ``done`` on the calling thread's stream, right after a copy reading it was issued, where
        the chunk is on cudaStreamPerThread (caller holds :attr:`lock`; the chunk's ``owner`` is not None).

        That handle is a different stream in each thread, so when the next thread's call closes the chunk
        (:meth:`give_back`) it cannot record on the owner's stream: without this the ``done`` it recorded covered its
        own stream, and the chunk was reused while the owner's copy was still queued (an outside review found it in a
        simulation on the CPU). torch's own streams (the default and pool streams) are one stream for every thread and
        never take this branch.
        """
        chunk = self.open
        if chunk is not None and self.clock is not None:
            chunk.done.record(chunk.stream)

    def small_tensor(self, shape: torch.Size, dtype: torch.dtype, nbytes: int) -> torch.Tensor:
        """A contiguous ``dtype`` tensor of ``shape`` (``nbytes`` bytes) in the open chunk.

        The caller holds :attr:`lock` until the copy reading it is queued. The slice starts
        at a multiple of :data:`ALIGN`; it is made with one ``as_strided`` of a per-dtype
        view of the chunk (``block[a:b].view(dtype).view(shape)`` cost 3.5 us on the CPU
        machine, ``as_strided`` 1.1 us).
        """
        chunk, start = self._small_start(nbytes)
        return chunk.tensor(shape, dtype, start)

    def small_array(self, count: int, dtype: torch.dtype) -> np.ndarray:
        """``count`` elements of ``dtype`` in the open chunk as a 1-D numpy array (a slice of the chunk's numpy view).

        As :meth:`small_tensor` (the caller holds :attr:`lock`; ``dtype`` has a numpy equivalent), but a slice of the
        chunk's numpy view, kept for its life: the caller writes it (one numpy assignment, ``copyto`` or a ``memmove``
        at the address :meth:`small_at` gives) and DMAs ``torch.from_numpy`` of it (:func:`h2d._stage_int_list`,
        :func:`h2d._stage_small`). Such a tensor is not the
        caching host allocator's block, so the allocator need not record the copy's stream on it (it may, for a
        slice at the chunk's start, where its lookup by address finds the block); the pool's own event on the
        chunk covers the copy, as for every slice (a chunk is freed only once its copies have run:
        :meth:`trim`). ``torch.from_numpy`` and numpy's slice cost 0.54 us on the CPU machine, ``as_strided`` with
        its strides 1.0.
        """
        chunk, start = self._small_start(count * dtype.itemsize)
        offset = start // dtype.itemsize
        return chunk.array(dtype)[offset : offset + count]

    def small_at(self, count: int, dtype: torch.dtype) -> tuple[np.ndarray, int]:
        """:meth:`small_array` and the host address of the slice's first byte, for one ``memmove`` into it
        (:func:`h2d._stage_small`; numpy's own ``.ctypes.data`` of the slice costs about 1 us on the CPU machine)."""
        chunk, start = self._small_start(count * dtype.itemsize)
        offset = start // dtype.itemsize
        return chunk.array(dtype)[offset : offset + count], chunk.address + start

    def unreserve_last(self, count: int, dtype: torch.dtype) -> None:
        """Give back the slice the last :meth:`small_array` (``count`` elements of ``dtype``) reserved, before any copy
        read it (the caller still holds :attr:`lock`): a call that fails after reserving leaves the open chunk as it
        found it, so failing calls behind a busy stream pin no more chunks (found by an outside review). A chunk
        opened for the slice stays open, its start recorded and nothing queued on it."""
        self.open_off -= _aligned(count * dtype.itemsize)

    def _small_start(self, nbytes: int) -> tuple[_Chunk, int]:
        """The open chunk (a new one if this stream's is full) and the byte offset of ``nbytes`` reserved in it."""
        key = _qualified_key(self.stream_key())  # cudaStreamPerThread: one open chunk per thread, as take keys it
        chunk = self.open
        if chunk is None or key != self.open_key or self.open_off + nbytes > self.chunk_bytes:
            if chunk is not None:
                self.open = None  # closed before the next take, which may raise (no second give_back)
                self.give_back(chunk)
            chunk = self.take()
            try:
                self.mark_start(chunk)  # a small pool never waits on its start: before the host copy is fine
            except BaseException:
                self._free.append(chunk)  # no copy reads it: free for the next take, still counted (outside review)
                raise
            self.open, self.open_key, self.open_off = chunk, key, 0
        start = self.open_off
        self.open_off = start + _aligned(nbytes)
        return chunk, start

    def trim(self) -> int:
        """Drop every chunk whose copies have completed (caller holds :attr:`lock`); returns bytes dropped."""
        if self.open is not None:
            chunk, self.open = self.open, None
            self.give_back(chunk)
        kept: collections.deque[_Chunk] = collections.deque()
        dropped = len(self._free)
        self._free.clear()
        for chunk in self._inflight:
            if chunk.done.query():
                dropped += 1
            else:
                kept.append(chunk)
        self._inflight = kept
        self.retained -= dropped * self.chunk_bytes
        return dropped * self.chunk_bytes

    def stats(self) -> dict[str, int]:
        """Counters of this pool: chunk bytes, retained bytes, chunks in flight and free, allocations, waits (ints)."""
        return {
            "chunk_bytes": self.chunk_bytes,
            "retained_bytes": self.retained,
            "in_flight_chunks": len(self._inflight) + (self.open is not None),
            "free_chunks": len(self._free),
            "allocations": self.allocations,
            "waits": self.waits,
        }


def trace(line: str) -> None:
    """Append ``line`` to :data:`TRACE_PATH` (diagnostics only)."""
    with open(TRACE_PATH, "a") as fh:  # type: ignore[arg-type]
        fh.write(f"{time.time():.6f} pid={os.getpid()} {line}\n")


class _CudaClock:
    """Streams and events of one CUDA device, as the pool needs them."""

    def __init__(self, device: torch.device) -> None:
        index = device.index
        self.device = device
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # ~0.2 us; current_stream() ~1 us
        self.stream_key: Callable[[], int] = (
            (lambda: raw(index)) if raw is not None else (lambda: torch.cuda.current_stream(index).cuda_stream)
        )
        self._streams: dict[int, Any] = {}

    def current_stream(self) -> Any:
        """The current stream of the device, one ``torch.cuda.Stream`` object per raw stream handle.

        Cached by handle (``torch.cuda.current_stream`` builds a new Python object each call,
        about 1 us): a torch stream is identified by its handle (pool streams keep theirs
        for the process, an external stream's id is its handle), so the cached object is the
        one torch would build. At most 64 handles are kept.
        """
        key = self.stream_key()
        stream = self._streams.get(key)
        if stream is None:
            if len(self._streams) >= 64:
                self._streams.clear()
            stream = self._streams[key] = torch.cuda.current_stream(self.device)
        return stream

    def event(self) -> Any:
        return torch.cuda.Event()


_POOLS: dict[tuple[torch.device, int, bool, bool], StagingPool] = {}
_POOLS_LOCK = threading.Lock()


def pool_for(device: torch.device, chunk_bytes: int, pin: bool, *, small: bool) -> StagingPool:
    """The pool of ``chunk_bytes`` chunks (sub-allocated if ``small``) for copies to ``device``, created on first use."""
    key = (device, chunk_bytes, pin, small)
    pool = _POOLS.get(key)
    if pool is None:
        with _POOLS_LOCK:
            cap = SMALL_MAX_RETAINED_BYTES if small else max(MAX_RETAINED_BYTES, 2 * chunk_bytes)
            pool = _POOLS.get(key) or _POOLS.setdefault(
                key, StagingPool(device, chunk_bytes, pin=pin, small=small, max_retained=cap)
            )
    return pool


def empty_staging_cache() -> int:
    """Release every staging chunk whose copies have completed, in every pool; returns the bytes released.

    Chunks still read by a queued copy stay. The released chunks return to torch's caching
    host allocator; ``torch._C._host_emptyCache()`` hands them back to the OS.
    """
    total = 0
    for pool in list(_POOLS.values()):
        with pool.lock:
            total += pool.trim()
    return total


def staging_stats() -> dict[str, dict[str, int]]:
    """Per pool (``"cuda:0/4194304"``, ``"cuda:0/262144/small"``: device, chunk bytes, kind): retained bytes, chunks in flight and free, allocations, waits."""
    return {
        f"{d}/{c}{'/small' if sm else ''}{'' if p else '/pageable'}": pool.stats()
        for (d, c, p, sm), pool in list(_POOLS.items())
    }
