"""vLLM 0.33: an integer tensor with the negative bit set, written into a float `out`, gives -0.0 for its zeros.

`torch._neg_view(t)` is a view with torch's negative bit set: it reads as -t, and -0 is the integer 0. vLLM writes a
tensor into `out` with `out.copy_(t)`, and torch's `copy_` of such a view into a float dtype converts first, then
negates: the integer 0 is written -0.0 (torch 2.11-2.13; `Tensor.to(torch.float64)` reads it right, 0.0). The values
compare equal, the bits do not (`1 / result` is -inf, `torch.signbit` is True). On a GPU (PIN_MEMORY=True) vLLM
stages every unpinned tensor by `copy_` into pinned memory of the target dtype, so `dtype=torch.float64` gives -0.0
too. Contract `values`: a valid input gives its values bit for bit (-0.0 is not 0.0). Found by the kit's
lazy-tensors table on one H200 (2026-12-05), where no expectation covered it; on the CPU an expectation for another
kind (a bool byte other than 0 and 1) had covered it, through the kit's message naming both kinds. Fix (the
reference): resolve the bit (`t.resolve_neg()`) before a converting copy.
"""

import sys

import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl import async_tensor_h2d
else:
    from vllm.utils.torch_utils import async_tensor_h2d

neg = torch._neg_view(torch.tensor([0, 5], dtype=torch.int64))  # values 0, -5, the negative bit set
out = torch.full((2,), 7.0, dtype=torch.float64)
result = async_tensor_h2d(neg, out=out)
assert result.tolist() == [0.0, -5.0], f"got {result.tolist()}"
assert not torch.signbit(result[0]), f"an integer 0 with the negative bit was written {result[0].item()!r}, not 0.0"
print("ok: an integer zero with the negative bit is written 0.0")
