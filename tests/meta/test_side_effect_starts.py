"""Meta-tests of the side-effects contract's starting states: a persistent change is seen even after an earlier call of
the same process made it (every check compares one call's before and after)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from h2d_contracts.contracts.mutants import MUTANTS
from h2d_contracts.contracts.side_effects import check_side_effects
from h2d_contracts.harness.violations import ContractViolation

pytestmark = pytest.mark.meta


def test_a_numpy_buffer_size_left_by_an_earlier_call_is_still_seen():
    """Held-out round r50 raised numpy's ufunc buffer size in a large copy and never put it back. In a suite the first
    such call changes it and later checks start from the changed value: "as found" sees nothing, "as the process
    started" puts numpy's buffer size back first, so every call that raises it is caught."""
    target = MUTANTS["numpy_bufsize_left_raised"].factory()
    data, kwargs = np.arange(40_000, dtype=np.int32), {"device": torch.device("cpu")}
    was = np.getbufsize()
    try:
        target.call(data, kwargs)  # an earlier test's call: the process is left with the raised size
        assert np.getbufsize() != was
        check_side_effects(target, data, kwargs, start="as found")  # unchanged by this call: nothing to see
        with pytest.raises(ContractViolation, match=r"numpy\.getbufsize\(\)"):
            check_side_effects(target, data, kwargs, start="as the process started")
    finally:
        np.setbufsize(was)
