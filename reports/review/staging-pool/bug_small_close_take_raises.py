"""small_tensor(): when closing the open chunk it calls give_back(chunk) BEFORE self.take(); if take()
raises (cudaHostAlloc failure for a fresh chunk, a CUDA error or KeyboardInterrupt in the backpressure
synchronize) self.open still points at the chunk that is now also in _inflight. The next call gives
it back again -> the same chunk sits in _inflight twice. trim()/empty_staging_cache() then drops it
twice: `retained` is decremented by two chunks for one, goes wrong (here negative), and the cap no
longer bounds pinned memory."""
from common import *
from common import _staging

clock = SimClock()
s1, s2 = clock.current, SimStream(2)
CH = 64
pool = StagingPool(CPU, CH, pin=False, small=True, max_retained=4 * CH, clock=clock)
real_alloc = pool._alloc
fail = {"n": 0}
def flaky_alloc():
    if fail["n"]:
        fail["n"] -= 1
        raise RuntimeError("CUDA error: out of memory (cudaHostAlloc)")
    return real_alloc()
pool._alloc = flaky_alloc

def call(stream):
    clock.current = stream
    v = pool.small_tensor(torch.Size([8]), torch.uint8, 8)
    stream.enqueue()
    return v

s1.enqueue()             # busy stream
call(s1)                 # open chunk X on S1
x = pool.open
fail["n"] = 1
try:
    call(s2)             # stream change: X given back, take() -> alloc fails
except RuntimeError as e:
    print("call failed:", e)
print("pool.open is X:", pool.open is x, "| X in _inflight:", sum(c is x for c in pool._inflight), "time(s)")
call(s2)                 # retry: X given back a second time
print("after retry: X in _inflight:", sum(c is x for c in pool._inflight), "time(s); stats:", pool.stats())
s1.run(); s2.run()       # everything ran
live = {id(c) for c in pool._inflight} | ({id(pool.open)} if pool.open else set())
print("distinct live chunks:", len(live), "=", len(live) * CH, "bytes; retained before trim:", pool.retained)
dropped = pool.trim()
held = len({id(c) for c in pool._inflight} | ({id(pool.open)} if pool.open else set())) * CH
print("trim() reported dropped", dropped, "bytes (only ONE distinct chunk, X, was dropped);",
      "retained after trim:", pool.retained, "but chunks still held:", held, "bytes")
print("BUG" if pool.retained != held else "ok")
# consequence: pool now pins past its cap before backpressure kicks in
pool._alloc = real_alloc
s1.enqueue(); s2.enqueue()   # both streams busy again: nothing completes
for i in range(8):
    call(s1 if i % 2 == 0 else s2)   # alternating streams: each call closes a chunk
held = len({id(c) for c in pool._inflight} | {id(pool.open)}) * CH
print(f"chunks really held after 8 more calls behind busy streams: {held} bytes, counted retained={pool.retained}, cap={pool.max_retained}, waits={len(clock.waits)}")
