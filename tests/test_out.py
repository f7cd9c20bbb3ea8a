"""Contract out: out itself returned, exactly its elements written, any other shape refused (host and primary GPU)."""

from h2d_contracts.contracts import out as P


def test_out_written(target, device):
    P.prop_out_written(target, device)


def test_out_dense_table(target, device):
    P.prop_out_dense_table(target, device)


def test_out_shape_rejected(target, device):
    P.prop_out_shape_rejected(target, device)


def test_out_shape_table(target, device):
    P.prop_out_shape_table(target, device)


def test_out_sizes(target, device):
    P.prop_out_sizes(target, device)


def test_out_autograd_table(target, device):
    P.prop_out_autograd_table(target, device)
