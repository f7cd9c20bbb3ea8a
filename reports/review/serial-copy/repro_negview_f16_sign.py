# neg-bit float32 views (the .imag of a conj view) and float16: the last element's sign is lost
# when the piece copies end in a 1-element piece (numel % 32767 == 1); torch's own 1-element
# copy_ between float16 and a neg-bit float32 drops the negation
exec(open("/tmp/review_serial/load.py").read())   # old = HEAD~1 h2d.py, new = HEAD h2d.py
import numpy as np, torch
for N in (32768, 65535, 98302, 131069):
    z = torch.complex(torch.zeros(N), torch.full((N,), 1.5))
    data = z.conj().imag                                   # float32, is_neg() True, every value -1.5
    for name, m in (("old", old), ("new", new)):
        r = m.async_tensor_h2d(data, device="cpu", dtype=torch.float16)
        print(f"(a) N={N} {name}: data -> float16, values {sorted(set(r.tolist()))}, wrong at {torch.nonzero(r != -1.5).reshape(-1).tolist()}")
for N in (32768, 65535):
    data = np.full(N, -29.25, np.float16)
    for name, m in (("old", old), ("new", new)):
        out = torch.zeros(N, dtype=torch.complex64).conj().imag   # float32 out= with is_neg() True
        m.async_tensor_h2d(data, device="cpu", out=out)
        print(f"(b) N={N} {name}: float16 -> neg-bit float32 out=, values {sorted(set(out.tolist()))}, wrong at {torch.nonzero(out != -29.25).reshape(-1).tolist()}")
