"""Contract cpu-path: the CPU-platform variant agrees with the main path, and meets every host contract as an entry point of its own."""

import pytest

from h2d_contracts.contracts import cpu_path as P
from h2d_contracts.harness.registry import PROPERTIES
from h2d_contracts.harness.suite import contract_test

test_cpu_path = contract_test(P.prop_cpu_path, device_arg="cpu_device")


def test_cpu_variant_devices(target, device):
    """Run on each device the suite tests (a CUDA host's [cuda] item is where a variant delegating to the main path shows)."""
    P.prop_cpu_variant_devices(target, device)


#: Contracts every entry point must meet: the CPU-platform variant runs them too (on the host).
ENTRY_POINT_CONTRACTS = ("values", "dtype", "out", "target", "no-alias", "bad-input", "input-untouched")


@pytest.mark.parametrize(
    "prop",
    [
        pytest.param(p, id=p.__name__.removeprefix("prop_"), marks=pytest.mark.contract(cid))
        for cid in ENTRY_POINT_CONTRACTS
        for p in PROPERTIES[cid]
    ],
)
def test_cpu_variant(target, prop):
    """The CPU-platform variant, as an entry point of its own, meets every host contract (not only agreement with the main path)."""
    import torch

    # the size ladders at every other octave and the top, for cost: the main path runs every rung
    prop(
        target.cpu_variant_target(),
        torch.device("cpu"),
        **({"ladder": "sparse"} if getattr(prop, "ladder", False) else {}),
    )
