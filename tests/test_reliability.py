"""Reliability contracts: concurrency (host and GPU) and resource hygiene (GPU)."""

import pytest

from h2d_contracts.contracts import reliability as P


def test_concurrency(target, device):
    P.prop_concurrency(target, device)


def test_concurrency_default_stream(target, device):
    P.prop_concurrency_default_stream(target, device)


@pytest.mark.gpu
def test_hygiene(target, cuda_device):
    P.prop_hygiene(target, cuda_device)
