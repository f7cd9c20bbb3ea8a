"""Command-line options, markers and the kit's Hypothesis profiles."""

from __future__ import annotations

import argparse
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

__all__ = ["PROFILES", "add", "markers", "profile_name", "profiles", "register"]

#: The kit's Hypothesis profiles: name -> (settings, what it is for).
PROFILES: dict[str, tuple[dict[str, Any], str]] = {
    "default": (
        dict(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]),
        "CI and everyday runs: 40 examples a property, heavy ones capped",
    ),
    "dev": (
        dict(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow]),
        "quick local loops: a quarter of the default",
    ),
    "fuzz": (
        dict(max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck)),
        "long campaigns: 125 times the default",
    ),
}


def _positive_seconds(text: str) -> float:
    """``--h2d-verify-timeout``'s value: a number of seconds greater than 0.

    Raises argparse.ArgumentTypeError (pytest prints it as a usage error naming the option).
    """
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return seconds


def add(parser: pytest.Parser) -> None:
    """The kit's options (``pytest --help``, group h2d-contracts)."""
    group = parser.getgroup("h2d-contracts")
    group.addoption(
        "--h2d-impl",
        default=None,
        help="target under test: reference, reference-cpu, vllm, vllm-device-dtype, vllm-pin-memory, sglang, or package.module:factory (a factory returning h2d_contracts.contracts.Target); default: $H2D_IMPL or reference",
    )
    group.addoption(
        "--h2d-xfails",
        default=None,
        help="expected failures of the target, one 'node-id-prefix-or-contract-id [match=REGEX] [if=COND]  # reason' a line (default: xfails/<target name>.txt under the rootdir if it exists, else the kit's file for a built-in target; 'none' for no file). Write --h2d-xfails=PATH: pytest picks its rootdir before plugins load, so a separate existing PATH is taken for a test path",
    )
    group.addoption(
        "--h2d-example-db",
        default=None,
        metavar="none|PATH",
        help="Hypothesis example database: a directory (failing examples saved there and replayed first; the run keeps Hypothesis's random seeds) or 'none'; default: none, the kit forces one seed per run (chosen at random unless --hypothesis-seed) and prints it",
    )
    group.addoption(
        "--h2d-max-hangs",
        type=int,
        default=3,
        metavar="N",
        help="after N tests of one process ran past --timeout, its remaining tests fail at once as 'not run' (default 3; 0: never)",
    )
    group.addoption(
        "--h2d-report",
        default=None,
        metavar="PATH",
        help="write the conformance report to PATH.json and PATH.md, the reproductions to PATH.repro/ (PATH a directory: PATH/<target>.*)",
    )
    group.addoption(
        "--h2d-verify",
        default="on",
        choices=("on", "off"),
        help="run each distinct problem's reproduction in a fresh interpreter, against the target and the reference, and mark it verified (default on)",
    )
    group.addoption(
        "--h2d-verify-timeout",
        type=_positive_seconds,
        default=300.0,
        metavar="SECONDS",
        help="the most one reproduction may run in its fresh interpreter before it is killed and reported 'timed out' (default 300; each problem's seconds on the target and the reference are in the report)",
    )
    group.addoption(
        "--h2d-full-trace",
        action="store_true",
        default=False,
        help="show the full traceback of contract violations (default: the violation, its draws and its reproduction)",
    )


def markers(config: pytest.Config) -> None:
    """The kit's markers (registered in every session: ``--strict-markers`` runs of the user's own tests see them)."""
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped with a reason on CPU-only machines)")
    config.addinivalue_line("markers", "multi_gpu: needs two CUDA devices")
    config.addinivalue_line("markers", "meta: meta-tests of the kit itself (mutants, strategies, helpers)")
    config.addinivalue_line(
        "markers",
        "contract(*ids): catalogue ids a test exercises, when its body does not call a prop_*/check_* function",
    )


def register() -> None:
    """Register the kit's profiles and load ``$H2D_HYPOTHESIS_PROFILE`` (default ``default``).

    Every profile sets ``derandomize=False``: Hypothesis loads its ``ci`` profile when it finds a CI
    variable (``CI``, ``GITHUB_ACTIONS``, ...; Hypothesis's docs, "Settings profiles") and a profile
    registered without a parent inherits the loaded one, so under CI the kit's profiles would
    derandomize: the seed the kit chooses and prints would not be the one used (``derandomize``
    outranks ``--hypothesis-seed``), and HypoFuzz refuses every derandomized test.
    """
    for name, (kw, _) in PROFILES.items():
        settings.register_profile(name, derandomize=False, **kw)
    settings.load_profile(os.environ.get("H2D_HYPOTHESIS_PROFILE", "default"))


def profiles(config: pytest.Config) -> None:
    """Register the kit's profiles and load ``default`` (before Hypothesis's plugin reads ``--hypothesis-profile``).

    Raises pytest.UsageError naming the kit's profiles for an unknown ``--hypothesis-profile``
    (Hypothesis's own answer is an internal error of two dozen lines).
    """
    register()
    asked = config.getoption("hypothesis_profile", None)
    if asked is not None:
        try:
            settings.get_profile(asked)
        except Exception:  # noqa: BLE001 - hypothesis raises InvalidArgument
            known = ", ".join(f"{n} ({why})" for n, (_, why) in PROFILES.items())
            raise pytest.UsageError(
                f"--hypothesis-profile={asked!r} is not a registered profile; the kit's profiles: {known}"
            ) from None


def profile_name() -> str:
    """The loaded Hypothesis profile's name (``settings.get_current_profile_name()``, Hypothesis >= 6.107)."""
    get = getattr(settings, "get_current_profile_name", None)
    return get() if get is not None else "unknown"
