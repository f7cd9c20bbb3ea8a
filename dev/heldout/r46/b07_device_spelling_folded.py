"""b07 (CPU): device strings are case-folded and stripped before parsing.

Where: ``h2d._resolve_uncached`` (every ``device=`` of the main function and the CPU
variant). The reference parses the string as given: torch refuses ``"CPU"`` or ``" cpu"``,
and the reference turns that into ``ValueError`` naming ``device``. The bug first does
``device = device.strip().lower()`` ("device names come from config files and CLI flags:
'CPU', 'Cuda:0'").

Why realistic: a friendliness fix for a user report; it makes the helper accept spellings
torch and the documented protocol refuse, so a typo'd or mis-cased device slips through
one layer and fails (or silently works) in another.

Smallest input: ``async_tensor_h2d([1], device="CPU")``. Reference: ``ValueError:
device='CPU' is not a valid device string``. Bug: ``tensor([1])`` on the host.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _resolve_uncached(device, name):
    if isinstance(device, (bool, np.bool_)) or not isinstance(device, (torch.device, str, int, np.integer)):
        raise TypeError(f"{name} must be a torch.device, str or int, got {device!r}")
    if isinstance(device, np.integer):
        device = int(device)
    if isinstance(device, str):  # BUG (added): config files and CLI flags spell it 'CPU', ' cuda:0'
        device = device.strip().lower()
    if isinstance(device, int) and device < 0:
        raise ValueError(f"{name}={device} is a negative device index")
    try:
        dev = _parse_device(device)
    except (RuntimeError, ValueError) as exc:
        raise ValueError(f"{name}={device!r} is not a valid device string") from exc
    if dev.type == "cpu":
        if dev.index not in (None, 0):
            raise ValueError(f"{name}={dev} names a CPU index; the host is 'cpu'")
        return _CPU
    if dev.type != "cuda":
        raise ValueError(f"{name}={dev} is not supported: the target must be 'cpu' or a CUDA device")
    count = _cuda_device_count()
    if not count:
        raise ValueError(f"{name}={dev} but CUDA is not available in this process")
    index = torch.cuda.current_device() if dev.index is None else dev.index
    if not 0 <= index < count:
        raise ValueError(f"{name}={dev} but only {count} CUDA device(s) are visible")
    return dev if dev.index is not None else torch.device("cuda", index)


def target() -> Target:
    f = fork("b07", h2d={"_resolve_uncached": _resolve_uncached})
    return make_target(
        "b07_device_spelling_folded",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07"),
    )
