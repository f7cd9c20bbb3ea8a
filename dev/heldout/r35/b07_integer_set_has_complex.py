"""b07 (CPU): the set of integer dtypes is built without excluding complex dtypes.

The change: ``_host._INTEGER_DTYPES = frozenset(dt for dt in SUPPORTED_DTYPES if not
dt.is_floating_point and not dt.is_complex and dt is not torch.bool)`` lost its
``not dt.is_complex`` term (``check_representable`` is the reference's, reading the
changed constant).

Why an engineer writes it: "integer = neither floating point nor bool" is the usual
shorthand (``torch.dtype`` has ``is_floating_point`` but no ``is_integer``), and complex
dtypes are rare in an inference engine's inputs.

What breaks: complex targets are valid (``SUPPORTED_DTYPES``; values contract: every
dtype); ``check_representable`` now treats complex64/complex128 as integer targets and
calls ``torch.iinfo`` on them: ``async_tensor_h2d([1], dtype=torch.complex64,
device="cpu")`` raises ``TypeError`` instead of returning ``[1+0j]``. Any real data into a
complex dtype fails.
"""

from __future__ import annotations

import torch

from h2d_contracts.h2d_impl._host import SUPPORTED_DTYPES

from ._common import fork, fork_target

_INTEGER_DTYPES = frozenset(
    dt for dt in SUPPORTED_DTYPES if not dt.is_floating_point and dt is not torch.bool  # BUG: complex not excluded
)


def target():
    return fork_target("b07-integer-set-has-complex", fork("b07", _host={"_INTEGER_DTYPES": _INTEGER_DTYPES}))
