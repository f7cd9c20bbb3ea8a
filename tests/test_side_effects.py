"""Contract side-effects: every call, valid or failing, leaves the process-wide state as it found it (host and primary GPU)."""

from h2d_contracts.contracts import side_effects as P


def test_side_effects(target, device):
    P.prop_side_effects(target, device)


def test_buffer_side_effects(target, device):
    P.prop_buffer_side_effects(target, device)
