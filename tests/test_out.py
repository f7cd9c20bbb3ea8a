"""Contract out: out itself returned, exactly its elements written, any other shape refused (host and primary GPU)."""

from h2d_contracts.contracts import out as P
from h2d_contracts.harness.suite import contract_test

test_out_written = contract_test(P.prop_out_written)


def test_out_dense_table(target, device):
    P.prop_out_dense_table(target, device)


test_out_shape_rejected = contract_test(P.prop_out_shape_rejected)


def test_out_shape_table(target, device):
    P.prop_out_shape_table(target, device)


def test_out_sizes(target, device):
    P.prop_out_sizes(target, device)


def test_out_autograd_table(target, device):
    P.prop_out_autograd_table(target, device)
