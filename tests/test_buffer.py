"""Contract buffer: CpuGpuBuffer's construction, views, row copies and op sequences (host and primary GPU)."""

from h2d_contracts.contracts import buffer as P


def test_buffer_init(target, device):
    P.prop_buffer_init(target, device)


def test_buffer_wide_unsigned(target, device):
    P.prop_buffer_wide_unsigned(target, device)


def test_buffer_numpy_rejected(target, device):
    P.prop_buffer_numpy_rejected(target, device)


def test_buffer_bad_args(target, device):
    P.prop_buffer_bad_args(target, device)


def test_buffer_roundtrip(target, device):
    P.prop_buffer_roundtrip(target, device)


def test_buffer_copy(target, device):
    P.prop_buffer_copy(target, device)


def test_buffer_copy_sizes(target, device):
    P.prop_buffer_copy_sizes(target, device)


def test_buffer_bad_rows(target, device):
    P.prop_buffer_bad_rows(target, device)


def test_buffer_state_machine(target, device):
    P.prop_buffer_state_machine(target, device)
