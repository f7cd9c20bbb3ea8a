"""Mutants that break the buffer contract: each the reference with one realistic bug."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import torch

from h2d_contracts import h2d_impl

from ..targets import Target
from .base import ReferenceBuffer, mutant, reference_target

_P = ParamSpec("_P")
_T = TypeVar("_T")


@mutant(killed_by=("buffer",))
def copy_to_gpu_no_bounds_check() -> Target:
    """copy_to_gpu/copy_to_cpu slice without a bounds check (vLLM): n=136 on capacity 132 is clamped, n=-1 drops a row."""

    class B(ReferenceBuffer):
        def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
            if n is None:
                return self.gpu.copy_(self.cpu, non_blocking=True)
            return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

        def copy_to_cpu(self, n: int | None = None) -> torch.Tensor:
            if n is None:
                return self.cpu.copy_(self.gpu, non_blocking=True)
            return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)

    return reference_target("copy_to_gpu_no_bounds_check", buffer_cls=B)


@mutant(killed_by=("buffer",))
def copy_to_gpu_off_by_one() -> Target:
    """copy_to_gpu(n) copies n + 1 rows (the `num_reqs + 1` confusion), clobbering row n of .gpu."""

    class B(ReferenceBuffer):
        def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
            if n is None:
                return super().copy_to_gpu(None)
            self._rows(n)
            self.gpu[: n + 1].copy_(self.cpu[: n + 1], non_blocking=True)
            return self.gpu[:n]

    return reference_target("copy_to_gpu_off_by_one", buffer_cls=B)


def _int_rows(n: Any) -> int | None:
    """A row count as the reference takes it, before any bounds: None, or an int (a bool refused)."""
    if n is None:
        return None
    if isinstance(n, bool):
        raise TypeError(f"n must be an int, got {n!r}")
    return operator.index(n)


@mutant(killed_by=("buffer",))
def negative_n_accepted() -> Target:
    """the bounds check tests only the upper end: copy_to_gpu(-2) silently copies all rows but the last two."""

    class B(ReferenceBuffer):
        def _rows(self, n: Any) -> int | None:
            rows = _int_rows(n)
            if rows is not None and rows > self.capacity:
                raise IndexError(f"n={rows} > capacity {self.capacity}")
            return rows

    return reference_target("negative_n_accepted", buffer_cls=B)


@mutant(killed_by=("buffer",))
def n_beyond_capacity_clamped() -> Target:
    """n beyond capacity is clamped with min(n, capacity) instead of rejected (capacity 132, asked 136: 4 rows lost)."""

    class B(ReferenceBuffer):
        def _rows(self, n: Any) -> int | None:
            rows = _int_rows(n)
            if rows is not None and rows < 0:
                raise IndexError(f"n={rows} is negative")
            return None if rows is None else min(rows, self.capacity)

    return reference_target("n_beyond_capacity_clamped", buffer_cls=B)


@mutant(killed_by=("buffer",))
def copy_to_cpu_wrong_rows() -> Target:
    """copy_to_cpu(n) reads the last n rows of .gpu instead of the first n."""

    class B(ReferenceBuffer):
        def copy_to_cpu(self, n: int | None = None) -> torch.Tensor:
            n = self._rows(n)
            if n is None:
                return super().copy_to_cpu(None)
            start = self.capacity - n
            return self.cpu[:n].copy_(self.gpu[start:], non_blocking=True)

    return reference_target("copy_to_cpu_wrong_rows", buffer_cls=B)


@mutant(killed_by=("buffer",))
def numpy_view_is_a_copy() -> Target:
    """.np is a copy of .cpu (`.numpy().copy()`), so writes through .np never reach the device."""

    class B(ReferenceBuffer):
        def __init__(self, *size: int, **kw: Any) -> None:
            super().__init__(*size, **kw)
            if self._np is not None:
                self._np = self._np.copy()

    return reference_target("numpy_view_is_a_copy", buffer_cls=B)


@mutant(killed_by=("buffer",))
def copy_to_cpu_returns_gpu_view() -> Target:
    """copy_to_cpu(n) copies the right rows but returns ``.gpu[:n]`` (the source) instead of ``.cpu[:n]``."""

    class B(ReferenceBuffer):
        def copy_to_cpu(self, n: int | None = None) -> torch.Tensor:
            super().copy_to_cpu(n)
            return self.gpu if n is None else self.gpu[: self._rows(n)]

    return reference_target("copy_to_cpu_returns_gpu_view", buffer_cls=B)


@mutant(killed_by=("buffer",), needs="no-pinning")
def buffer_pin_without_fallback() -> Target:
    """CpuGpuBuffer passes ``pin_memory=True`` straight to torch: on a host without pinned memory the constructor raises RuntimeError."""

    class B(ReferenceBuffer):
        def __init__(
            self,
            *size: int,
            dtype: torch.dtype,
            device: torch.device | str,
            pin_memory: bool | None = None,
            with_numpy: bool = True,
        ) -> None:
            if pin_memory:
                torch.zeros(1, pin_memory=True)  # the unguarded allocation (raises where pinning is unavailable)
            super().__init__(*size, dtype=dtype, device=device, pin_memory=pin_memory, with_numpy=with_numpy)

    return reference_target("buffer_pin_without_fallback", buffer_cls=B)


@mutant(killed_by=("buffer",))
def buffer_asserts_its_arguments() -> Target:
    """CpuGpuBuffer validates its size with ``assert`` (vLLM's style): AssertionError, and under ``python -O`` a negative size reaches torch."""

    class B(ReferenceBuffer):
        def __init__(
            self,
            *size: int,
            dtype: torch.dtype,
            device: torch.device | str,
            pin_memory: bool | None = None,
            with_numpy: bool = True,
        ) -> None:
            assert size and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in size), size
            super().__init__(*size, dtype=dtype, device=device, pin_memory=pin_memory, with_numpy=with_numpy)

    return reference_target("buffer_asserts_its_arguments", buffer_cls=B)


