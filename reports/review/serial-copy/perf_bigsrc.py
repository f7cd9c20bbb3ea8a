exec(open("/tmp/review_serial/load.py").read())
import torch, numpy as np, time
def bench(f, reps=200):
    f(); t = time.perf_counter()
    for _ in range(reps): f()
    return (time.perf_counter() - t) / reps * 1e6
for sdt, ddt, n in [(torch.float64, torch.bool, 262144), (torch.complex128, torch.bool, 262144), (torch.float64, torch.uint8, 262144), (torch.int64, torch.int8, 262144), (torch.float32, torch.float32, 65536)]:
    src = torch.ones(n, dtype=sdt)
    a = bench(lambda: torch.empty(n, dtype=ddt).copy_(src)); b = bench(lambda: new._host_copy(torch.empty(n, dtype=ddt), src))
    print(f"{str(sdt)[6:]}({n * sdt.itemsize >> 10} KiB) -> {str(ddt)[6:]}({n * ddt.itemsize >> 10} KiB): copy_ {a:.0f} us, _host_copy {b:.0f} us")
