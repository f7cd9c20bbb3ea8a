# out= written by numpy.copyto: out._version is not bumped, so autograd does not see the in-place write
exec(open("/tmp/review_serial/load.py").read())   # old = HEAD~1 h2d.py, new = HEAD h2d.py
import torch
N = 40000                                           # >= 32768 elements, float32 out = 160 KB <= 256 KiB
for name, m in (("old", old), ("new", new)):
    w = torch.ones(N, requires_grad=True)
    out = torch.zeros(N)
    loss = (w * out).sum()                          # autograd saves `out` (all zeros) for d loss / d w
    m.async_tensor_h2d(torch.full((N,), 5.0), device="cpu", out=out)
    print(name, "out._version:", out._version, end=" | ")
    try:
        loss.backward()
        print("backward OK, w.grad[0] =", w.grad[0].item(), "(true gradient is 0.0)")
    except RuntimeError as e:
        print("backward raises:", str(e)[:90])
