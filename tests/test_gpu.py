"""GPU-only contracts: staging, non-blocking, snapshot, stream, device-hygiene (skipped with a reason without CUDA)."""

import pytest

from h2d_contracts.contracts import gpu as P

pytestmark = pytest.mark.gpu


def test_staging(target, cuda_device):
    P.prop_staging(target, cuda_device)


def test_staging_strided_pinned(target, cuda_device):
    P.prop_staging_strided_pinned(target, cuda_device)


def test_pinned_not_restaged(target, cuda_device):
    P.prop_pinned_not_restaged(target, cuda_device)


def test_non_blocking(target, cuda_device):
    P.prop_non_blocking(target, cuda_device)


def test_buffer_non_blocking(target, cuda_device):
    P.prop_buffer_non_blocking(target, cuda_device)


def test_snapshot(target, cuda_device):
    P.prop_snapshot(target, cuda_device)


def test_snapshot_converted_pinned(target, cuda_device):
    P.prop_snapshot_converted_pinned(target, cuda_device)


def test_back_to_back(target, cuda_device):
    P.prop_back_to_back(target, cuda_device)


def test_back_to_back_idle(target, cuda_device):
    P.prop_back_to_back_idle(target, cuda_device)


def test_pinned_hazard(target, cuda_device):
    P.prop_pinned_hazard(target, cuda_device)


def test_buffer_hazard(target, cuda_device):
    P.prop_buffer_hazard(target, cuda_device)


def test_stream(target, cuda_device):
    P.prop_stream(target, cuda_device)


@pytest.mark.multi_gpu
def test_cross_device(target, cuda_device):
    P.prop_cross_device(target, cuda_device)


@pytest.mark.multi_gpu
def test_device_hygiene(target, cuda_device):
    P.prop_device_hygiene(target, cuda_device)
