"""Contracts uva, pool, staged-write, fused-writes: Model Runner V2's transfer utilities (target capability buffer-utils)."""

import pytest

from h2d_contracts.contracts import buffer_utils as P
from h2d_contracts.harness.suite import contract_test

test_staged_writes = contract_test(P.prop_staged_writes)


def test_staged_chunks(target, device):
    P.prop_staged_chunks(target, device)


def test_staged_dtypes(target, device):
    P.prop_staged_dtypes(target, device)


def test_staged_overlaps(target, device):
    P.prop_staged_overlaps(target, device)


def test_staged_far_past(target, device):
    P.prop_staged_far_past(target, device)


def test_staged_edges(target, device):
    P.prop_staged_edges(target, device)


def test_staged_bad_values(target, device):
    P.prop_staged_bad_values(target, device)


def test_staged_array_values(target, device):
    P.prop_staged_array_values(target, device)


test_fused_writes = contract_test(P.prop_fused_writes)


def test_fused_tables_reordered(target, device):
    P.prop_fused_tables_reordered(target, device)


test_pool_steps = contract_test(P.prop_pool_steps)


def test_pools_interleaved(target, device):
    P.prop_pools_interleaved(target, device)


def test_pool_rows(target, device):
    P.prop_pool_rows(target, device)


def test_uva_rows(target, device):
    P.prop_uva_rows(target, device)


def test_uva_kernel_time(target, device):
    P.prop_uva_kernel_time(target, device)


def test_pool_growth_released(target, device):
    P.prop_pool_growth_released(target, device)


def test_pool_depth(target, device):
    P.prop_pool_depth(target, device)


def test_pool_long_steps(target, device):
    P.prop_pool_long_steps(target, device)


test_backed_steps = contract_test(P.prop_backed_steps)


def test_backed_rows(target, device):
    P.prop_backed_rows(target, device)


def test_fused_refused(target, device):
    P.prop_fused_refused(target, device)


def test_fused_some_empty(target, device):
    P.prop_fused_some_empty(target, device)


def test_pool_state(target, device):
    P.prop_pool_state(target, device)


def test_fused_subsets(target, device):
    P.prop_fused_subsets(target, device)


def test_staged_stream_order(target, device):
    P.prop_staged_stream_order(target, device)


def test_uva_in_contexts(target, device):
    P.prop_uva_in_contexts(target, device)


def test_pool_in_contexts(target, device):
    P.prop_pool_in_contexts(target, device)


def test_staged_in_contexts(target, device):
    P.prop_staged_in_contexts(target, device)


def test_buffer_utils_non_blocking(target, device):
    # a CUDA-only contract: its [cpu] item is skipped like tests/test_gpu.py's, so that on a host without CUDA the
    # contract reads "not run here" (needs a GPU), not "not applicable" (a capability the target lacks)
    if device.type != "cuda":
        pytest.skip("GPU-only contract: the host has no stream to queue work on")
    P.prop_buffer_utils_non_blocking(target, device)
