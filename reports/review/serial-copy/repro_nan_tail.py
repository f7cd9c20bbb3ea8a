# contiguous NaN sources staged into a fresh tensor (the plain device="cpu" path, no out=):
# the piece copies end in torch's scalar tail loop, whose NaN bits differ from its vector loop
exec(open("/tmp/review_serial/load.py").read())   # old = HEAD~1 h2d.py, new = HEAD h2d.py
import numpy as np, torch
def show(label, data, dtype, ib):
    ref = torch.empty(data.shape, dtype=dtype).copy_(torch.from_numpy(data))
    for name, m in (("old", old), ("new", new)):
        r = m.async_tensor_h2d(data, device="cpu", dtype=dtype)
        bits = r.view(ib).reshape(-1)
        diff = torch.nonzero(bits != ref.view(ib).reshape(-1)).reshape(-1).tolist()
        print(f"{label} {name}: patterns {sorted({hex(b & (2**(8*r.element_size())-1)) for b in bits.tolist()})} differing from copy_ at {diff}")
show("float64 NaN -> bfloat16", np.full(40000, np.nan), torch.bfloat16, torch.int16)
show("float16 NaN(0xfcfc) -> float32", np.full(40000, 0xFCFC, np.uint16).view(np.float16), torch.float32, torch.int32)
