"""Imported by the reproduction server before it forks a process per script (:func:`harness.repro.verify`).

Loads (never calls) the targets named in ``$H2D_REPRO_PRELOAD`` (``;``-separated specs), so
their modules are imported once in the server instead of in every script's process.
"""

from __future__ import annotations

import os

import numpy  # noqa: F401 - imported for the forks
import torch  # noqa: F401

from . import load_target

for _spec in filter(None, os.environ.get("H2D_REPRO_PRELOAD", "").split(";")):
    try:
        load_target(_spec)
    except Exception:  # noqa: BLE001 - a target that cannot load here fails in its script, with its message
        pass
