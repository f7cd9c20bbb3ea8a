"""Two distinct streams that share one stream key (e.g. torch.cuda.ExternalStream(2) = cudaStreamPerThread used
from two threads, or an external stream handle freed and reused): simulated clock as in tests/test_staging_pool.py.
Old: the finished chunk on the second stream is reused. New: it is skipped (same key as an unfinished chunk) and the
take waits on the oldest chunk, which sits behind a long kernel on the other stream."""
import torch
from h2d_impl import _staging
from h2d_impl._staging import StagingPool

class S:
    def __init__(s, key): s.key, s.enq, s.comp = key, 0, 0
    def enqueue(s): s.enq += 1; return s.enq
    def run(s, upto=None): s.comp = s.enq if upto is None else max(s.comp, upto)
class Ev:
    def __init__(e, c): e.c, e.s, e.pos = c, None, 0
    def record(e, s): e.s, e.pos = s, s.enqueue()
    def query(e): return e.s is None or e.s.comp >= e.pos
    def synchronize(e): e.c.waits.append(e.s.key); e.s.run(e.pos)
class C:
    def __init__(c): c.current = None; c.waits = []
    def stream_key(c): return c.current.key
    def current_stream(c): return c.current
    def event(c): return Ev(c)

_staging.MIN_DEPTH_BYTES = 64
clk = C()
pool = StagingPool(torch.device('cpu'), 64, pin=False, small=False, max_retained=128, clock=clk)
t1, t2 = S(2), S(2)   # thread 1's and thread 2's per-thread default stream: same handle 0x2
def use():
    ch = pool.take(); pool.mark_start(ch); clk.current.enqueue(); pool.give_back(ch); return ch
clk.current = t1; t1.enqueue()   # a long kernel on thread 1's stream
a = use()                        # chunk a queued behind it
clk.current = t2; b = use(); t2.run()   # chunk b on thread 2's stream: finished
got = pool.take()
print('take returned', 'b (finished chunk)' if got is b else 'a (after waiting)' if got is a else 'a new chunk',
      '| allocations', pool.allocations, '| waits on', clk.waits)
