"""Contract dtype: dtype= wins, else out.dtype, else the data's own; a disagreement with out is refused (host and primary GPU)."""

from h2d_contracts.contracts import dtype as P
from h2d_contracts.harness.suite import contract_test

test_dtype_resolution = contract_test(P.prop_dtype_resolution)


test_dtype_mismatch = contract_test(P.prop_dtype_mismatch)
