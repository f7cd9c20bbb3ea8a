"""A pytest plugin for tests/meta/test_runner_bounds.py: the device-loss probe reads ``_runner_targets.DEVICE_ERROR``.

Loaded with ``-p tests.meta._simulated_device_loss`` (in every xdist worker too): on a CPU host
no kernel can fault, so the probe (:func:`h2d_contracts.harness.device.context_error`, which the
runner and the plugin's ``device_loss`` both read) is replaced by one that reports the error the
targets ``loses_device`` and ``loses_device_then_raises`` of ``tests.meta._runner_targets``
record. A fresh worker process starts with none: a fresh context.
"""

from __future__ import annotations

from h2d_contracts.harness import device
from tests.meta import _runner_targets


def _probe() -> str | None:
    return _runner_targets.DEVICE_ERROR[0] if _runner_targets.DEVICE_ERROR else None


device.context_error = _probe
