"""b24 (GPU-only): staged writes check their device index on the host, a hidden synchronisation.

Where: ``buffer_utils._write`` (every ``StagedWriteTensor.apply_write`` and
``FusedStagedWriter.apply``). The reference uploads the deduplicated positions with
``async_tensor_h2d`` and queues one ``index_copy_`` on the current stream: nothing waits.
The bug adds a defensive bound check on the uploaded index, ``if where.numel() and
int(where.max()) >= gpu.numel(): raise IndexError(...)`` ("an out-of-range index_copy_ on
CUDA is a device-side assert that kills the process").

Why realistic: a guard against a crash seen once; ``int()`` of a CUDA tensor copies it to
the host and waits for the stream, so every apply now waits for all the work queued before
it (the previous step's forward pass): the overlap of input preparation and compute is
gone. Values and exceptions are unchanged (positions were validated at staging).

On a CPU-only host the index is a host tensor and the check always passes: every call
behaves as the control. On one CUDA GPU: ``t = StagedWriteTensor(4, torch.int32,
"cuda:0"); t.stage_write(0, 0, [1]); torch.cuda._sleep(int(2e9))``, then time
``t.apply_write()`` on the host: the reference returns in well under a millisecond, the bug
after the queued sleep (about a second).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _write(gpu, positions, contents):
    """``gpu.view(-1)[positions] = contents`` with the last write of a position winning, on ``gpu``'s current stream."""
    _, last_rev = np.unique(positions[::-1], return_index=True)
    keep = np.sort(len(positions) - 1 - last_rev)
    where = async_tensor_h2d(positions[keep], device=gpu.device)
    if where.numel() and int(where.max()) >= gpu.numel():  # BUG (added): bound check read back from the device
        raise IndexError(f"staged write position {int(where.max())} is past the tensor's {gpu.numel()} elements")
    gpu.view(-1).index_copy_(0, where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))


def target() -> Target:
    f = fork("b24")
    return make_target(
        "b24_staged_index_bound_sync",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b24", names={"_write": _write}),
    )
