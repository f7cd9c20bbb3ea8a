"""b19 bare_cuda_unindexed (GPU only) -- ``h2d._resolve_uncached``.

What changed: a bare ``"cuda"`` is no longer given the current device's index::

    return dev if dev.index is not None else torch.device("cuda", index)   # reference
    return dev                                                              # bug

Realistic: ``torch.device("cuda")`` "already means the current device" to every torch op,
and the index lookup cost a ``current_device()`` call. But the resolved device is compared
with ``out.device`` (which always carries its index) and keys the staging pools, whose
CUDA clock asks for the raw stream of ``device.index`` (None).

Why GPU only: the change is after the "CUDA is not available" check; on a CPU-only host
every CUDA spelling is refused there with ``ValueError`` exactly as by the control
(repro.py).

Promise broken (reference.md, What it promises: "**device**: ``"cuda"`` (the current
device), ... it must agree with ``out.device``"; ``async_tensor_h2d`` docstring: "A bare
``"cuda"`` means the current device"; contracts.md bad-input warm calls use bare
``"cuda"``).

Smallest GPU input: ``async_tensor_h2d([1.0], device="cuda", out=torch.zeros(1,
device="cuda:0"))`` with cuda:0 current: reference writes ``out``; bug raises
``ValueError`` ("device=cuda disagrees with out.device=cuda:0"). And
``async_tensor_h2d([1.0], device="cuda")`` fails in the staging pool's stream lookup for
a device without an index.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _resolve_uncached(device, name):
    if isinstance(device, (bool, np.bool_)) or not isinstance(device, (torch.device, str, int, np.integer)):  # noqa: F821
        raise TypeError(f"{name} must be a torch.device, str or int, got {device!r}")
    if isinstance(device, np.integer):  # noqa: F821
        device = int(device)
    if isinstance(device, int) and device < 0:
        raise ValueError(f"{name}={device} is a negative device index")
    try:
        dev = _parse_device(device)  # noqa: F821
    except (RuntimeError, ValueError) as exc:
        raise ValueError(f"{name}={device!r} is not a valid device string") from exc
    if dev.type == "cpu":
        if dev.index not in (None, 0):
            raise ValueError(f"{name}={dev} names a CPU index; the host is 'cpu'")
        return _CPU  # noqa: F821
    if dev.type != "cuda":
        raise ValueError(f"{name}={dev} is not supported: the target must be 'cpu' or a CUDA device")
    count = _cuda_device_count()  # noqa: F821
    if not count:
        raise ValueError(f"{name}={dev} but CUDA is not available in this process")
    index = torch.cuda.current_device() if dev.index is None else dev.index  # noqa: F821
    if not 0 <= index < count:
        raise ValueError(f"{name}={dev} but only {count} CUDA device(s) are visible")
    return dev


def target() -> Target:
    f = fork("b19", h2d={"_resolve_uncached": _resolve_uncached})
    return make_target(
        "b19_bare_cuda_unindexed",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b19"),
    )
