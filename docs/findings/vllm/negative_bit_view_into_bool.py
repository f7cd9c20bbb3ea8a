"""vLLM 0.33 on a GPU (PIN_MEMORY=True): a tensor with the negative bit set, into `dtype=torch.bool`, raises.

`x.conj().imag` is a view with torch's negative bit set. vLLM stages an unpinned tensor with
`torch.empty(shape, dtype=dtype, pin_memory=True).copy_(t)`, and torch's `copy_` cannot write such a view into bool
(`NotImplementedError: "neg_cpu" not implemented for 'Bool'`). Contract `values`: a valid input gives its values
(nonzero is True). Seen on an H200 with the kit (2026-12-02, docs/records/gpu/); on a host without pinned memory vLLM
takes `t.to(dtype=...)`, which reads the view. Fix (the reference): resolve the bit first
(`t.resolve_neg().resolve_conj()`) when the target dtype is bool. Needs CUDA.
"""

import sys

import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl import async_tensor_h2d
else:
    from vllm.utils.torch_utils import async_tensor_h2d

if not torch.cuda.is_available():
    sys.exit("needs a CUDA device (vLLM stages through pinned memory only there)")

neg = torch.tensor([1 - 2j, 3 + 0j, -5 + 7j]).conj().imag  # values 2, -0, -7, the negative bit set
try:
    result = async_tensor_h2d(neg, device="cuda", dtype=torch.bool)
except NotImplementedError as exc:
    raise AssertionError(f"a negative-bit view into bool raised {type(exc).__name__}: {exc}") from None
assert result.cpu().tolist() == [True, False, True], result
print("ok: a negative-bit view into bool")
