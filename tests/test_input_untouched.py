"""Contract input-untouched: the caller's data and out's surroundings are bit-identical after every call (host and primary GPU)."""

from h2d_contracts.contracts import input_untouched as P
from h2d_contracts.harness.suite import contract_test

test_input_untouched = contract_test(P.prop_input_untouched)


def test_input_untouched_table(target, device):
    P.prop_input_untouched_table(target, device)


def test_input_untouched_sizes(target, device):
    P.prop_input_untouched_sizes(target, device)
