"""vLLM 0.33: a float tensor with the negative bit set, written into a float16 `out`, loses its sign.

`torch._neg_view(t)` (and `x.conj().imag`) is a view with torch's negative bit set: it reads as -t. vLLM writes a
tensor into `out` with `out.copy_(t)`, and torch's `copy_` of such a view into another dtype drops the negation
into float16 (torch 2.11-2.13: [-1.5, -2.0] is written [1.5, 2.0]; `Tensor.to(torch.float16)` reads it right), so
the caller gets wrong values with no error. On a GPU (PIN_MEMORY=True) vLLM stages every unpinned tensor by
`copy_` into pinned memory of the target dtype, so `dtype=torch.float16` loses the sign too. Contract `values`: a
valid input gives its values. Found by the kit's lazy-tensors table (held-out round r51, 2026-12-05), which found the
same in the reference first. Fix (the reference): resolve the bit (`t.resolve_neg().resolve_conj()`) before a
converting copy.
"""

import sys

import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl import async_tensor_h2d
else:
    from vllm.utils.torch_utils import async_tensor_h2d

neg = torch._neg_view(torch.tensor([1.5, 2.0]))  # values -1.5, -2.0, the negative bit set
out = torch.zeros(2, dtype=torch.float16)
result = async_tensor_h2d(neg, out=out)
assert result.tolist() == [-1.5, -2.0], f"a negative-bit view into a float16 out gave {result.tolist()}"
print("ok: a negative-bit view into a float16 out keeps its sign")
