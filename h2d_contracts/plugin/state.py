"""The plugin's per-run state, kept in ``config.stash`` and ``item.stash`` under typed keys (as Hypothesis's plugin does)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from h2d_contracts import CHECKOUT, SUITE_DIR

__all__ = ["ItemState", "RunState", "INTERNAL_DIRS", "item_state", "run_state", "suite_item", "internal_item"]

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
    report: Any = None  # contracts.report.ConformanceReport on the controller
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
