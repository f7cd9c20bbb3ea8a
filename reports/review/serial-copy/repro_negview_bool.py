# a neg-bit float view (the .imag of a conj view) into a bool out=: copy_ itself raises (neg_ on bool);
# how much of out is written before the exception differs
exec(open("/tmp/review_serial/load.py").read())
import torch
N = 100000                                        # bool out: 100000 B <= 256 KiB
data = torch.complex(torch.zeros(N), torch.ones(N)).conj().imag     # is_neg() True, values -1.0
for name, m in (("old", old), ("new", new)):
    out = torch.zeros(N, dtype=torch.bool)
    try:
        m.async_tensor_h2d(data, device="cpu", out=out); print(name, "returned")
    except Exception as e:
        print(name, type(e).__name__, str(e)[:60], "| out elements written (True):", int(out.sum()))
