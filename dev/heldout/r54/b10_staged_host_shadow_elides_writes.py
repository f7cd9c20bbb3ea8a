"""b10 (CPU): ``apply_write`` skips every staged element whose value equals a host mirror of what the tensor last wrote.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.apply_write``.

Change: an optimisation ("engines re-stage whole rows each step though few elements change: keep a
host mirror of ``.gpu`` and send only the elements that differ from it")::

    _write(self.gpu, *_converted(self))                                          # reference

    positions, values = self.staged_positions()                                  # bug
    host = async_tensor_h2d(values, device="cpu", dtype=self.gpu.dtype).numpy()  # converted, validated
    shadow = self._shadow  (made zeros on first use: ``.gpu`` starts as zeros)
    keep = shadow[positions] != host
    if keep.any():
        _write(self.gpu, positions[keep], async_tensor_h2d(host[keep], device=self.gpu.device))
    shadow[positions] = host

The mirror is what this object wrote, compared before the apply, element by element: (a) within
one apply, a later staged write that puts an element back to its mirrored value is dropped while
an earlier write of the same element is sent, so the earlier write wins; (b) anything else that
writes ``.gpu`` (Model Runner V2's kernels update ``num_computed_tokens.gpu`` and the like in
place, and the host re-stages the value on preemption) leaves the mirror stale, and the staged
value is dropped; (c) ``-0.0`` over ``0.0`` compares equal and is dropped. The values left are
plausible: an earlier or the kernel's.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "``apply_write()`` writes every
staged write into ``.gpu`` on the current stream, in staging order (a later write of the same
element wins)"; docs/contracts.md, staged-write: "writes applied in staging order, the last staged
write of an element winning".

Smallest input: ``t = StagedWriteTensor(1, torch.int32, 'cpu'); t.stage_write_elem(0, 7); t.stage_write_elem(0, 0); t.apply_write(); t.gpu``.
Reference: ``[0]``. Bug: ``[7]``.
Engine case: ``t.stage_write_elem(0, 5); t.apply_write(); t.gpu[0] = 9`` (a kernel); ``t.stage_write_elem(0, 5); t.apply_write(); t.gpu``:
reference ``[5]``, bug ``[9]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: async_tensor_h2d, _write)


def apply_write(self: Any) -> None:
    if not self._staged_write_indices:
        return
    positions, values = self.staged_positions()
    host = async_tensor_h2d(values, device="cpu", dtype=self.gpu.dtype).numpy()  # converted (validated) once
    shadow = self.__dict__.get("_shadow")
    if shadow is None:
        shadow = self._shadow = np.zeros(self.gpu.numel(), dtype=host.dtype)  # .gpu starts as zeros
    keep = shadow[positions] != host  # BUG (r54 b10): the mirror, not .gpu, and before this apply's own writes
    if keep.any():
        _write(self.gpu, positions[keep], async_tensor_h2d(host[keep], device=self.gpu.device))
    shadow[positions] = host
    self.clear_staged_writes()


def target() -> Target:
    f = fork("b10")
    return make_target(
        "b10_staged_host_shadow_elides_writes",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10", methods={"StagedWriteTensor": {"apply_write": apply_write}}),
    )
