# a real tensor with the neg bit (the .imag of a conj view) staged into complex64: imaginary zeros' sign
exec(open("/tmp/review_serial/load.py").read())   # old = HEAD~1 h2d.py, new = HEAD h2d.py
import torch
N = 32768                                          # complex64: 32768 * 8 B = 256 KiB, the serial bound
z = torch.complex(torch.zeros(N), torch.arange(N, dtype=torch.float32))
data = z.conj().imag                               # float32 view with is_neg() == True, values -0, -1, -2, ...
print("data.is_neg():", data.is_neg())
ref = torch.empty(N, dtype=torch.complex64).copy_(data)
for name, m in (("old", old), ("new", new)):
    r = m.async_tensor_h2d(data, device="cpu", dtype=torch.complex64)
    signbit = torch.signbit(r.imag)
    print(name, "elements with imag == -0.0:", int(signbit.sum()), "at", torch.nonzero(signbit).reshape(-1).tolist()[:10],
          "| bytes equal to copy_:", torch.equal(torch.view_as_real(r).view(torch.int32), torch.view_as_real(ref).view(torch.int32)))
