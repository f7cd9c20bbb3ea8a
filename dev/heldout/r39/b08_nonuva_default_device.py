"""b08 (CPU-visible, buffer_utils.py ``NonUvaBuffer.__init__``): without a ``device`` the twin is made on ``torch.get_default_device()``: under ``with torch.device("meta")`` (or any default device) a pool's slots and their readers live there.

What changed: the default ``device = "cuda" if torch.cuda.is_available() else "cpu"``
became ``device = torch.get_default_device()``.

Why an engineer would write it: vLLM's default is ``current_platform.device_type``, and
"the platform's device" reads like what the process set as its default device (engines
call ``torch.set_default_device("cuda")``; CPU tests leave it at ``cpu``); it also spares
the CUDA query. On a CPU-only host with no default device set it is ``cpu``, the
reference's answer, so the plain tests pass.

Promise broken: ``NonUvaBuffer`` docstring: "device: where the twin lives (default:
``cuda`` when available, else ``cpu``, as vLLM's ``current_platform.device_type``)";
docs/reference.md, Model Runner V2: "pools use ``NonUvaBuffer`` (... on a CPU-only
machine the twin is on the host)"; docs/reference.md, Calling contexts: "a default device
(``with torch.device("meta")``, ``torch.set_default_device``): no effect. Every tensor
the reference makes names its device".

Smallest input: ``with torch.device('meta'): v = UvaBufferPool(4, torch.int32).copy_to_uva([1, 2])``
(also ``UvaBackedTensor(4, torch.int32)`` built under the default device, or
``NonUvaBuffer(4, torch.int32).uva(2)``).

Reference result: ``v`` on ``cpu``, ``[1, 2]``.
Bug result: ``v`` on ``meta`` (no data: reading it raises); every later
``copy_to_uva``/``copy_to_gpu`` of that pool returns meta tensors, even outside the
context.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import make_target


def __init__(self, size: int | Sequence[int], dtype: torch.dtype, device: str | torch.device | None = None) -> None:
    shape, dtype = _shape(size), _dtype(dtype)
    if device is None:
        # BUG: was `device = "cuda" if torch.cuda.is_available() else "cpu"`; the caller's default device
        # (meta under `with torch.device("meta")`) now decides where the twin lives
        device = torch.get_default_device()
    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu")
    self.np = self.cpu.numpy()
    self._uva = torch.zeros(shape, dtype=dtype, device=device)


def target() -> Target:
    ns = bu_fork("b08", methods={"NonUvaBuffer": {"__init__": __init__}})
    return make_target("b08_nonuva_default_device", buffer_utils=ns)
