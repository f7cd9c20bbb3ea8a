"""b12 (CPU): ``torch.complex32`` is added to ``SUPPORTED_DTYPES``.

The change: ``_host.SUPPORTED_DTYPES`` gained ``torch.complex32`` (``torch.chalf``); every
check reads the changed constant (``check_dtype_arg`` for ``dtype``/``out.dtype``, the
data-tensor dtype test in ``as_source_tensor``).

Why an engineer writes it: the comment says complex32 has no CPU copy kernel, but
torch 2.13's CPU ``copy_`` into and out of ComplexHalf works, so the allow-list looks
stale; adding it "supports half-precision complex activations".

What breaks: complex32 is documented as unsupported, refused with ``TypeError`` naming the
argument (bad-input kinds ``unsupported-dtype``, ``complex32-tensor-data``,
``out-unsupported-dtype``; docs/contracts.md): ``async_tensor_h2d([0],
dtype=torch.complex32, device="cpu")`` returns a complex32 tensor (and emits torch's
"ComplexHalf support is experimental" ``UserWarning``) instead of raising.
"""

from __future__ import annotations

import torch

from h2d_contracts.h2d_impl._host import SUPPORTED_DTYPES as _REFERENCE_SUPPORTED

from ._common import fork, fork_target

SUPPORTED_DTYPES = _REFERENCE_SUPPORTED | {torch.complex32}  # BUG: ComplexHalf "supported" (the list looked stale)


def target():
    return fork_target("b12-complex32-supported", fork("b12", _host={"SUPPORTED_DTYPES": SUPPORTED_DTYPES}))
