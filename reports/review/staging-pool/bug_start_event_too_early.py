"""take() records the block's `start` event BEFORE the host copy (the lock is held, but other threads
can still launch work on the same stream, which is shared by default). Work queued during the host
copy lands between `start` and the DMA, so "oldest.start has completed" no longer means "only our
copy is ahead of done": the host then synchronizes on another thread's kernel (unbounded wait),
below the cap. Real _copy_pooled, real threads, default module constants (32 MiB payloads)."""
import threading, time
from common import *
from common import _staging
from h2d_contracts.h2d_impl import h2d

NB = 32 << 20
clock = SimClock()
pool = StagingPool(CPU, NB, pin=False, small=False, max_retained=max(_staging.MAX_RETAINED_BYTES, 2 * NB), clock=clock)
_staging._POOLS[(CPU, NB, False, False)] = pool
stream = clock.current
kernels = []

orig_copy = torch.Tensor.copy_
during_host_copy, launched_ev = threading.Event(), threading.Event()
def copy_and_dma(self, src, non_blocking=False):
    if not non_blocking and pool.lock.locked() and not stop:
        # the host copy into the block (torch releases the GIL here): force the interleaving
        # "another thread launches a kernel meanwhile" deterministically
        during_host_copy.set(); launched_ev.wait(); launched_ev.clear()
    r = orig_copy(self, src, non_blocking=non_blocking)
    if non_blocking:            # the destination copy (the DMA) is queued on the current stream
        stream.enqueue()
    return r
torch.Tensor.copy_ = copy_and_dma

stop = False
def other_thread():            # e.g. a thread launching a kernel on the (shared) current stream
    while not stop:
        if during_host_copy.wait(0.01):
            during_host_copy.clear()
            kernels.append(stream.enqueue())
            launched_ev.set()
t = threading.Thread(target=other_thread); t.start()

src = torch.ones(NB // 4)
out = torch.empty(NB // 4)
h2d._copy_pooled(src, torch.float32, CPU, out, _staging.MIN_BLOCK_BYTES, pin=False)   # call 1 -> block A
a = pool._inflight[0]
h2d._copy_pooled(src, torch.float32, CPU, out, _staging.MIN_BLOCK_BYTES, pin=False)   # call 2 -> block B (depth)
stop = True; t.join()
print(f"block A: start@{a.start.pos} done@{a.done.pos}; other thread's kernels queued at {kernels}")
between = [k for k in kernels if a.start.pos < k < a.done.pos]
print("kernels between A.start and A.done:", between)
stream.run(a.start.pos)        # the GPU reached A's start; it is now running the other thread's kernel
print("before call 3: A.start.query()=", a.start.query(), "A.done.query()=", a.done.query(), "retained=", pool.retained)
stop = True
h2d._copy_pooled(src, torch.float32, CPU, out, _staging.MIN_BLOCK_BYTES, pin=False)   # call 3
torch.Tensor.copy_ = orig_copy
print("host waits:", len(clock.waits), "- waited until stream position", clock.waits[-1] if clock.waits else None,
      "which includes other-thread kernel(s)", between)
print("BUG: host blocked on another thread's kernel, below the cap" if clock.waits and between else "not reproduced")
