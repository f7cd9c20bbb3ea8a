"""A kit session: whether this is one, the target (instrumented to count calls), the seed, the header, the expectations file."""

from __future__ import annotations

import dataclasses
import os
import platform
import random
from pathlib import Path

import pytest
import torch

from h2d_contracts import XFAILS_DIR
from h2d_contracts.contracts import CATALOGUE, load_target
from h2d_contracts.harness import accounting
from h2d_contracts.harness.target import instrumented
from h2d_contracts.plugin import expectations as X

from .options import profile_name
from .placement import bind_worker_to_gpu
from .state import active, run_state
from .timeouts import DEFAULT_TIMEOUT_S

__all__ = ["active", "configure", "header", "impl"]


def impl(config: pytest.Config) -> str:
    """The target spec: ``--h2d-impl``, else ``$H2D_IMPL``, else ``reference``."""
    return config.getoption("--h2d-impl", None) or os.environ.get("H2D_IMPL") or "reference"


def configure(config: pytest.Config) -> None:
    """Seed, timeout default, GPU binding, the target and the expectations: everything a kit session sets up."""
    state = run_state(config)
    # No --hypothesis-seed: choose one here and force it (Hypothesis's plugin reads the option
    # after this hook; placement hands it to xdist workers), so the header and the report print
    # the seed a failing run used and `--hypothesis-seed N` replays it. A forced seed turns
    # Hypothesis's example database off, so not when the user asks for a database.
    wants_db = config.getoption("--h2d-example-db", None) not in (None, "none")
    if config.getoption("hypothesis_seed", None) is None and not wants_db:
        if hasattr(config, "workerinput"):
            config.option.hypothesis_seed = config.workerinput.get("h2d_hypothesis_seed")
        else:
            config.option.hypothesis_seed = random.SystemRandom().randrange(2**32)
            state.seed_chosen = True
    if config.pluginmanager.has_plugin("timeout") and config.getoption("timeout", None) is None:
        if "PYTEST_TIMEOUT" not in os.environ and not config.getini("timeout"):
            config.option.timeout = DEFAULT_TIMEOUT_S
    bind_worker_to_gpu()
    spec = impl(config)
    source = (
        "--h2d-impl"
        if config.getoption("--h2d-impl") is not None
        else "H2D_IMPL (environment)"
        if os.environ.get("H2D_IMPL")
        else "the default target"
    )
    try:
        loaded = load_target(spec)
    except Exception as exc:  # a clear usage error naming the option, with what the loader said
        raise pytest.UsageError(f"{source}={spec!r} could not be loaded: {type(exc).__name__}: {exc}") from exc
    state.spec = spec
    state.target = instrumented(loaded, accounting.called)
    _load_xfails(config)


def _load_xfails(config: pytest.Config) -> None:
    state = run_state(config)
    target = state.target
    option = config.getoption("--h2d-xfails")
    if option == "none":
        path = None
    elif option:
        path = Path(config.invocation_params.dir, option)  # a relative path is taken from where pytest was started
        if not path.is_file():
            raise pytest.UsageError(f"--h2d-xfails={option!r}: no such file")
    else:
        # The user's repository first, then the kit's own file for a built-in target.
        candidates = [Path(config.rootpath, "xfails", f"{target.name}.txt"), XFAILS_DIR / f"{target.name}.txt"]
        path = next((c for c in candidates if c.is_file()), None)
    try:
        facts = {**X.machine_facts(), "version": target.version}
        entries, inactive = X.load_xfails(path, CATALOGUE, facts) if path else ([], 0)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from exc
    shown = None
    if path is not None:
        resolved, root = path.resolve(), Path(config.rootpath).resolve()
        shown = resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)
        # sources relative to the rootdir where they lie under it: the file's own entries and those it includes
        folder, shown_folder = path.parent.as_posix(), shown.rpartition("/")[0] or "."
        entries = [
            dataclasses.replace(
                e, source=e.source.replace(path.as_posix(), shown).replace(folder + "/", shown_folder + "/")
            )
            for e in entries
        ]
    entries, notes = X.translate_renamed(entries)
    state.xfails, state.xfails_file, state.xfails_inactive, state.renamed = entries, shown, inactive, notes


def header(config: pytest.Config) -> list[str]:
    """The report header: target, torch and devices, profile and seed, expectations."""
    state = run_state(config)
    target = state.target
    cuda = "no CUDA"
    if torch.cuda.is_available():
        names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        cuda = f"CUDA {torch.version.cuda}, {len(names)} device(s): {', '.join(names)}"
    seed = config.getoption("hypothesis_seed", None)
    lines = [
        f"h2d-contracts target: {target.name} (version {target.version}; capabilities {sorted(target.capabilities)}; inputs {sorted(target.inputs)})",
        f"torch {torch.__version__}, {cuda}, pinned memory {'available' if target.pin_memory_available() else 'unavailable'}",
        f"hypothesis profile: {profile_name()}, seed: {seed}"
        + (f" (chosen at random for this run: --hypothesis-seed {seed} replays it)" if state.seed_chosen else ""),
        f"python {platform.python_version()} on {platform.machine()}, H2D_IMPL={os.environ.get('H2D_IMPL', '<unset>')}",
        f"expected failures: {state.xfails_file or 'none'} ({len(state.xfails)} entries active here, {state.xfails_inactive} inactive by their if= conditions)",
    ]
    return lines + [f"expected failures: {note}" for note in state.renamed]
