import torch
from h2d_impl import _host
for d in (torch.float16, torch.bfloat16, torch.float64):
    try:
        torch.set_default_dtype(d)
    except Exception as e:
        print(d, 'set_default_dtype refused:', type(e).__name__); continue
    for data in ([0.5, 1.5], (1,), [True]):
        r = _host.as_source_tensor(data)
        print(d, data, r[0].dtype, r[1])
    torch.set_default_dtype(torch.float32)
