"""Contract target: neither device nor out given is refused with TypeError (host)."""

from h2d_contracts.contracts import no_target as P
from h2d_contracts.harness.suite import contract_test

test_no_target = contract_test(P.prop_no_target)
