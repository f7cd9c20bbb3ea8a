"""take() only ever looks at the OLDEST in-flight chunk. With copies on two streams, the oldest may be
queued behind other work on stream S1 while a later chunk (copied on S2) has completed. At the cap
the pool then synchronizes on S1's other work (unbounded) instead of reusing the finished chunk;
the docstring says a call waits only "when a pool's cap of staging is already queued behind other
work" and that a chunk "is reused once done has completed". Shown for a large pool and the small pool."""
from common import *

# ---- large pool (what _copy_pooled does per call), cap = 2 blocks
clock = SimClock()
s1, s2 = clock.current, SimStream(2)
pool = StagingPool(CPU, 64, pin=False, small=False, max_retained=128, clock=clock)
s1.enqueue()                      # a long kernel on S1, ahead of our copy
a, _ = use(pool, clock)           # block A copied on S1 (behind the kernel)
clock.current = s2
b, _ = use(pool, clock)           # block B copied on S2
s2.run()                          # B's copy ran: B is reusable
print(f"[large] A done={a.done.query()} started={a.start.query()}  B done={b.done.query()}  retained={pool.retained} cap={pool.max_retained}")
c = pool.take()
print(f"[large] take() returned {'A' if c is a else 'B' if c is b else 'new'}; host waits={len(clock.waits)} "
      f"(synchronized S1 through pos {clock.waits}: S1's kernel included)")
print("[large]", "BUG" if clock.waits and c is not b else "ok")

# ---- small pool (pool.small_tensor as _to_device uses it), cap = 3 chunks
clock = SimClock()
s1, s2 = clock.current, SimStream(2)
pool = StagingPool(CPU, 64, pin=False, small=True, max_retained=192, clock=clock)
s1.enqueue()                                                    # long kernel on S1
def call(stream):
    clock.current = stream
    pool.small_tensor(torch.Size([8]), torch.uint8, 8)
    stream.enqueue()                                            # the copy reading the slice
call(s1)   # chunk X on S1 (behind the kernel)
call(s2)   # stream change: X closed; chunk Y on S2
call(s1)   # stream change: Y closed; chunk Z on S1
x, y = pool._inflight[0], pool._inflight[1]
s2.run()                                                        # S2 idle: Y's copies ran
print(f"[small] X done={x.done.query()}  Y done={y.done.query()}  retained={pool.retained} cap={pool.max_retained}")
call(s2)   # stream change: Z closed, needs a chunk
got = pool.open
print(f"[small] new open chunk is {'X' if got is x else 'Y' if got is y else 'new'}; host waits={len(clock.waits)} (S1 through pos {clock.waits})")
print("[small]", "BUG" if clock.waits and got is not y else "ok")
