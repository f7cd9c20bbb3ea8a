# the device path's small-payload staging (_to_device, driven with a host target as the kit's trace tests do)
exec(open("/tmp/review_serial/load.py").read())
import torch
N = 32768
z = torch.complex(torch.zeros(N), torch.full((N,), 1.5)); data = z.conj().imag      # neg-bit float32, values -1.5
for name, m in (("old", old), ("new", new)):
    r = m._to_device(data, data, torch.float16, torch.device("cpu"), None, pin=False)
    print(name, "_to_device staging -> float16 values:", sorted(set(r.tolist())), "wrong at", torch.nonzero(r != -1.5).reshape(-1).tolist())
