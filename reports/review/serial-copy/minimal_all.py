import sys, warnings; sys.path.insert(0, "/work/main")
import numpy as np, torch, h2d_impl
N = 32768
# 1. neg-bit float32 view -> float16: last element loses its sign
data = torch.complex(torch.zeros(N), torch.full((N,), 1.5)).conj().imag          # float32, is_neg(), all -1.5
r = h2d_impl.async_tensor_h2d(data, device="cpu", dtype=torch.float16)
print("1a", r[-1].item(), "copy_:", torch.empty(N, dtype=torch.float16).copy_(data)[-1].item())
out = torch.zeros(N, dtype=torch.complex64).conj().imag                           # neg-bit float32 out=
h2d_impl.async_tensor_h2d(np.full(N, -29.25, np.float16), device="cpu", out=out)
print("1b", out[-1].item(), "expected -29.25")
# 2. out._version not bumped: autograd misses the in-place write
w = torch.ones(40000, requires_grad=True); o = torch.zeros(40000); loss = (w * o).sum()
h2d_impl.async_tensor_h2d(torch.full((40000,), 5.0), device="cpu", out=o)
loss.backward(); print("2", "out._version", o._version, "w.grad[0]", w.grad[0].item(), "(copy_ would raise in backward)")
# 3. neg-bit float32 -> complex64: imaginary -0.0
r = h2d_impl.async_tensor_h2d(data, device="cpu", dtype=torch.complex64)
print("3", "imag == -0.0 at", torch.nonzero(torch.signbit(r.imag)).reshape(-1).tolist())
# 4. NaN bit patterns
r = h2d_impl.async_tensor_h2d(np.full(40000, np.nan), device="cpu", dtype=torch.bfloat16)
print("4", sorted({hex(b & 0xFFFF) for b in r.view(torch.int16).tolist()}), "copy_:", sorted({hex(b & 0xFFFF) for b in torch.empty(40000, dtype=torch.bfloat16).copy_(torch.full((40000,), float("nan"), dtype=torch.float64)).view(torch.int16).tolist()}))
# 5. numpy RuntimeWarning for signalling NaN
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    h2d_impl.async_tensor_h2d(np.full(N, 0x7F800001, np.uint32).view(np.float32), device="cpu", dtype=torch.bool)
print("5", [str(x.message) for x in ws])
# 6. bool bytes
r = h2d_impl.async_tensor_h2d(np.full(40000, 2, np.uint8).view(np.bool_), device="cpu")
print("6", "byte", r.view(torch.uint8)[0].item(), "copy_ stores", torch.empty(1, dtype=torch.bool).copy_(torch.from_numpy(np.full(1, 2, np.uint8).view(np.bool_))).view(torch.uint8)[0].item())
# 7. zero tensor
try:
    h2d_impl.async_tensor_h2d(torch._efficientzerotensor(40000, dtype=torch.int32), device="cpu"); print("7 ok")
except RuntimeError as e: print("7", "RuntimeError:", str(e).strip())
