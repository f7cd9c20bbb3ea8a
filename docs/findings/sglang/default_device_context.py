"""SGLang 0.5.22-0.5.23 `async_h2d`: under `with torch.device(...)`, the host tensor is built on that device.

`torch.tensor(args, dtype=dtype, pin_memory=pin)` names no device, so it lands on the default device of an enclosing
`with torch.device("meta")` / `torch.set_default_device("cuda:1")`: on "meta" the copy raises ("Cannot copy out of meta
tensor"); under a CUDA default device the "host" staging tensor is a device tensor (and pin_memory=True is refused).
Contract `values`: a valid call gives its values on the requested device, whatever the default device.
Fix (the reference, as vLLM does): `torch.tensor(args, dtype=dtype, device="cpu", pin_memory=pin)`.
"""

import sys

import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl import async_tensor_h2d

    def async_h2d(args, *, dtype, device):
        return async_tensor_h2d(args, device=device, dtype=dtype)
else:
    from sglang.srt.utils.common import async_h2d

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

with torch.device("meta"):
    try:
        result = async_h2d([1, 2, 3], dtype=torch.int64, device=DEVICE)
    except (NotImplementedError, RuntimeError) as exc:
        raise AssertionError(f'under torch.device("meta") the call raised {type(exc).__name__}: {exc}') from None
assert result.device.type == torch.device(DEVICE).type and result.cpu().tolist() == [1, 2, 3], result
print("ok: the host tensor is built on the host")
