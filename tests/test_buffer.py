"""Contract buffer: CpuGpuBuffer's construction, views, row copies and op sequences (host and primary GPU)."""

from h2d_contracts.contracts import buffer as P
from h2d_contracts.harness.suite import contract_test

test_buffer_init = contract_test(P.prop_buffer_init)


def test_buffer_spellings(target, device):
    P.prop_buffer_spellings(target, device)


def test_buffer_wide_unsigned(target, device):
    P.prop_buffer_wide_unsigned(target, device)


def test_buffer_default_pinning(target, device):
    P.prop_buffer_default_pinning(target, device)


test_buffer_numpy_rejected = contract_test(P.prop_buffer_numpy_rejected)


def test_buffer_bad_args(target, device):
    P.prop_buffer_bad_args(target, device)


def test_buffer_bad_rows_after_valid(target, device):
    P.prop_buffer_bad_rows_after_valid(target, device)


def test_buffer_made_in_contexts(target, device):
    P.prop_buffer_made_in_contexts(target, device)


test_buffer_roundtrip = contract_test(P.prop_buffer_roundtrip)


test_buffer_copy = contract_test(P.prop_buffer_copy)


def test_buffer_copy_sizes(target, device):
    P.prop_buffer_copy_sizes(target, device)


test_buffer_bad_rows = contract_test(P.prop_buffer_bad_rows)


def test_buffer_state_machine(target, device):
    P.prop_buffer_state_machine(target, device)
