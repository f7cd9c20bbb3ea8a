"""Random op sequences on the staging pool with a simulated in-order clock (tests' SimStream/SimEvent model);
prints a digest of every decision (chunk identity index, allocations, waits, queries) to compare old vs new."""
import random, sys, hashlib
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
    def query(e): e.c.queries += 1; return e.s is None or e.s.comp >= e.pos
    def synchronize(e): e.c.waits += 1; e.s and e.s.run(e.pos)
class C:
    def __init__(c, streams): c.streams = streams; c.current = streams[0]; c.waits = 0; c.queries = 0
    def stream_key(c): return c.current.key
    def current_stream(c): return c.current
    def event(c): return Ev(c)

def trial(seed, count_queries):
    rng = random.Random(seed)
    _staging.MIN_DEPTH_BYTES = rng.choice([64, 256, 1 << 20])
    streams = [S(k) for k in range(rng.choice([1, 2, 3]))]
    clk = C(streams)
    small = rng.random() < .4
    pool = StagingPool(torch.device('cpu'), 256, pin=False, small=small, max_retained=rng.choice([256, 512, 1024, 4096]), clock=clk)
    ids = []
    def tag(ch):
        for i, c in enumerate(ids):
            if c is ch: return i
        ids.append(ch); return len(ids) - 1
    out = []
    for step in range(60):
        op = rng.random()
        if op < .15:
            clk.current = rng.choice(streams)
        elif op < .3:
            s = rng.choice(streams); s.run(rng.randint(s.comp, s.enq) if rng.random() < .5 else None)
        elif op < .37:
            rng.choice(streams).enqueue()  # other work (a kernel)
        elif op < .4:
            out.append(('trim', pool.trim()))
        else:
            if small:
                n = rng.choice([8, 64, 100, 200])
                t = pool.small_tensor(torch.Size([n]), torch.uint8, n)
                clk.current.enqueue()
                out.append(('small', tag(pool.open), t.data_ptr() - pool.open.block.data_ptr()))
            else:
                ch = pool.take(want=rng.choice([0, 256, 1024]))
                out.append(('take', tag(ch)))
                pool.mark_start(ch); clk.current.enqueue(); pool.give_back(ch)
        out.append((pool.allocations, clk.waits, pool.retained, len(pool._inflight)) + ((clk.queries,) if count_queries else ()))
    return out

import pickle
if len(sys.argv) > 2:
    pickle.dump([trial(s, False) for s in range(int(sys.argv[1]))], open(sys.argv[2], 'wb'))
h = hashlib.sha256()
for seed in range(int(sys.argv[1])):
    h.update(repr(trial(seed, False)).encode())
print('decisions digest', h.hexdigest()[:16])
qs = sum(trial(seed, True)[-1][-1] for seed in range(int(sys.argv[1])))
print('total event queries', qs)
