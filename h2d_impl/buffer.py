"""Reference ``CpuGpuBuffer``: a pinned host buffer paired with a device buffer.

Behaviour modelled on vLLM's ``vllm.v1.utils.CpuGpuBuffer`` (PR "Buffer util
simplifications"): ``.cpu``, ``.gpu`` and ``.np`` views and ``copy_to_gpu(n)`` /
``copy_to_cpu(n)`` of the first ``n`` rows. Made safe where the model is not: ``n`` is
bounds-checked (vLLM slices, so ``n`` beyond capacity is silently clamped and a
negative ``n`` copies all but the last rows).
"""

from __future__ import annotations

import contextlib
import operator
from typing import Any

import numpy as np
import torch

from ._host import check_dtype_arg, pin_memory_available
from ._staging import long_lived  # the context a buffer's own tensors are made in (state kept across steps)

__all__ = ["CpuGpuBuffer"]


def row_count(n: Any, capacity: int, of: str = "") -> int:
    """``n`` as a count of rows in ``[0, capacity]``: the ``n`` of ``copy_to_gpu(n)``, ``uva(n)`` and the like.

    Raises:
        TypeError: ``n`` is not an int (a bool, a float, a string, a tensor other than a
            0-d integer one), naming ``n``.
        IndexError: ``n`` is outside ``[0, capacity]``, naming ``n`` (and ``of``, what the
            capacity is, when given).
    """
    if isinstance(n, (bool, np.bool_)) or (
        isinstance(n, torch.Tensor)
        and (n.dim() != 0 or n.dtype is torch.bool or n.is_floating_point() or n.is_complex())
    ):
        raise TypeError(f"n must be an int or None, got {n!r}")
    try:
        rows = operator.index(n)
    except TypeError:
        raise TypeError(f"n must be an int or None, got {n!r}") from None
    if not 0 <= rows <= capacity:
        raise IndexError(f"n={rows} is outside [0, {capacity}]" + (f" ({of})" if of else ""))
    return rows