@mutant(killed_by=("buffer",))
def buffer_refusals_name_nothing() -> Target:
    """CpuGpuBuffer and its copies refuse bad arguments with the right exception types but bare messages ("invalid argument")."""

    def bare(fn: Callable[_P, _T]) -> Callable[_P, _T]:
        def wrapped(*args: _P.args, **kwargs: _P.kwargs) -> _T:
            try:
                return fn(*args, **kwargs)
            except (TypeError, ValueError, IndexError) as exc:
                raise type(exc)("invalid argument") from None

        return wrapped

    class B(ReferenceBuffer):
        __init__ = bare(h2d_impl.CpuGpuBuffer.__init__)
        copy_to_gpu = bare(h2d_impl.CpuGpuBuffer.copy_to_gpu)
        copy_to_cpu = bare(h2d_impl.CpuGpuBuffer.copy_to_cpu)

    return reference_target("buffer_refusals_name_nothing", buffer_cls=B)


@mutant(killed_by=("buffer",))
def numpy_view_none_without_numpy() -> Target:
    """with_numpy=False leaves ``.np = None`` ("always defined") where AttributeError is documented."""

    class B(ReferenceBuffer):
        @property
        def np(self) -> Any:
            try:
                return super().np
            except AttributeError:
                return None

    return reference_target("numpy_view_none_without_numpy", buffer_cls=B)


@mutant(killed_by=("buffer",))
def wide_unsigned_numpy_refused() -> Target:
    """A buffer's numpy dtype table lacks uint16/uint32/uint64: such buffers with ``.np`` raise ValueError."""

    class B(ReferenceBuffer):
        def __init__(self, *size: Any, **kwargs: Any) -> None:
            wide = (getattr(torch, "uint16", None), getattr(torch, "uint32", None), getattr(torch, "uint64", None))
            if kwargs.get("dtype") in wide and kwargs.get("with_numpy", True):
                raise ValueError(f"dtype={kwargs['dtype']} has no numpy dtype for .np")
            super().__init__(*size, **kwargs)

    return reference_target("wide_unsigned_numpy_refused", buffer_cls=B)
