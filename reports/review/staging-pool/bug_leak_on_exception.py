"""_copy_pooled: an exception between pool.take() and pool.give_back() (e.g. CUDA OOM allocating the
destination in staging.to(target), or any error in out.copy_) leaks the block from the pool's books:
`retained` keeps counting it forever, trim()/empty_staging_cache() can never subtract it, and the
inflated counter makes later calls hit the backpressure branch (host waits behind other work)
while the pool really holds far less than its cap."""
from common import *
from common import _staging
from h2d_contracts.h2d_impl import h2d

BLOCK = 1 << 20
clock = SimClock()
# the pool _copy_pooled will use for a 1 MiB float32 payload to "cpu", but with a simulated CUDA clock
pool = StagingPool(CPU, BLOCK, pin=False, small=False, max_retained=4 * BLOCK, clock=clock)
_staging._POOLS[(CPU, BLOCK, False, False)] = pool

src = torch.ones(BLOCK // 4)
bad_out = torch.empty(7)  # stands in for a failing destination copy (CUDA OOM in .to / copy_ error)
for i in range(3):
    try:
        h2d._copy_pooled(src, torch.float32, CPU, bad_out, _staging.MIN_BLOCK_BYTES, pin=False)
    except RuntimeError as e:
        print(f"call {i} failed: {str(e)[:60]}...")
print("after 3 failed calls: retained =", pool.retained, "in_flight =", len(pool._inflight), "free =", len(pool._free),
      "-> blocks the pool can ever reuse or drop:", len(pool._inflight) + len(pool._free))
print("empty_staging_cache() released", _staging.empty_staging_cache(), "bytes; retained still", pool.retained)

# Now normal traffic behind a busy stream (a long kernel queued ahead), with real _copy_pooled calls.
# Patch Tensor.to only to enqueue the simulated DMA on the current sim stream.
clock.current.enqueue()  # long kernel ahead of everything
orig_copy = torch.Tensor.copy_
out = torch.empty(BLOCK // 4)
for i in range(2):
    h2d._copy_pooled(src, torch.float32, CPU, out, _staging.MIN_BLOCK_BYTES, pin=False)
    clock.current.enqueue()  # the DMA (the sim stream does not see torch copies)
    print(f"good call {i}: live blocks={len(pool._inflight)} retained(counted)={pool.retained} cap={pool.max_retained} host waits={len(clock.waits)}")
print("BUG" if clock.waits else "ok", ": host waited behind the queued kernel while the pool held only",
      len(pool._inflight) * BLOCK, "live bytes of a", pool.max_retained, "byte cap")
