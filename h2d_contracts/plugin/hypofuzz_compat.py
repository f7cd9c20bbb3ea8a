"""Two workarounds that let HypoFuzz 25.11.1 fuzz the contract suite as a whole (applied only inside HypoFuzz).

Written here, not upstream, because the release of HypoFuzz the kit is fuzzed with (25.11.1, the
latest on 2026-12-02) has both faults; ``dev/hypofuzz/test_switch.py`` shows them without the kit:

- **A worker cannot switch between tests that take fixtures.** ``FuzzTarget._enter_fixtures``
  reuses the pytest item's ``FixtureRequest`` of the item's first setup; after HypoFuzz's
  teardown (``teardown_exact(None)``) that request still holds the torn-down fixture
  definitions, and ``getfixturevalue`` fails ("The fixture value for ... is not available").
  Fix: a fresh request (``Function._initrequest()``, what pytest itself does for a new item)
  before HypoFuzz enters the fixtures again.
- **With Hypothesis 6.158 or later a worker stops at its first failure**: HypoFuzz copies
  ``shrinker.shrink_target.slice_comments``, which Hypothesis 6.158.0 renamed
  ``span_comments``. Fix: ``slice_comments`` as an alias of ``span_comments`` on Hypothesis's
  ``ConjectureResult`` and ``ConjectureData``.

:func:`apply` is called by the plugin when ``hypofuzz.hypofuzz`` is imported (HypoFuzz's
worker collects the tests in-process) and HypoFuzz's version is one of :data:`AFFECTED`;
with any other version it does nothing.
"""

from __future__ import annotations

import sys
from typing import Any

#: HypoFuzz releases with both faults (checked by dev/hypofuzz/test_switch.py).
AFFECTED = frozenset({"25.11.1"})

__all__ = ["AFFECTED", "apply"]


def apply() -> bool:
    """Patch the running HypoFuzz (if it is an affected release); returns whether it did."""
    module = sys.modules.get("hypofuzz.hypofuzz")
    if module is None or getattr(module, "_h2d_compat", False):
        return False
    from importlib.metadata import version

    if version("hypofuzz") not in AFFECTED:
        return False
    target_cls = module.FuzzTarget
    enter = target_cls._enter_fixtures

    def _enter_fixtures(self: Any) -> None:
        item = self.pytest_item
        if item is not None and hasattr(item, "_initrequest"):
            item._initrequest()  # a fresh FixtureRequest: the old one holds torn-down fixture definitions
        enter(self)

    target_cls._enter_fixtures = _enter_fixtures
    from hypothesis.internal.conjecture.data import ConjectureData, ConjectureResult

    if not hasattr(ConjectureResult, "slice_comments"):
        ConjectureResult.slice_comments = property(lambda self: self.span_comments)  # type: ignore[attr-defined]
    if not hasattr(ConjectureData, "slice_comments"):

        def _set(self: Any, value: Any) -> None:
            self.span_comments = value

        ConjectureData.slice_comments = property(lambda self: self.span_comments, _set)  # type: ignore[attr-defined]
    module._h2d_compat = True  # type: ignore[attr-defined]
    return True
