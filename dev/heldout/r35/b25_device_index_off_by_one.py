"""b25 (GPU only): the CUDA device index is validated with ``<= count``.

The change: in ``h2d._resolve_uncached``, ``if not 0 <= index < count`` became
``if not 0 <= index <= count``.

Why an engineer writes it: the check was rewritten next to the buffer's row check
(``0 <= rows <= capacity``, where the upper bound is valid) and copied its shape.

What breaks (CUDA only: without CUDA ``count`` is 0 and "CUDA is not available" is raised
first, exactly as in the reference): ``device="cuda:K"`` (or ``K``, ``torch.device("cuda",
K)``) with ``K`` equal to the number of visible devices must raise ``ValueError`` naming
``device`` (docs/reference.md "Errors"; bad-input kind ``missing-cuda-index``). Here it
passes validation, and torch fails later with its own ``RuntimeError`` (an internal
assert in ``getCurrentCUDAStream`` when the staging pool asks for the stream of device K,
or ``AcceleratorError: invalid device ordinal`` for a pinned input DMA'd directly):
``async_tensor_h2d([1], device="cuda:1")`` on a one-GPU machine. Seen on one H200 (torch
2.11, ``_to_device`` called with ``cuda:1`` as this validation lets it): ``RuntimeError:
Device index value 1 is out of index range [0, 1)``.
"""

from __future__ import annotations

from ._common import fork, fork_target


def _resolve_uncached(device, name):
    if isinstance(device, (bool, np.bool_)) or not isinstance(device, (torch.device, str, int, np.integer)):
        raise TypeError(f"{name} must be a torch.device, str or int, got {device!r}")
    if isinstance(device, np.integer):
        device = int(device)
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
    if not 0 <= index <= count:  # BUG: was < count
        raise ValueError(f"{name}={dev} but only {count} CUDA device(s) are visible")
    return dev if dev.index is not None else torch.device("cuda", index)


def target():
    return fork_target("b25-device-index-off-by-one", fork("b25", h2d={"_resolve_uncached": _resolve_uncached}))
