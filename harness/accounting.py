"""How many calls the current test made into the target (the plugin's check that a test judged what it called).

The plugin wraps the selected target with :func:`contracts.targets.instrumented`, whose
hook is :func:`called`; it resets the count before each test (:func:`reset`) and reads it
after (:func:`count`). A contract that runs the target in a fresh process reports the
child's calls here too (:func:`contracts.targets.run_fresh`). Process-wide and thread-safe
enough for its one question, "did this test call the target at all".
"""

from __future__ import annotations

__all__ = ["called", "count", "reset"]

_calls = [0]


def called() -> None:
    """One more call into the target (any thread)."""
    _calls[0] += 1


def reset() -> None:
    """A new test starts."""
    _calls[0] = 0


def count() -> int:
    """Calls into the target since the last :func:`reset`."""
    return _calls[0]
