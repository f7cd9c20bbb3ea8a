"""A pytest plugin for tests/meta/test_runner_bounds.py: the device-loss probe reads ``_runner_targets.DEVICE_ERROR``.

Loaded with ``-p tests.meta._simulated_device_loss``: on a CPU host no kernel can fault, so
the probe (:func:`h2d_contracts.plugin.device_loss.probe`) is replaced by one that reports
the error ``tests.meta._runner_targets:loses_device`` records.
"""

from __future__ import annotations

from h2d_contracts.plugin import device_loss
from tests.meta import _runner_targets


def _probe() -> str | None:
    return _runner_targets.DEVICE_ERROR[0] if _runner_targets.DEVICE_ERROR else None


device_loss.probe = _probe
