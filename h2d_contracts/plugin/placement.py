"""xdist placement: ``-n auto`` on a CUDA host starts one worker per GPU, each worker uses its own; the controller's seed and answers go to every worker."""

from __future__ import annotations

import os

import pytest
import torch

from .state import active

__all__ = ["OneWorkerPerGPU", "bind_worker_to_gpu", "worker_index"]


def worker_index() -> int | None:
    """This xdist worker's index (``gw3`` -> 3), or None outside xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return int(worker[2:]) if worker and worker.startswith("gw") else None


def bind_worker_to_gpu() -> None:
    """Worker ``gwK`` uses GPU ``K mod count`` (``torch.cuda.set_device``), so each worker's primary device is its own."""
    index = worker_index()
    if index is not None and torch.cuda.is_available() and torch.cuda.device_count() > 1:
        torch.cuda.set_device(index % torch.cuda.device_count())


class OneWorkerPerGPU:
    """xdist hooks, optional (``optionalhook``): pytest-xdist may load after this plugin, or not at all (``-p no:xdist``)."""

    @staticmethod
    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
        """``-n auto`` on a CUDA host starts one worker per GPU (each worker owns its GPU)."""
        if not active(config):
            return None
        if torch.cuda.is_available() and torch.cuda.device_count() > 0:
            return torch.cuda.device_count()
        return None

    @staticmethod
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(node: object) -> None:
        """Hand the controller's answer to ``active`` and its Hypothesis seed to each worker."""
        config = node.config  # type: ignore[attr-defined]
        node.workerinput["h2d_active"] = active(config)  # type: ignore[attr-defined]
        node.workerinput["h2d_hypothesis_seed"] = config.getoption("hypothesis_seed", None)  # type: ignore[attr-defined]