class CpuGpuBuffer:
    """A zero-initialised host buffer (``.cpu``, ``.np``) and its device twin (``.gpu``).

    Args:
        *size: the shape, at least one non-negative int; dimension 0 is the row
            (capacity) dimension that ``n`` counts.
        dtype: a torch dtype (keyword-only, required).
        device: the device of ``.gpu`` (``"cuda"``, ``"cuda:1"``, ``torch.device``, or
            ``"cpu"`` on CPU platforms), keyword-only, required.
        pin_memory: pin ``.cpu`` (page-locked). Default: :func:`pin_memory_available`.
            When pinning is asked for but unavailable (CPU-only torch), ``.cpu`` is
            pageable, as docs/reference.md specifies ("pinned when asked and available").
        with_numpy: also expose ``.np``, a ``numpy.ndarray`` sharing memory with
            ``.cpu``. numpy has no bfloat16 or float8 dtypes: asking for ``.np`` with
            those raises ValueError (vLLM raises ValueError for bfloat16 too).

    Attributes:
        cpu (torch.Tensor): host tensor of shape ``size``, pinned when asked and available.
        gpu (torch.Tensor): device tensor of shape ``size`` on ``device``.
        np (numpy.ndarray): view of ``cpu`` (AttributeError when ``with_numpy=False``).

    Raises:
        TypeError: a size that is not an int (bools included), a dtype that is not a
            supported torch dtype, a missing device, a non-bool ``pin_memory`` or
            ``with_numpy``.
        ValueError: no size, a negative size, a size too large to allocate, an invalid
            or unavailable device, ``with_numpy=True`` with a dtype numpy cannot represent.
    """

    def __init__(
        self,
        *size: int,
        dtype: torch.dtype,
        device: torch.device | str,
        pin_memory: bool | None = None,
        with_numpy: bool = True,
    ) -> None:
        if not size:
            raise ValueError("CpuGpuBuffer needs at least one size argument (the row capacity)")
        for i, s in enumerate(size):
            if isinstance(s, bool) or not isinstance(s, int):
                try:
                    if isinstance(s, bool):
                        raise TypeError
                    operator.index(s)
                except TypeError:
                    raise TypeError(f"size[{i}] must be an int, got {s!r}") from None
            if operator.index(s) < 0:
                raise ValueError(f"size[{i}]={s} is negative")
        size = tuple(operator.index(s) for s in size)
        check_dtype_arg(dtype)
        if dtype is None:
            raise TypeError("dtype is required: pass a torch.dtype such as torch.int32")
        if device is None:
            raise TypeError("device is required: pass 'cuda', 'cuda:1', a torch.device or 'cpu'")
        from .h2d import _resolve_device  # local: h2d imports this package's helpers

        device = _resolve_device(device)
        if pin_memory is not None and not isinstance(pin_memory, (bool, np.bool_)):
            raise TypeError(f"pin_memory must be a bool or None, got {pin_memory!r}")
        if not isinstance(with_numpy, (bool, np.bool_)):
            raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")
        if with_numpy and dtype not in _NUMPY_DTYPES:
            raise ValueError(
                f"dtype={dtype} has no numpy equivalent, so .np cannot be made: create the buffer with with_numpy=False"
            )
        # Pinned memory is allocated through the current device's CUDA context: make the
        # buffer's device current for it, or a buffer on cuda:1 creates a context on cuda:0
        # (the device-hygiene contract checks it).
        guard = torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()
        try:
            with long_lived():
                with guard:
                    if pin_memory is None:
                        pin_memory = pin_memory_available()
                    self.cpu = torch.zeros(
                        size, dtype=dtype, device="cpu", pin_memory=bool(pin_memory) and pin_memory_available()
                    )
                self.gpu = torch.zeros(size, dtype=dtype, device=device)
        except (RuntimeError, OverflowError, TypeError) as exc:
            raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
        self._np = self.cpu.numpy() if with_numpy else None

    @property
    def np(self) -> np.ndarray:
        """numpy view of ``.cpu`` (same memory); AttributeError if built with ``with_numpy=False``."""
        if self._np is None:
            raise AttributeError("this CpuGpuBuffer was created with with_numpy=False and has no .np view")
        return self._np

    @property
    def capacity(self) -> int:
        """Number of rows (``size[0]``): the largest valid ``n``."""
        return self.cpu.shape[0]

    def _rows(self, n: Any) -> int | None:
        return None if n is None else row_count(n, self.capacity, "the buffer's row capacity")

    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        """Copy rows ``[0, n)`` of ``.cpu`` to ``.gpu`` with ``non_blocking=True``.

        The copy is ordered on the current stream of ``.gpu``'s device. Rows from ``n``
        on are not touched. Hazard (as in vLLM): ``.cpu``/``.np`` rows ``[0, n)`` must
        not be rewritten until the copy has completed; wait with
        ``torch.cuda.current_stream(device).synchronize()`` or an event recorded right
        after this call.

        Args:
            n: number of rows, ``0 <= n <= capacity``; None copies the whole buffer.

        Returns:
            ``.gpu[:n]`` (a view of shape ``(n, *size[1:])``), or ``.gpu`` when ``n`` is None.

        Raises:
            TypeError: ``n`` is not an int (bools and floats included).
            IndexError: ``n`` outside ``[0, capacity]``; nothing is copied.
        """
        n = self._rows(n)
        if n is None:
            return self.gpu.copy_(self.cpu, non_blocking=True)
        return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

    def copy_to_cpu(self, n: int | None = None) -> torch.Tensor:
        """Copy rows ``[0, n)`` of ``.gpu`` back to ``.cpu`` with ``non_blocking=True``.

        The values in ``.cpu``/``.np`` are only valid after the copy has completed:
        synchronize the current stream of ``.gpu``'s device (or an event recorded
        after this call) before reading them. Rows from ``n`` on are not touched.

        Args:
            n: number of rows, ``0 <= n <= capacity``; None copies the whole buffer.

        Returns:
            ``.cpu[:n]``, or ``.cpu`` when ``n`` is None.

        Raises:
            TypeError: ``n`` is not an int.
            IndexError: ``n`` outside ``[0, capacity]``; nothing is copied.
        """
        n = self._rows(n)
        if n is None:
            return self.cpu.copy_(self.gpu, non_blocking=True)
        return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)

    def __repr__(self) -> str:
        return (
            f"CpuGpuBuffer(*{tuple(self.cpu.shape)}, dtype={self.cpu.dtype}, device={self.gpu.device}, "
            f"pinned={self.cpu.is_pinned() if pin_memory_available() else False})"
        )


# torch dtypes that have a numpy counterpart (``Tensor.numpy()`` works for them).
_NUMPY_DTYPES = frozenset(
    {
        torch.bool,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.float16,
        torch.float32,
        torch.float64,
        torch.complex64,
        torch.complex128,
    }
    | {getattr(torch, n) for n in ("uint16", "uint32", "uint64") if hasattr(torch, n)}
)
