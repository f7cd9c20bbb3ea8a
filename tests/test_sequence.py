"""Contract sequence: persistent host objects refilled in place and uploaded again; every result matches the host at its call (host and primary GPU)."""

from h2d_contracts.contracts import sequence as P


def test_sequence_steps(target, device):
    P.prop_sequence_steps(target, device)


def test_sequence(target, device):
    P.prop_sequence(target, device)
