"""Adapters that turn downstream implementations into :class:`contracts.Target` objects.

- :mod:`h2d_adapters.vllm_targets`: the installed ``vllm`` package, current signature
  (``--h2d-impl vllm``) and the two older ones (``vllm-device-dtype``,
  ``vllm-pin-memory``); :func:`adapt_device_dtype` / :func:`adapt_pin_memory` wrap a
  fork's function of an older signature.
- :mod:`h2d_adapters._source`: load one class or function from a module's source file
  without importing the module (for modules whose import is heavy or patches torch).

Nothing here imports vLLM at import time: the factories do, when a target is loaded.
"""

from .vllm_targets import (
    SIGNATURES,
    adapt_device_dtype,
    adapt_pin_memory,
    vllm_device_dtype_target,
    vllm_pin_memory_target,
    vllm_target,
)

__all__ = [
    "SIGNATURES",
    "adapt_device_dtype",
    "adapt_pin_memory",
    "vllm_device_dtype_target",
    "vllm_pin_memory_target",
    "vllm_target",
]
