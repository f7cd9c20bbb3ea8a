"""Contract no-alias: the result never shares memory with the input (host and primary GPU)."""

from h2d_contracts.contracts import no_alias as P


def test_no_alias(target, device):
    P.prop_no_alias(target, device)


def test_no_alias_layouts(target, device):
    P.prop_no_alias_layouts(target, device)


def test_no_alias_sizes(target, device):
    P.prop_no_alias_sizes(target, device)
