"""The h2d-contracts pytest plugin: target selection, profiles, markers, expectations, the verdict.

Registered through the ``pytest11`` entry point ``h2d_contracts`` (pyproject.toml), so
installing the kit is enough: in any repository,

    pytest --pyargs h2d_contracts.tests --h2d-impl mypkg.h2d:target -n auto

runs the packaged contract suite against ``mypkg.h2d:target``. The plugin stays inert in a
session that neither runs the kit's suite nor names a target (``--h2d-impl`` or
``$H2D_IMPL``): a project that merely has the kit installed keeps its own Hypothesis
profile, seeds, ``-n auto`` and timeouts.

What it does in a kit session, by module:

- :mod:`.options`: the command-line options and Hypothesis profiles;
- :mod:`.session`: loading the target (counting the calls each test makes into it), the
  seed, the report header, the expectations file;
- :mod:`.outcomes`: each test's outcome: not applicable, expected failures (strict), a test
  that passed without calling the target (a kit error), timeouts;
- :mod:`.verdict`: the conformance report, the digest of distinct problems and their
  reproductions, verified in fresh interpreters;
- :mod:`.timeouts`: per-test time limits a hang cannot escape; :mod:`.placement`: one GPU
  per xdist worker.
"""

from __future__ import annotations

import pytest

from . import hypofuzz_compat, options, outcomes, placement, session, timeouts, verdict
from .state import run_state

__all__ = ["pytest_addhooks", "pytest_addoption", "pytest_configure"]


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    # Registered whatever the plugin order: their hooks are optional, so pytest accepts them
    # when pytest-xdist or pytest-timeout is not (yet) loaded and calls them once it is.
    pluginmanager.register(placement.OneWorkerPerGPU(), "h2d-one-worker-per-gpu")
    pluginmanager.register(timeouts.TimeoutHooks(), "h2d-timeout")


@pytest.hookimpl(tryfirst=True)  # before pytest-timeout and Hypothesis's plugin read their settings
def pytest_configure(config: pytest.Config) -> None:
    options.markers(config)
    hypofuzz_compat.apply()  # inside a HypoFuzz worker only (docs: CONTRIBUTING.md, fuzzing)
    if not session.active(config):
        return
    run_state(config).active = True
    options.profiles(config)
    session.configure(config)
    config.pluginmanager.register(outcomes.Outcomes(), "h2d-outcomes")
    if not hasattr(config, "workerinput"):  # the controller (or the only process): the verdict
        config.pluginmanager.register(verdict.Verdict(config), "h2d-verdict")
