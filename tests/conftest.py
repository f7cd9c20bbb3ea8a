"""Fixtures of the contract suite (``h2d_contracts.tests``): the target, the devices.

They live next to the suite, not in the plugin, so a user's own ``target`` or ``device``
fixture in a rootdir ``conftest.py`` never replaces them for the kit's tests (the closest
conftest wins), and the kit's never replace the user's for theirs.
"""

from __future__ import annotations

import pytest
import torch

from h2d_contracts.contracts import Target


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    """The Target selected with --h2d-impl (its calls counted per test: a test that never calls it cannot pass)."""
    from h2d_contracts.plugin.state import run_state

    return run_state(pytestconfig).target


def _devices() -> list:
    devs = [pytest.param(torch.device("cpu"), id="cpu")]
    if torch.cuda.is_available():
        devs.append(pytest.param("cuda-current", id="cuda", marks=pytest.mark.gpu))
    else:
        devs.append(
            pytest.param(
                "cuda-current",
                id="cuda",
                marks=[pytest.mark.gpu, pytest.mark.skip(reason="no CUDA device on this machine")],
            )
        )
    return devs


@pytest.fixture(scope="session", params=_devices())
def device(request: pytest.FixtureRequest) -> torch.device:
    """Each contract runs on the host and on the primary CUDA device (``cuda:{current_device()}``, never bare "cuda")."""
    if request.param == "cuda-current":
        return torch.device("cuda", torch.cuda.current_device())
    return request.param


@pytest.fixture(scope="session")
def cpu_device() -> torch.device:
    """The host, for a contract only the host means (the CPU-platform variant's agreement with the main path)."""
    return torch.device("cpu")


@pytest.fixture(scope="session")
def cuda_device() -> torch.device:
    """The primary CUDA device; skips GPU-only tests on CPU-only machines."""
    if not torch.cuda.is_available():
        pytest.skip("GPU-only contract: no CUDA device on this machine")
    return torch.device("cuda", torch.cuda.current_device())
