"""pytest plumbing for h2d-contracts: target selection, profiles, markers, devices, report header.

Options:
    --h2d-impl NAME   target under test: a built-in (reference, reference-cpu) or
                      package.module:factory. Default: $H2D_IMPL, else "reference".

Hypothesis profiles (``--hypothesis-profile NAME``): ``default`` (the CPU suite in a
few minutes on 2 cores), ``dev`` (quick), ``fuzz`` (many examples; long campaigns).
"""

from __future__ import annotations

import os
import platform

import pytest
import torch
from hypothesis import HealthCheck, settings

from contracts import NotApplicable, load_target

settings.register_profile("default", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "fuzz",
    max_examples=5000,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("H2D_HYPOTHESIS_PROFILE", "default"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("h2d-contracts")
    group.addoption(
        "--h2d-impl",
        default=os.environ.get("H2D_IMPL", "reference"),
        help="target under test: reference, reference-cpu, or package.module:factory (default: $H2D_IMPL or reference)",
    )


def _xdist_worker_index() -> int | None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # "gw3" under pytest-xdist
    return int(worker[2:]) if worker and worker.startswith("gw") else None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped with a reason on CPU-only machines)")
    config.addinivalue_line("markers", "multi_gpu: needs two CUDA devices")
    config.addinivalue_line("markers", "meta: meta-tests of the kit itself (mutants, strategies, helpers)")
    # Under `pytest -n auto` with several GPUs, worker gwK uses GPU K mod count.
    index = _xdist_worker_index()
    if index is not None and torch.cuda.is_available() and torch.cuda.device_count() > 1:
        torch.cuda.set_device(index % torch.cuda.device_count())
    try:
        config._h2d_target = load_target(config.getoption("--h2d-impl"))  # type: ignore[attr-defined]
    except Exception as exc:  # noqa: BLE001 - surface a clear usage error naming the option
        raise pytest.UsageError(f"--h2d-impl={config.getoption('--h2d-impl')!r} could not be loaded: {exc}") from exc


def pytest_report_header(config: pytest.Config) -> list[str]:
    target = config._h2d_target  # type: ignore[attr-defined]
    cuda = "no CUDA"
    if torch.cuda.is_available():
        names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        cuda = f"CUDA {torch.version.cuda}, {len(names)} device(s): {', '.join(names)}"
    seed = config.getoption("hypothesis_seed", None)
    return [
        f"h2d-contracts target: {target.name} (version {target.version}; capabilities {sorted(target.capabilities)})",
        f"torch {torch.__version__}, {cuda}, pinned memory {'available' if target.pin_memory_available() else 'unavailable'}",
        f"hypothesis profile: {settings._current_profile}, seed: {seed if seed is not None else 'random (pass --hypothesis-seed to fix)'}",
        f"python {platform.python_version()} on {platform.machine()}, H2D_IMPL={os.environ.get('H2D_IMPL', '<unset>')}",
    ]


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config):
    """The Target selected with --h2d-impl."""
    return pytestconfig._h2d_target  # type: ignore[attr-defined]


def _devices() -> list:
    devs = [pytest.param(torch.device("cpu"), id="cpu")]
    if torch.cuda.is_available():
        devs.append(pytest.param("cuda-current", id="cuda", marks=pytest.mark.gpu))
    else:
        devs.append(pytest.param("cuda-current", id="cuda", marks=[pytest.mark.gpu, pytest.mark.skip(reason="no CUDA device on this machine")]))
    return devs


@pytest.fixture(scope="session", params=_devices())
def device(request: pytest.FixtureRequest) -> torch.device:
    """Each contract runs on the host and on the primary CUDA device (``cuda:{current_device()}``, never bare "cuda")."""
    if request.param == "cuda-current":
        return torch.device("cuda", torch.cuda.current_device())
    return request.param


@pytest.fixture(scope="session")
def cuda_device() -> torch.device:
    """The primary CUDA device; skips GPU-only tests on CPU-only machines."""
    if not torch.cuda.is_available():
        pytest.skip("GPU-only contract: no CUDA device on this machine")
    return torch.device("cuda", torch.cuda.current_device())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    try:
        return (yield)
    except NotApplicable as exc:
        pytest.skip(f"not applicable: {exc}")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` on a CUDA host starts one worker per GPU (each worker owns its GPU, see pytest_configure)."""
    if torch.cuda.is_available() and torch.cuda.device_count() > 0:
        return torch.cuda.device_count()
    return None
