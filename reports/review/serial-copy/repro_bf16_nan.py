# float32 NaN -> bfloat16 through out= when out and data are both transposed (same memory order)
exec(open("/tmp/review_serial/load.py").read())   # old = HEAD~1 h2d.py, new = HEAD h2d.py
import torch
N = 40000
data = torch.full((N, 2), float("nan"), dtype=torch.float32).t()           # shape (2, N), strides (1, 2)
for name, m in (("old", old), ("new", new)):
    out = torch.empty(N, 2, dtype=torch.bfloat16).t()                       # shape (2, N), strides (1, 2)
    m.async_tensor_h2d(data, device="cpu", out=out)
    bits = out.view(torch.int16)
    print(name, "distinct bit patterns:", sorted({hex(b & 0xFFFF) for b in bits.reshape(-1).tolist()}))
ref = torch.empty(N, 2, dtype=torch.bfloat16).t().copy_(data)
print("dst.copy_(src):", sorted({hex(b & 0xFFFF) for b in ref.view(torch.int16).reshape(-1).tolist()}))
