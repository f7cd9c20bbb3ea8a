exec(open("/tmp/review_serial/load.py").read())
import torch, numpy as np, warnings, subprocess, sys
N = 40000
print("== tensor subclass that logs copy_")
class Logged(torch.Tensor):
    log = []
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.Tensor.copy_: cls.log.append("copy_")
        return super().__torch_function__(func, types, args, kwargs or {})
for name, m in (("old", old), ("new", new)):
    Logged.log = []
    out = torch.zeros(N, dtype=torch.int32).as_subclass(Logged)
    m.async_tensor_h2d(np.ones(N, np.int16), "cpu", out=out)
    print(name, "subclass saw copy_ calls:", len(Logged.log), "out sum", int(out.sum()))

print("== return identity and read-only/broadcast sources")
for name, m in (("old", old), ("new", new)):
    a = np.arange(N, dtype=np.int32); a.setflags(write=False)
    out = torch.empty(N, dtype=torch.int64)
    r = m.async_tensor_h2d(a, "cpu", out=out); print(name, "ro out is out:", r is out, bool((out == torch.arange(N)).all()))
    b = np.broadcast_to(np.arange(200, dtype=np.float32), (200, 200))
    r = m.async_tensor_h2d(b, "cpu", dtype=torch.float64); print(name, "broadcast ok", r.shape, bool((r == torch.arange(200.).expand(200,200)).all()))
    r = m.async_tensor_h2d(np.arange(N, dtype=np.int16)[::-1], "cpu", dtype=torch.int32); print(name, "neg stride", r[:3].tolist())

print("== out is data (same tensor)")
for name, m in (("old", old), ("new", new)):
    t = torch.arange(N, dtype=torch.int64)
    r = m.async_tensor_h2d(t, "cpu", out=t); print(name, r is t, t._version)
