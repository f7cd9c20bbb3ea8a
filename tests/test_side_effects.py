"""Contract side-effects: every call, valid or failing, leaves the process-wide state as it found it (host and primary GPU)."""

from h2d_contracts.contracts import side_effects as P
from h2d_contracts.harness.suite import contract_test

test_side_effects = contract_test(P.prop_side_effects)


test_buffer_side_effects = contract_test(P.prop_buffer_side_effects)


def test_side_effects_table(target, device):
    P.prop_side_effects_table(target, device)


def test_buffer_utils_side_effects(target, device):
    P.prop_buffer_utils_side_effects(target, device)
