"""The plugin's per-run state, kept in ``config.stash`` and ``item.stash`` under typed keys (as Hypothesis's plugin does),
and whether a session is a kit session at all (:func:`active`, read by the session and the xdist hooks)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from h2d_contracts import CHECKOUT, SUITE_DIR

__all__ = ["INTERNAL_DIRS", "ItemState", "RunState", "active", "internal_item", "item_state", "run_state", "suite_item"]

#: Folders of the checkout's ``tests/`` that are not the contract suite: the reference's own
#: tests and the kit's meta-tests. Selected by where they live; never run, counted or shipped
#: as a downstream target's.
INTERNAL_DIRS = ("reference", "meta")


@dataclass
class RunState:
    """What one pytest run of the kit knows (the controller's and each xdist worker's own copy)."""

    active: bool = False
    target: Any = None  # contracts.Target, as the tests see it (instrumented: calls are counted)
    spec: str = ""
    xfails: list[Any] = field(default_factory=list)
    xfails_file: str | None = None
    xfails_inactive: int = 0
    renamed: list[str] = field(default_factory=list)  # notes on translated old test ids
    seed_chosen: bool = False
    report: Any = None  # plugin.report.ConformanceReport on the controller
    digest: list[str] = field(default_factory=list)  # terminal lines, written at session finish


@dataclass
class ItemState:
    """What the plugin attaches to one collected test."""

    contracts: set[str] = field(default_factory=set)
    canonical: str = ""
    xfail: list[Any] = field(default_factory=list)


_RUN = pytest.StashKey[RunState]()
_ITEM = pytest.StashKey[ItemState]()


def run_state(config: pytest.Config) -> RunState:
    """The run's state (created empty on first use)."""
    state = config.stash.get(_RUN, None)
    if state is None:
        state = config.stash[_RUN] = RunState()
    return state


def item_state(item: pytest.Item) -> ItemState:
    """A test's state (created empty on first use)."""
    state = item.stash.get(_ITEM, None)
    if state is None:
        state = item.stash[_ITEM] = ItemState()
    return state


def suite_item(item: pytest.Item) -> bool:
    """Whether ``item`` is a test of the kit's contract suite (the checkout's ``tests/`` outside :data:`INTERNAL_DIRS`, or the installed one)."""
    suite = SUITE_DIR.resolve()
    path = Path(item.path).resolve()
    if suite not in path.parents:
        return False
    return not internal_item(item)


def internal_item(item: pytest.Item) -> bool:
    """Whether ``item`` is one of the reference's own tests or the kit's meta-tests (checkout only)."""
    if not CHECKOUT:
        return False
    path = Path(item.path).resolve()
    return any(SUITE_DIR.resolve() / name in path.parents for name in INTERNAL_DIRS)


_ACTIVE = pytest.StashKey[bool]()


def active(config: pytest.Config) -> bool:
    """Whether this session is a kit session: it names a target or runs the kit's suite.

    True when ``--h2d-impl`` or ``$H2D_IMPL`` is given, when an argument is the packaged
    suite (``--pyargs h2d_contracts.tests[...]``) or a path in it, or, in the kit's own
    checkout, a folder that contains it (``pytest`` at the top runs ``testpaths = tests``).
    An xdist worker takes its controller's answer. Cached in the config's stash.
    """
    cached = config.stash.get(_ACTIVE, None)
    if cached is not None:
        return cached
    if hasattr(config, "workerinput"):
        answer = bool(config.workerinput.get("h2d_active", False))
    else:
        answer = _names_kit(config)
    config.stash[_ACTIVE] = answer
    return answer


def _names_kit(config: pytest.Config) -> bool:
    if config.getoption("--h2d-impl", None) is not None or os.environ.get("H2D_IMPL"):
        return True
    suite = SUITE_DIR.resolve()
    pyargs = bool(getattr(config.option, "pyargs", False))
    for arg in getattr(config, "args", None) or []:
        head = str(arg).split("::", 1)[0]
        if pyargs and (head == "h2d_contracts" or head.startswith(("h2d_contracts.tests", "h2d_contracts/tests"))):
            return True
        path = Path(config.invocation_params.dir, head).resolve()
        if path == suite or suite in path.parents or (CHECKOUT and path in suite.parents):
            return True
    return False
