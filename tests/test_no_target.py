"""Contract target: neither device nor out given is refused with TypeError (host)."""

from h2d_contracts.contracts import no_target as P


def test_no_target(target, device):
    P.prop_no_target(target, device)
