"""GPU-only contracts: staging, non-blocking, snapshot, stream, device-hygiene (skipped with a reason without CUDA)."""

import pytest

from h2d_contracts.contracts import gpu as P
from h2d_contracts.harness.suite import contract_test

pytestmark = pytest.mark.gpu


test_staging = contract_test(P.prop_staging, device_arg="cuda_device")


test_staging_strided_pinned = contract_test(P.prop_staging_strided_pinned, device_arg="cuda_device")


test_pinned_not_restaged = contract_test(P.prop_pinned_not_restaged, device_arg="cuda_device")


def test_staging_fresh_default_device(target, cuda_device):
    P.prop_staging_fresh_default_device(target, cuda_device)


test_non_blocking = contract_test(P.prop_non_blocking, device_arg="cuda_device")


test_buffer_non_blocking = contract_test(P.prop_buffer_non_blocking, device_arg="cuda_device")


test_small_calls_non_blocking = contract_test(P.prop_small_calls_non_blocking, device_arg="cuda_device")


test_snapshot = contract_test(P.prop_snapshot, device_arg="cuda_device")


def test_snapshot_converted_pinned(target, cuda_device):
    P.prop_snapshot_converted_pinned(target, cuda_device)


test_back_to_back = contract_test(P.prop_back_to_back, device_arg="cuda_device")


def test_back_to_back_idle(target, cuda_device):
    P.prop_back_to_back_idle(target, cuda_device)


test_pinned_hazard = contract_test(P.prop_pinned_hazard, device_arg="cuda_device")


def test_idle_stream_never_waits(target, cuda_device):
    P.prop_idle_stream_never_waits(target, cuda_device)


def test_other_thread_work_never_waited(target, cuda_device):
    P.prop_other_thread_work_never_waited(target, cuda_device)


def test_per_thread_streams(target, cuda_device):
    P.prop_per_thread_streams(target, cuda_device)


def test_buffer_fresh(target, cuda_device):
    P.prop_buffer_fresh(target, cuda_device)


def test_queued_past_cap(target, cuda_device):
    P.prop_queued_past_cap(target, cuda_device)


def test_non_blocking_after_trims(target, cuda_device):
    P.prop_non_blocking_after_trims(target, cuda_device)


def test_cap_wait_for_oldest_copy(target, cuda_device):
    P.prop_cap_wait_for_oldest_copy(target, cuda_device)


def test_pinned_hazard_small(target, cuda_device):
    P.prop_pinned_hazard_small(target, cuda_device)


test_buffer_hazard = contract_test(P.prop_buffer_hazard, device_arg="cuda_device")


test_stream = contract_test(P.prop_stream, device_arg="cuda_device")


test_cross_device = pytest.mark.multi_gpu(contract_test(P.prop_cross_device, device_arg="cuda_device"))


@pytest.mark.multi_gpu
def test_device_hygiene(target, cuda_device):
    P.prop_device_hygiene(target, cuda_device)
