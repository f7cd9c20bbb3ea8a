# a bool source whose bytes are not 0/1: copy_ stores 1, numpy.copyto keeps the byte
exec(open("/tmp/review_serial/load.py").read())
import numpy as np, torch
N = 40000
data = np.full(N, 2, np.uint8).view(np.bool_)        # valid numpy bool array (True), byte value 2
for name, m in (("old", old), ("new", new)):
    r = m.async_tensor_h2d(data, device="cpu")
    print(name, "first byte:", r.view(torch.uint8)[0].item(), " r.view(torch.uint8).sum():", r.view(torch.uint8).sum().item())
print("copy_:", torch.empty(N, dtype=torch.bool).copy_(torch.from_numpy(data)).view(torch.uint8)[0].item())
