"""b20 (GPU): small-pool chunks shrink to 128 KiB while payloads up to 256 KiB are still sub-allocated from them: those calls raise.

Where: h2d_impl/_staging.py, ``SMALL_CHUNK_BYTES`` (read by ``h2d._to_device``'s ``small_chunk``
    default when h2d is imported).
Change: ``SMALL_CHUNK_BYTES = 1 << 20`` -> ``SMALL_CHUNK_BYTES = 1 << 17``.
Why plausible: a footprint trim: one open 1 MiB pinned chunk per device and stream is most of a
    small engine's pinned memory, and a chunk "only has to hold a few hundred token ids". The
    invariant ``SMALL_MAX_BYTES <= SMALL_CHUNK_BYTES`` lives in no assertion: ``small_tensor``
    takes a fresh chunk for a payload that does not fit and carves the payload out of it anyway.
Promise broken: async_tensor_h2d's docstring: "Payloads up to 256 KiB take a slice of a shared 1 MiB
    chunk"; contracts.md values: "A valid call that raises ... fails" (the size ladder crosses
    128-256 KiB at every dtype).
Smallest input (on a CUDA host):
    async_tensor_h2d(np.zeros(40000, dtype=np.int32), device="cuda")     # 160,000 bytes
Reference: a CUDA tensor of 40,000 zeros. Bug: ``RuntimeError: setStorage: sizes [40000] ... out of
    bounds for storage of size 131072``. Payloads of at most 128 KiB, and above 256 KiB (the
    block pools), are right. On the host the device-generic path shows it:
    ``_to_device(x, src, torch.int32, torch.device("cpu"), None, pin=False)`` of the fork.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full

SMALL_CHUNK_BYTES = 1 << 17  # BUG: smaller than SMALL_MAX_BYTES (256 KiB)


def _fork():
    f = fork("b20", _staging={"SMALL_CHUNK_BYTES": SMALL_CHUNK_BYTES})
    # h2d binds the constant as _to_device's keyword default when it is imported: rebind it as a
    # fresh import of the edited _staging would (the fork copies the reference's defaults).
    f.h2d._to_device.__kwdefaults__ = dict(f.h2d._to_device.__kwdefaults__, small_chunk=SMALL_CHUNK_BYTES)
    return f


def target() -> Target:
    return fork_target_full("b20_small_chunk_below_small_max", _fork())
