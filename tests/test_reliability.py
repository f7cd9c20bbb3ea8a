"""Reliability contracts: concurrency (CPU and GPU) and resource hygiene (GPU).

Sizes follow issue 6: 8 threads x 10,000 calls; 100,000 calls for hygiene. On a
CPU-only CI machine the concurrency contract runs with device="cpu".
"""

import pytest
import torch

from h2d_contracts.contracts import properties as P
from h2d_contracts.contracts import reliability as rel


@pytest.mark.parametrize("own_streams", [True, False], ids=["own-streams", "default-stream"])
def test_concurrent_calls(target, device, own_streams):
    if device.type == "cpu" and not own_streams:
        pytest.skip("streams do not exist on the host: the own-streams case already covers CPU concurrency")
    if not target.supports_device(device):
        target.require("cuda", "concurrency")
    if own_streams:
        P.prop_concurrency(target, device)
    else:
        rel.check_concurrent_calls(target, device, threads=8, calls=10_000, own_streams=False)


@pytest.mark.gpu
def test_resource_hygiene(target, cuda_device):
    P.prop_hygiene(target, cuda_device)
