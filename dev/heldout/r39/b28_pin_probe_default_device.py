"""b28 (GPU-only, _host.py ``pin_memory_available``): the cached pinned-memory probe allocates without ``device="cpu"``; if the process's first call comes under a CUDA default device (``with torch.device("cuda")``, ``torch.set_default_device("cuda")``, as engines set it) the probe fails, and "no pinned memory" is cached for the life of the process: every later call stages through pageable memory.

What changed: the probe ``torch.empty(1, dtype=torch.uint8, device="cpu",
pin_memory=True)`` became ``torch.empty(1, dtype=torch.uint8, pin_memory=True)``.

Why an engineer would write it: "a one-byte host allocation"; ``torch.empty`` makes host
tensors by default, and ``pin_memory=True`` only makes sense for host memory, so the
``device="cpu"`` looks redundant (the comment "the host, whatever the default device"
that explains it is easy to read as noise). Under a default device the tensor is made
there, and pinning a CUDA tensor raises RuntimeError ("Only dense CPU tensors can be
pinned", checked on an H200 with torch 2.11: ``with torch.device('cuda'):
torch.empty(1, dtype=torch.uint8, pin_memory=True)``), which the probe reads as "pinning
unavailable" and ``functools.cache`` keeps. (Under ``torch.device("meta")`` the same
allocation does not raise, so a meta default device does not poison it.)

Promise broken: ``pin_memory_available`` docstring: "True when ``pin_memory=True``
allocations succeed"; docs/reference.md, Calling contexts: "a default device ...: no
effect. Every tensor the reference makes names its device"; "On CUDA data is staged
(converted on the host into pinned memory) and copied with ``non_blocking=True``";
docs/contracts.md staging: "no H2D copy of the call is a 'Memcpy HtoD (Pageable ->
Device)'", and non-blocking (a pageable copy makes the host wait).

Smallest input (one GPU, a fresh process): ``with torch.device('cuda'):
async_tensor_h2d([1], device='cuda')``; then, outside the context, profile
``async_tensor_h2d(np.ones(1 << 20, np.int32), device='cuda')`` (or read the fork's
``h2d.pin_memory_available()``; its ``describe`` of a pinned tensor says "pageable").

Reference result: ``pin_memory_available()`` is True; the copy is "Memcpy HtoD (Pinned ->
Device)" and returns behind queued work.
Bug result: ``pin_memory_available()`` is False for the rest of the process; every
staged copy is "Pageable -> Device" and blocks the host behind queued work.
On a CPU-only host the probe is never reached (``torch.cuda.is_available()`` is False
first): False either way.
"""

from __future__ import annotations

import functools

import torch

from h2d_contracts.contracts import Target

from ._common import Raw, buffer_utils_ns, fork, make_target


@functools.cache
def pin_memory_available() -> bool:
    """Whether page-locked (pinned) host memory can be allocated in this process (detected once, cached)."""
    if not torch.cuda.is_available():
        return False
    try:
        torch.empty(1, dtype=torch.uint8, pin_memory=True)  # BUG: was device="cpu" ("the host, whatever the default device")
    except RuntimeError:
        return False
    return True


def target() -> Target:
    f = fork("b28", _host={"pin_memory_available": Raw(pin_memory_available)})
    return make_target(
        "b28_pin_probe_default_device",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
