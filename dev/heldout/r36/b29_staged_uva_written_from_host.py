"""A UVA-backed ``StagedWriteTensor`` applies its writes from the host, at the call.

What changed: ``apply_write()`` wrote the staged values into ``.gpu`` with an ``index_copy_``
queued on the current stream, for device memory and UVA memory alike. The change writes a
UVA-backed tensor (``uva_instead_of_gpu=True``) directly through its pinned host tensor:
"UVA memory *is* host memory; a host store is cheaper than a kernel launch and two small
uploads".

Why an engineer writes it: the values land in the same bytes either way, and for one step
with an idle stream the results are identical.

Promise broken: the class docstring ("``apply_write()`` writes every staged write into
``.gpu`` on the current stream, in staging order") and docs/reference.md's staged-write
semantics (readers queued before the apply read the previous contents; vLLM's kernel writes
on the stream). A host store happens *now*: a kernel queued before ``apply_write`` (the
previous step's forward pass, still behind other work) reads the next step's block table.
GPU only (a UVA tensor needs CUDA and pinned memory; elsewhere ``.gpu`` is device memory).

Smallest input (CUDA): ``t = StagedWriteTensor(4, torch.int32, "cuda",
uva_instead_of_gpu=True)``; queue ``torch.cuda._sleep`` then ``r = t.gpu.clone()`` on the
current stream; ``t.stage_write(0, 0, [7]); t.apply_write(); torch.cuda.synchronize()``:
reference ``r == [0, 0, 0, 0]`` (the reader ran before the write); bug ``r == [7, 0, 0, 0]``.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import async_tensor_h2d
from h2d_contracts.h2d_impl.buffer_utils import StagedWriteTensor, _converted, _write

from ._common import buffer_utils_ns, make_target


class HostStoreStagedWriteTensor(StagedWriteTensor):
    def apply_write(self) -> None:
        if not self._staged_write_indices:
            return
        if self._uva_buf is not None:
            # BUG: UVA memory is written by the host, now (was: _write on .gpu, queued on the current stream)
            positions, values = self.staged_positions()
            contents = async_tensor_h2d(values, device="cpu", dtype=self.dtype)  # validated as before
            _, last_rev = np.unique(positions[::-1], return_index=True)
            keep = np.sort(len(positions) - 1 - last_rev)
            self._uva_buf.cpu.view(-1).index_copy_(0, torch.from_numpy(positions[keep]), contents[torch.from_numpy(keep)])
        else:
            _write(self.gpu, *_converted(self))
        self.clear_staged_writes()


def target() -> Target:
    return make_target(
        "b29_staged_uva_written_from_host",
        buffer_utils=buffer_utils_ns(StagedWriteTensor=HostStoreStagedWriteTensor),
    )
