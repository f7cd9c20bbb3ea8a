"""Randomized model check of the main safety property (no bytes handed out while a queued copy reads them),
single-threaded random interleavings of: small calls on 3 streams, large calls, GPU progress, trim,
other work (kernels). Also injects take() failures. Reports any violation."""
import random
from common import *

def run(seed, inject_fail):
    rng = random.Random(seed)
    clock = SimClock()
    streams = [clock.current, SimStream(2), SimStream(3)]
    small = StagingPool(CPU, 256, pin=False, small=True, max_retained=1024, clock=clock)
    large = StagingPool(CPU, 256, pin=False, small=False, max_retained=1024, clock=clock)
    reads = {}  # id(block tensor storage) -> list of (lo, hi, stream, pos)
    for pool in (small, large):
        ra = pool._alloc
        def fa(ra=ra):
            if inject_fail and rng.random() < 0.1:
                raise RuntimeError("alloc failed")
            return ra()
        pool._alloc = fa
    def hand_out(ptr, lo, hi):
        for (a, b, s, p) in reads.get(ptr, []):
            if a < hi and lo < b and s.completed < p:
                raise AssertionError(f"seed {seed}: bytes [{lo},{hi}) of chunk {ptr:#x} handed out while a copy at {s.key}:{p} reads [{a},{b})")
    for step in range(400):
        op = rng.random()
        clock.current = rng.choice(streams)
        s = clock.current
        try:
            if op < 0.45:
                n = rng.choice([1, 8, 64, 100, 200])
                with small.lock:
                    v = small.small_tensor(torch.Size([n]), torch.uint8, n)
                    ptr = v.untyped_storage().data_ptr(); lo = v.storage_offset()
                    hand_out(ptr, lo, lo + n)
                    reads.setdefault(ptr, []).append((lo, lo + n, s, s.enqueue()))
            elif op < 0.65:
                with large.lock:
                    c = large.take(rng.choice([0, 256]))
                    ptr = c.block.data_ptr()
                    hand_out(ptr, 0, 256)
                    reads.setdefault(ptr, []).append((0, 256, s, s.enqueue()))
                    large.give_back(c)
            elif op < 0.8:
                s.enqueue()  # other work
            elif op < 0.97:
                st = rng.choice(streams); st.run(rng.randint(st.completed, st.enqueued))
            else:
                for p in (small, large):
                    with p.lock:
                        p.trim()
        except RuntimeError:
            pass
    return small, large

bad = 0
for inject in (False, True):
    for seed in range(3000):
        try:
            run(seed, inject)
        except AssertionError as e:
            bad += 1
            if bad < 4: print("VIOLATION", "(with alloc failures)" if inject else "", e)
print("violations:", bad)
