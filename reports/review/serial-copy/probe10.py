exec(open("/tmp/review_serial/load.py").read())
import torch, numpy as np, sys
which = sys.argv[1]; m = old if which == "old" else new
N = 40000
z = torch._efficientzerotensor(N, dtype=torch.int32)
print(which, "zerotensor src: is_zerotensor", z._is_zerotensor(), flush=True)
try:
    r = m.async_tensor_h2d(z, "cpu", dtype=torch.int64 if False else torch.int32); print(which, "stage ->", r[:3].tolist(), int(r.sum()))
except Exception as e: print(which, "stage", type(e).__name__, str(e)[:150])
try:
    out = torch.full((N,), 7, dtype=torch.int32)
    r = m.async_tensor_h2d(z, "cpu", out=out); print(which, "out ->", int(out.sum()))
except Exception as e: print(which, "out", type(e).__name__, str(e)[:150])
try:
    zo = torch._efficientzerotensor(N, dtype=torch.int32)
    r = m.async_tensor_h2d(np.ones(N, np.int16), "cpu", out=zo); print(which, "zerotensor out -> ok", int(zo.sum()))
except Exception as e: print(which, "zerotensor out", type(e).__name__, str(e)[:150])
