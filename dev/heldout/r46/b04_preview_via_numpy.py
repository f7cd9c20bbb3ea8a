"""b04 (CPU): the error-message preview of a list goes through numpy, which can raise itself.

Where: ``_host.describe`` (the ``{describe(data)}`` at the end of every refusal of a list:
ragged nesting, elements numpy cannot convert, non-numbers, huge ints). The reference
previews a list with ``repr``. The bug previews lists and tuples compactly with
``np.array2string(np.asarray(obj), threshold=8, edgeitems=2)`` ("a 4096-token list made
unreadable messages"). For exactly the lists being refused, ``np.asarray`` raises: the
refusal is replaced by numpy's own exception, which names nothing of the call.

Why realistic: a readability tweak of error messages, tested on the one refusal the
developer looked at (a list of strings, which numpy converts fine).

Smallest input: ``async_tensor_h2d([[1], [1, 2]], device="cpu")``. Reference:
``ValueError: data is a ragged nested sequence and has no rectangular shape: [[1], [1, 2]]``.
Bug: ``ValueError: setting an array element with a sequence. The requested array has an
inhomogeneous shape after 1 dimensions...`` (no ``data`` in it); a list holding a tensor
that requires grad raises numpy's ``RuntimeError`` instead of the reference's ``TypeError``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def describe(obj):
    """A short, reproducible description of a data/out argument for error messages."""
    if isinstance(obj, torch.Tensor):
        pinned = ""
        if obj.device.type == "cpu" and obj.layout == torch.strided and pin_memory_available():
            pinned = ", pinned" if obj.is_pinned() else ", pageable"
        return (
            f"Tensor(shape={tuple(obj.shape)}, dtype={obj.dtype}, device={obj.device}, "
            f"stride={obj.stride() if obj.layout == torch.strided else obj.layout}{pinned})"
        )
    if isinstance(obj, np.ndarray):
        return f"ndarray(shape={obj.shape}, dtype={obj.dtype}, strides={obj.strides})"
    if isinstance(obj, (list, tuple)):  # BUG (added): compact preview of long lists, through numpy
        text = np.array2string(np.asarray(obj), threshold=8, edgeitems=2)
    else:
        text = repr(obj)
    return text if len(text) <= 80 else text[:77] + "..."


def target() -> Target:
    f = fork("b04", _host={"describe": describe})
    return make_target(
        "b04_preview_via_numpy",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04"),
    )
