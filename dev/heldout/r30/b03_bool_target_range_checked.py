"""``torch.bool`` counts as an integer dtype in the range check, so every conversion into bool raises.

``_INTEGER_DTYPES`` written as "not floating point and not complex" without excluding
bool: a non-bool source going into ``dtype=torch.bool`` (or a bool ``out``) reaches
``torch.iinfo(torch.bool)``, which raises ``TypeError``. Documented: anything converts to
bool (nonzero is True), so ``async_tensor_h2d([1], dtype=torch.bool, device="cpu")`` gives
``tensor([True])``; here it raises ``TypeError: torch.bool is not supported by torch.iinfo``.
"""

from __future__ import annotations

import torch

from h2d_contracts.h2d_impl import _host, h2d

from ._common import make_target
from ._patch import entry_points, rebind

#: BUG: bool is neither floating point nor complex, but it is no integer range either.
_INTEGER_DTYPES = frozenset(dt for dt in _host.SUPPORTED_DTYPES if not dt.is_floating_point and not dt.is_complex)
assert torch.bool in _INTEGER_DTYPES

check_representable = rebind(_host.check_representable, _INTEGER_DTYPES=_INTEGER_DTYPES)


def target():
    fn, cpu = entry_points(prepare=rebind(h2d._prepare, check_representable=check_representable))
    return make_target("b03-bool-target-range-checked", fn=fn, cpu_variant=cpu)
