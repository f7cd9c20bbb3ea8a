"""Contract dtype: dtype= wins, else out.dtype, else the data's own; a disagreement with out is refused (host and primary GPU)."""

from h2d_contracts.contracts import dtype as P


def test_dtype_resolution(target, device):
    P.prop_dtype_resolution(target, device)


def test_dtype_mismatch(target, device):
    P.prop_dtype_mismatch(target, device)
