"""What a cold staged call pays to pin its block: ``cudaHostAlloc`` against ``cudaHostRegister`` (a GPU lab probe).

Why: the bench's section (e) times each pattern's first call of a size with every cache emptied, behind 100 ms
queued; there the reference and vLLM both pin a fresh block with torch's caching host allocator
(``cudaHostAlloc``, about 0.9 ms plus 0.25 ms per MiB on the H200: ``dev/pool_depth_probe.py``) and the reference
stayed 1-8% over vLLM at 1 GiB in three benches of one H100 each (docs/performance.md). torch's own allocator
can pin by ``cudaHostRegister`` of pages touched first (``pinned_use_cuda_host_register``, a process-wide setting
the reference must not change). Is that route cheaper here, per size, for a block the call fills anyway?

Per size of ``--mib`` (default 1, 4, 16, 64, 256, 1024), interleaved rounds (``--rounds``, default 5), host ms:

- ``alloc``: ``torch.empty(n, pin_memory=True)`` (the allocator's cache emptied first), then the ``copy_`` of an
  int32 pageable source of n bytes into it: the cold call's host side today, and vLLM's;
- ``copy_register``: ``torch.empty(n + 4096)`` pageable, the same ``copy_`` into its page-aligned n bytes (the
  copy faults the pages in, in parallel), then ``cudaHostRegister`` of those bytes;
- ``register_copy``: the register first (the driver faults the pages), then the ``copy_``;
- ``unregister``: ``cudaHostUnregister`` of a registered block (paid when a pool drops it, not by a call);
- ``alloc_busy``, ``copy_register_busy``, ``unregister_busy``: the same behind 100 ms of spin work queued on the
  current stream (does the register or the unregister wait for the device?);

and, once per size, the DMA rate (CUDA events, GB/s) of a non_blocking copy from an ``alloc`` block and from a
registered one, the registered block's ``is_pinned()``, and that the device copy holds the source's values.
Usage (a CUDA machine): ``OMP_NUM_THREADS=16 python3 dev/cold_pin_probe.py [--mib 1 4 ...] [--rounds 5]``.

``--reaper``: instead, what a pool that releases registered blocks on a thread of its own would meet. Per round, a
64 MiB block is registered, 100 ms of spin work queued, and another thread calls ``cudaHostUnregister`` on it; 5 ms
later, with that call pending, the main thread times (host us), one after another, what a caller does: a 4 KiB
non_blocking copy from pinned memory, an event record, ``torch.empty`` on the device, and the ``cudaHostRegister`` of
another 64 MiB block (a cold call's pin). A step is timed while the unregister is pending only if the steps before it
returned first (``unregister_pending_after_steps``, read after all four, says whether it still was; the printed label
"while it is pending" holds for the first step). Each round also times the same 4 KiB copy behind the same queued work
with no unregister pending (``copy_4k_control``), the block registered as in the other rounds. Then, once: whether a
failed ``cudaHostRegister`` (the same range twice) leaves the CUDA runtime's last error set so that torch's next kernel
launch raises, and whether ``cudaGetLastError`` from the process's loaded ``libcudart`` clears it.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch

PAGE = 4096


def empty_host_cache() -> None:
    torch.cuda.synchronize()
    torch._C._host_emptyCache()


def aligned(raw: torch.Tensor, n: int) -> torch.Tensor:
    off = (-raw.data_ptr()) % PAGE
    return raw[off : off + n]


def cycles_per_ms() -> float:
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(1000)
    a.record()
    torch.cuda._sleep(10_000_000)
    b.record()
    b.synchronize()
    return 10_000_000 / a.elapsed_time(b)


def probe_size(n: int, rounds: int, rt: Any, busy: Callable[[], None], dev: torch.device) -> str:
    """One line: the medians and spreads of the cold pins of ``n`` bytes, the DMA rates, the checks."""
    src = torch.arange(n // 4, dtype=torch.int32).view(torch.uint8)
    held: list[tuple[int, torch.Tensor]] = []

    def alloc(empty: bool = True) -> float:
        if empty:
            empty_host_cache()
        t0 = time.perf_counter_ns()
        block = torch.empty(n, dtype=torch.uint8, pin_memory=True)
        block.copy_(src)
        ms = (time.perf_counter_ns() - t0) / 1e6
        del block
        return ms

    def registered(copy_first: bool, empty: bool = True) -> float:
        if empty:
            empty_host_cache()
        t0 = time.perf_counter_ns()
        raw = torch.empty(n + PAGE, dtype=torch.uint8)
        block = aligned(raw, n)
        if copy_first:
            block.copy_(src)
        err = rt.cudaHostRegister(block.data_ptr(), n, 0)
        if not copy_first:
            block.copy_(src)
        ms = (time.perf_counter_ns() - t0) / 1e6
        if int(err) != 0:
            raise RuntimeError(f"cudaHostRegister: {err}")
        held.append((block.data_ptr(), raw))
        return ms

    def behind_busy(fn: Callable[..., float]) -> Callable[[], float]:
        def run() -> float:
            empty_host_cache()
            busy()
            return fn(empty=False)

        return run

    fns: dict[str, Callable[[], float]] = {
        "alloc": alloc,
        "copy_register": functools.partial(registered, True),
        "register_copy": functools.partial(registered, False),
        "alloc_busy": behind_busy(alloc),
        "copy_register_busy": behind_busy(functools.partial(registered, True)),
    }
    samples: dict[str, list[float]] = {k: [] for k in [*fns, "unregister", "unregister_busy"]}
    names = list(fns)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            samples[name].append(fns[name]())
            torch.cuda.synchronize()
        for i, (ptr, _raw) in enumerate(held):
            if i % 2:
                busy()
            t0 = time.perf_counter_ns()
            rt.cudaHostUnregister(ptr)
            samples["unregister_busy" if i % 2 else "unregister"].append((time.perf_counter_ns() - t0) / 1e6)
            torch.cuda.synchronize()
        held.clear()
    # DMA rate from each kind of block, and the registered block's values on the device
    pinned = torch.empty(n, dtype=torch.uint8, pin_memory=True).copy_(src)
    raw = torch.empty(n + PAGE, dtype=torch.uint8)
    reg = aligned(raw, n).copy_(src)
    rt.cudaHostRegister(reg.data_ptr(), n, 0)
    checks: dict[str, Any] = {}
    for label, block in (("alloc", pinned), ("registered", reg)):
        dst = torch.empty(n, dtype=torch.uint8, device=dev)
        best = 0.0
        for _ in range(5):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            dst.copy_(block, non_blocking=True)
            b.record()
            b.synchronize()
            best = max(best, n / (a.elapsed_time(b) / 1e3) / 1e9)
        checks[f"{label}_GBps"] = best
        checks[f"{label}_equal"] = bool(torch.equal(dst.cpu(), src))
    checks["registered_is_pinned"] = bool(reg.is_pinned())
    torch.cuda.synchronize()
    rt.cudaHostUnregister(reg.data_ptr())
    med = {k: statistics.median(v) for k, v in samples.items() if v}
    return (
        f"{n >> 20:5d} MiB  "
        + "  ".join(f"{k}={med[k]:.2f} [{min(samples[k]):.2f}-{max(samples[k]):.2f}]" for k in med)
        + "  |  "
        + " ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in checks.items())
    )


def _loaded_cudart() -> Any:
    """ctypes handle of the ``libcudart`` this process has loaded (found in ``/proc/self/maps``), or None."""
    import ctypes

    with open("/proc/self/maps") as fh:
        paths = {line.split()[-1] for line in fh if "libcudart" in line and "/" in line}
    return ctypes.CDLL(sorted(paths)[0]) if paths else None


def probe_reaper(rounds: int, rt: Any, busy: Callable[[], None], dev: torch.device, n: int = 64 << 20) -> None:
    """``--reaper`` (see the module docstring): prints one line of medians and one of the last-error check."""
    import threading

    src = torch.arange(n // 4, dtype=torch.int32).view(torch.uint8)
    small = torch.empty(4096, dtype=torch.uint8, pin_memory=True)
    small_dst = torch.empty(4096, dtype=torch.uint8, device=dev)
    samples: dict[str, list[float]] = {
        k: []
        for k in ("unregister_thread", "copy_4k", "event_record", "empty_device", "register_other", "copy_4k_control")
    }

    def fresh_registered() -> tuple[torch.Tensor, int]:
        raw = torch.empty(n + PAGE, dtype=torch.uint8)
        block = aligned(raw, n).copy_(src)
        err = rt.cudaHostRegister(block.data_ptr(), n, 0)
        if int(err) != 0:
            raise RuntimeError(f"cudaHostRegister: {err}")
        return raw, block.data_ptr()

    for _ in range(rounds):
        # the control: a block registered, the same work queued, the same pause, no unregister pending
        raw, ptr = fresh_registered()
        torch.cuda.synchronize()
        busy()
        time.sleep(0.005)
        t0 = time.perf_counter_ns()
        small_dst.copy_(small, non_blocking=True)
        samples["copy_4k_control"].append((time.perf_counter_ns() - t0) / 1e3)
        torch.cuda.synchronize()
        rt.cudaHostUnregister(ptr)
        del raw
        raw, ptr = fresh_registered()
        torch.cuda.synchronize()
        busy()
        done = threading.Event()

        def reap(ptr: int = ptr, done: threading.Event = done) -> None:
            t0 = time.perf_counter_ns()
            rt.cudaHostUnregister(ptr)
            samples["unregister_thread"].append((time.perf_counter_ns() - t0) / 1e6)
            done.set()

        thread = threading.Thread(target=reap)
        thread.start()
        time.sleep(0.005)  # the unregister is pending by now (it waits for the 100 ms queued)
        steps: dict[str, Callable[[], Any]] = {
            "copy_4k": lambda: small_dst.copy_(small, non_blocking=True),
            "event_record": lambda: torch.cuda.Event().record(),
            "empty_device": lambda: torch.empty(1024, device=dev),
            "register_other": fresh_registered,
        }
        other = None
        for name, step in steps.items():
            t0 = time.perf_counter_ns()
            got = step()
            samples[name].append((time.perf_counter_ns() - t0) / 1e3)
            if name == "register_other":
                other = got
        pending = not done.is_set()
        thread.join()
        torch.cuda.synchronize()
        if other is not None:
            rt.cudaHostUnregister(other[1])
        del raw
        samples.setdefault("unregister_pending_after_steps", []).append(float(pending))
    print(
        "reaper (64 MiB; unregister_thread in ms, the rest host us while it is pending): "
        + "  ".join(f"{k}={statistics.median(v):.2f} [{min(v):.2f}-{max(v):.2f}]" for k, v in samples.items() if v),
        flush=True,
    )
    # a failed register: is the runtime's last error left set for torch's next kernel launch?
    raw, ptr = fresh_registered()
    err = rt.cudaHostRegister(ptr, n, 0)  # the same range again: fails
    raised = ""
    try:
        (torch.ones(8, device=dev) + 1).sum().item()
    except RuntimeError as exc:
        raised = str(exc).splitlines()[0]
    cudart = _loaded_cudart()
    cleared = err2 = after = None
    if cudart is not None:
        err2 = rt.cudaHostRegister(ptr, n, 0)
        cleared = int(cudart.cudaGetLastError())
        try:
            (torch.ones(8, device=dev) + 1).sum().item()
            after = "no error"
        except RuntimeError as exc:
            after = str(exc).splitlines()[0]
    rt.cudaHostUnregister(ptr)
    print(
        f"failed register: err={int(err)} next launch raised={raised or 'nothing'!r}; loaded libcudart="
        f"{cudart is not None}; second failure err={None if err2 is None else int(err2)}, cudaGetLastError="
        f"{cleared}, next launch after it: {after}",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, nargs="+", default=[1, 4, 16, 64, 256, 1024])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reaper", action="store_true", help="the unregister-on-a-thread probe (module docstring)")
    args = ap.parse_args()
    rt = torch.cuda.cudart()
    dev = torch.device("cuda", 0)
    torch.empty(1, device=dev)
    cpm = cycles_per_ms()
    print(torch.cuda.get_device_name(dev), torch.__version__, "threads", torch.get_num_threads(), flush=True)

    def busy() -> None:
        torch.cuda._sleep(int(100 * cpm))

    if args.reaper:
        probe_reaper(args.rounds, rt, busy, dev)
        return
    for mib in args.mib:
        print(probe_size(mib << 20, args.rounds, rt, busy, dev), flush=True)


if __name__ == "__main__":
    main()
