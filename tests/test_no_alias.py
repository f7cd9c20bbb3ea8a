"""Contract no-alias: the result never shares memory with the input (host and primary GPU)."""

from h2d_contracts.contracts import no_alias as P
from h2d_contracts.harness.suite import contract_test

test_no_alias = contract_test(P.prop_no_alias)


def test_no_alias_layouts(target, device):
    P.prop_no_alias_layouts(target, device)


def test_no_alias_sizes(target, device):
    P.prop_no_alias_sizes(target, device)
