"""Contract values: the result equals data converted to the resolved dtype, on the requested device (host and primary GPU)."""

from h2d_contracts.contracts import values as P
from h2d_contracts.harness.suite import contract_test

test_values = contract_test(P.prop_values)


test_values_zero_length = contract_test(P.prop_values_zero_length)


test_values_pure_copy_bits = contract_test(P.prop_values_pure_copy_bits)


test_values_wide_numpy = contract_test(P.prop_values_wide_numpy)


test_values_large = contract_test(P.prop_values_large)


test_values_multi_mb = contract_test(P.prop_values_multi_mb)


def test_values_typed_leaves(target, device):
    P.prop_values_typed_leaves(target, device)


def test_values_first_call(target, device):
    P.prop_values_first_call(target, device)


def test_values_autograd_and_default_dtype(target, device):
    P.prop_values_autograd_and_default_dtype(target, device)


def test_values_dtype_matrix(target, device):
    P.prop_values_dtype_matrix(target, device)


def test_values_layouts(target, device):
    P.prop_values_layouts(target, device)


def test_values_product(target, device):
    P.prop_values_product(target, device)


def test_values_bool_bytes(target, device):
    P.prop_values_bool_bytes(target, device)


def test_values_lazy_tensors(target, device):
    P.prop_values_lazy_tensors(target, device)


def test_values_int_edges(target, device):
    P.prop_values_int_edges(target, device)


def test_values_fields(target, device):
    P.prop_values_fields(target, device)


def test_values_list_leaf_kinds(target, device):
    P.prop_values_list_leaf_kinds(target, device)


def test_values_numpy_error_state(target, device):
    P.prop_values_numpy_error_state(target, device)


def test_values_sizes(target, device):
    P.prop_values_sizes(target, device)


def test_values_rows(target, device):
    P.prop_values_rows(target, device)


test_values_log_sizes = contract_test(P.prop_values_log_sizes)


def test_values_conversion_sizes(target, device):
    P.prop_values_conversion_sizes(target, device)


def test_values_special_table(target, device):
    P.prop_values_special_table(target, device)
