"""``CpuGpuBuffer`` row counts must be Python ints: numpy integers and 0-d tensors refused.

What changed: ``CpuGpuBuffer._rows`` took ``n`` through ``row_count``, which accepts anything
``operator.index`` accepts (a numpy integer, a 0-d integer tensor) and refuses bools,
floats, strings and other tensors. The change inlines a simpler test, ``isinstance(n, int)
and not isinstance(n, bool)``: "a row count is an int; be strict".

Why an engineer writes it: it reads stricter, it still refuses every non-integer the
contracts list (bool, float, str, ``torch.tensor([1])``), and ``operator.index`` is easy to
mistake for a coercion.

Promise broken: the buffer contract ("a non-integer ``n`` (a bool, a float, a string,
``torch.tensor([1])``) ``TypeError``"; an integer ``n`` in ``[0, capacity]`` copies rows
``[0, n)``) and ``row_count``'s docstring (a 0-d integer tensor is an int). Engines compute row
counts with numpy (``num_tokens = int(cu_lens[-1])`` is often written ``cu_lens[-1]``): a
``np.int64`` count now raises TypeError on a valid copy.

Smallest input: ``b = CpuGpuBuffer(4, dtype=torch.int32, device="cpu");
b.copy_to_gpu(np.int64(2))``: reference returns ``b.gpu[:2]`` (shape (2,)); bug ``TypeError: n
must be an int or None, got np.int64(2)``.
"""

from __future__ import annotations

from typing import Any

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import CpuGpuBuffer

from ._common import make_target


class IntRowsBuffer(CpuGpuBuffer):
    def _rows(self, n: Any) -> int | None:
        if n is None:
            return None
        # BUG: only Python ints (was: row_count, which takes any integer through operator.index)
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"n must be an int or None, got {n!r}")
        if not 0 <= n <= self.capacity:
            raise IndexError(f"n={n} is outside [0, {self.capacity}] (the buffer's row capacity)")
        return n


def target() -> Target:
    return make_target("b14_buffer_numpy_int_rows", buffer_cls=IntRowsBuffer)
