"""Contracts values, dtype, out, target, no-alias, bad-input, input-untouched, cpu-path: on the host and the primary GPU."""

import pytest

from h2d_contracts.contracts import properties as P
from h2d_contracts.contracts.errors import BAD_INPUT_KINDS


def test_values(target, device):
    P.prop_values(target, device)


def test_values_zero_length(target, device):
    P.prop_values_zero_length(target, device)


def test_values_pure_copy_bits(target, device):
    P.prop_values_pure_copy_bits(target, device)


def test_values_wide_numpy_sources(target, device):
    P.prop_values_wide_numpy(target, device)


def test_values_large(target, device):
    P.prop_values_large(target, device)


def test_values_multi_mb(target, device):
    P.prop_values_multi_mb(target, device)


def test_values_typed_leaves(target, device):
    P.prop_values_typed_leaves(target, device)


def test_values_autograd_and_default_dtype(target, device):
    P.prop_values_autograd_and_default_dtype(target, device)


def test_values_dtype_matrix(target, device):
    P.prop_values_dtype_matrix(target, device)


def test_values_layouts(target, device):
    P.prop_values_layouts(target, device)


def test_values_product(target, device):
    P.prop_values_product(target, device)


def test_dtype_resolution(target, device):
    P.prop_dtype_resolution(target, device)


def test_dtype_mismatch_rejected(target, device):
    P.prop_dtype_mismatch(target, device)


def test_out_written_exactly(target, device):
    P.prop_out_written(target, device)


def test_values_first_call(target, device):
    P.prop_values_first_call(target, device)


def test_out_dense_table(target, device):
    P.prop_out_dense_table(target, device)


def test_out_shape_rejected(target, device):
    P.prop_out_shape_rejected(target, device)


def test_out_shape_table(target, device):
    P.prop_out_shape_table(target, device)


def test_no_target_rejected(target, device):
    P.prop_no_target(target, device)


def test_no_alias(target, device):
    P.prop_no_alias(target, device)


def test_no_alias_every_layout(target, device):
    P.prop_no_alias_layouts(target, device)


def test_bad_input_value_table(target, device):
    P.prop_bad_input_value_table(target, device)


@pytest.mark.parametrize("kind", sorted(BAD_INPUT_KINDS))
def test_bad_input(target, device, kind):
    P.prop_bad_input(target, device, kinds=(kind,))


def test_input_untouched(target, device):
    P.prop_input_untouched(target, device)


def test_input_untouched_table(target, device):
    P.prop_input_untouched_table(target, device)


def test_cpu_path_agrees(target):
    import torch

    P.prop_cpu_path(target, torch.device("cpu"))


#: Contracts every entry point must meet: the CPU-platform variant runs them too (on the host).
ENTRY_POINT_CONTRACTS = ("values", "dtype", "out", "target", "no-alias", "bad-input", "input-untouched")


@pytest.mark.parametrize(
    "prop",
    [pytest.param(p, id=p.__name__.removeprefix("prop_"), marks=pytest.mark.contract(cid)) for cid in ENTRY_POINT_CONTRACTS for p in P.PROPERTIES[cid]],
)
def test_cpu_variant(target, prop):
    """The CPU-platform variant, as an entry point of its own, meets every host contract (not only agreement with the main path)."""
    import torch

    prop(target.cpu_variant_target(), torch.device("cpu"))
