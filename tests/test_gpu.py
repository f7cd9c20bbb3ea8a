"""GPU-only contracts: staging, non-blocking, snapshot, stream (skipped with a reason without CUDA)."""

import pytest

from contracts import properties as P

pytestmark = pytest.mark.gpu


def test_staging(target, cuda_device):
    P.prop_staging(target, cuda_device)


def test_staging_strided_pinned_view(target, cuda_device):
    P.prop_staging_strided_pinned(target, cuda_device)


def test_pinned_input_not_restaged(target, cuda_device):
    P.prop_pinned_not_restaged(target, cuda_device)


def test_non_blocking(target, cuda_device):
    P.prop_non_blocking(target, cuda_device)


def test_buffer_copies_non_blocking(target, cuda_device):
    P.prop_buffer_non_blocking(target, cuda_device)


def test_snapshot(target, cuda_device):
    P.prop_snapshot(target, cuda_device)


def test_snapshot_back_to_back(target, cuda_device):
    P.prop_back_to_back(target, cuda_device)


def test_pinned_hazard_documented(target, cuda_device):
    P.prop_pinned_hazard(target, cuda_device)


def test_buffer_hazard_documented(target, cuda_device):
    P.prop_buffer_hazard(target, cuda_device)


def test_stream_current(target, cuda_device):
    P.prop_stream(target, cuda_device)


@pytest.mark.multi_gpu
def test_cross_device(target, cuda_device):
    P.prop_cross_device(target, cuda_device)


@pytest.mark.multi_gpu
def test_device_hygiene(target, cuda_device):
    P.prop_device_hygiene(target, cuda_device)
