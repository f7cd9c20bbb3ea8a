"""Contract bad-input: every kind of bad input raises its documented type, names the argument, writes nothing (host and primary GPU)."""

import pytest

from h2d_contracts.contracts import bad_input as P
from h2d_contracts.harness.suite import contract_test
from h2d_contracts.strategies.errors import BAD_INPUT_KINDS


def test_bad_input_value_table(target, device):
    P.prop_bad_input_value_table(target, device)


test_bad_input = pytest.mark.parametrize("kind", sorted(BAD_INPUT_KINDS))(
    contract_test(P.prop_bad_input, params=("kind",), extra=lambda kind: {"kinds": (kind,)})
)


def test_bad_input_kinds_table(target, device):
    P.prop_bad_input_kinds_table(target, device)


def test_bad_input_device_table(target, device):
    P.prop_bad_input_device_table(target, device)
