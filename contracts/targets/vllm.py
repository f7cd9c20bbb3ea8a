"""Targets for the installed ``vllm`` package: the current signature and the two older ones.

vLLM's ``async_tensor_h2d`` has had three signatures (read from the published wheels):

============================================  ==========================  ====================
signature                                     releases seen               built-in target
============================================  ==========================  ====================
``(data, device=None, dtype=None, out=None)``  0.30.0 - 0.33.0             ``vllm``
``(data, device, dtype=None)``                 0.24.0, 0.27.0 - 0.29.0     ``vllm-device-dtype``
``(data, dtype, target_device, pin_memory)``   0.10.0 - 0.20.0 (0.21.0:    ``vllm-pin-memory``
                                               ``(data, dtype, device,
                                               pin_memory=PIN_MEMORY)``,
                                               same positions)
============================================  ==========================  ====================

How the code under test is loaded (only what the contracts call is loaded, and only
vLLM's own code runs):

- ``async_tensor_h2d`` and ``PIN_MEMORY``: a normal ``import vllm.utils.torch_utils``
  (needs ``regex`` and, on the CPU platform, ``psutil`` besides torch and numpy).
- ``CpuGpuBuffer``: the class is loaded from the source of ``vllm/v1/utils.py`` with
  :func:`contracts.targets.source.load_definitions`, globals ``torch``, ``np`` and
  ``PIN_MEMORY`` (the real one, from ``vllm.utils.torch_utils``). Importing that
  module would need about 15 more distributions (uvloop, zmq, pydantic, transformers,
  openai...) for code the buffer does not use.
- The CPU-worker variant: ``async_tensor_h2d`` from the source of
  ``vllm/v1/worker/cpu/shm.py`` (releases that have it), globals ``torch``, ``np``,
  ``Any``. Importing that module would monkey-patch torch for the whole process
  (``torch.Tensor.pin_memory`` becomes a no-op, ``torch.cuda.Stream`` a placeholder...)
  and replace ``vllm.utils.torch_utils.async_tensor_h2d`` itself; vLLM does that in CPU
  worker processes, where the variant *replaces* the main function.

Pinned memory: vLLM decides once, at import, with ``current_platform.is_pin_memory_available()``
(``PIN_MEMORY``). On a machine without CUDA, a generic (non-``+cpu``) wheel resolves to
``UnspecifiedPlatform``, whose answer is True, and every call would then fail in
``torch.tensor(..., pin_memory=True)``. vLLM's own setting for a CPU host is
``VLLM_TARGET_DEVICE=cpu`` (the ``+cpu`` wheels imply it), which selects ``CpuPlatform``
whose answer is False. So when CUDA is unavailable and ``VLLM_TARGET_DEVICE`` is unset,
these factories set it to ``cpu`` before importing vLLM: the target behaves as vLLM on a
machine without pinned memory (``PIN_MEMORY=False``). Releases whose detection ignores
``VLLM_TARGET_DEVICE`` (0.27.0) still answer True there; then, and only then, the
adapter sets the module constant ``PIN_MEMORY`` to False (see :func:`_pin_memory_flag`)
and says so in the target's notes.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from . import Target, torch_pin_memory_available
from .adapters import adapt_device_dtype, adapt_pin_memory
from .source import load_definitions

__all__ = [
    "SIGNATURES",
    "repro_preamble",
    "vllm_device_dtype_target",
    "vllm_pin_memory_target",
    "vllm_target",
]

#: signature name -> positional parameter names of ``async_tensor_h2d``.
SIGNATURES: dict[str, tuple[str, ...]] = {
    "current": ("data", "device", "dtype", "out"),
    "device-dtype": ("data", "device", "dtype"),
    "pin-memory": ("data", "dtype", "target_device", "pin_memory"),
    "pin-memory-0.21": ("data", "dtype", "device", "pin_memory"),
}

_BUILTIN_FOR = {"current": "vllm", "device-dtype": "vllm-device-dtype", "pin-memory": "vllm-pin-memory", "pin-memory-0.21": "vllm-pin-memory"}




def _import_torch_utils() -> tuple[Any, str]:
    """Import ``vllm.utils.torch_utils`` as vLLM would on this machine; return it and vLLM's version."""
    if not torch.cuda.is_available():
        os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    try:
        import vllm.utils.torch_utils as tu
        from vllm.version import __version__
    except ImportError as exc:
        raise ImportError(
            f"the vllm targets need the vllm package: {exc}. Install it without its dependency tree: "
            "pip install --no-deps vllm==0.33.0 regex psutil"
        ) from exc
    return tu, __version__


#: How the last factory call settled PIN_MEMORY (for the target's notes and the report).
_PIN_HOW = {"how": ""}


def _pin_memory_flag(tu: Any) -> bool:
    """vLLM's answer (``PIN_MEMORY``, or ``is_pin_memory_available()`` in releases without the constant), made honest.

    Where vLLM believes it can pin but torch cannot (a release whose platform detection
    ignores ``VLLM_TARGET_DEVICE``, e.g. 0.27.0 with a generic wheel on a CPU-only
    host), the module constant ``vllm.utils.torch_utils.PIN_MEMORY`` is set to False:
    the value vLLM's ``CpuPlatform.is_pin_memory_available()`` returns, i.e. vLLM as it
    runs on a machine without pinned memory. This is the only change made to vLLM, and
    the target's notes record it.
    """
    if hasattr(tu, "PIN_MEMORY"):
        flag = bool(tu.PIN_MEMORY)
    else:
        from vllm.utils.platform_utils import is_pin_memory_available

        flag = bool(is_pin_memory_available())
    _PIN_HOW["how"] = "vLLM's own platform detection"
    if flag and not torch_pin_memory_available():
        if hasattr(tu, "PIN_MEMORY"):
            tu.PIN_MEMORY = False
        flag = False
        _PIN_HOW["how"] = "set to False by the adapter: vLLM's platform detection said True but torch cannot pin here"
    return flag


def _signature_of(fn: Callable[..., Any]) -> str:
    params = tuple(inspect.signature(fn).parameters)
    for name, want in SIGNATURES.items():
        if params == want:
            return name
    return "unknown " + str(params)


def _check_signature(fn: Callable[..., Any], expected: tuple[str, ...], version: str, builtin: str) -> None:
    sig = _signature_of(fn)
    if sig not in expected:
        hint = _BUILTIN_FOR.get(sig)
        raise ValueError(
            f"--h2d-impl {builtin}: the installed vllm {version} has async_tensor_h2d{inspect.signature(fn)}"
            + (f"; use --h2d-impl {hint}" if hint else "; no built-in adapter for it, write one (README: Downstream targets)")
        )


def _vllm_root() -> Path:
    spec = importlib.util.find_spec("vllm")
    assert spec is not None and spec.submodule_search_locations  # vllm was imported just before
    return Path(list(spec.submodule_search_locations)[0])


def _load_buffer_cls(tu: Any) -> type | None:
    """``CpuGpuBuffer`` from the source of ``vllm/v1/utils.py`` (see the module docstring), or None."""
    path = _vllm_root() / "v1" / "utils.py"
    if not path.exists() or "class CpuGpuBuffer" not in path.read_text():
        return None
    ns = {"torch": torch, "np": np}
    if hasattr(tu, "PIN_MEMORY"):
        ns["PIN_MEMORY"] = tu.PIN_MEMORY
    return load_definitions(path, ["CpuGpuBuffer"], ns, "vllm.v1.utils")["CpuGpuBuffer"]


def _load_cpu_variant() -> Callable[..., torch.Tensor] | None:
    """The CPU-worker ``async_tensor_h2d`` from the source of ``vllm/v1/worker/cpu/shm.py``, or None."""
    path = _vllm_root() / "v1" / "worker" / "cpu" / "shm.py"
    if not path.exists() or "def async_tensor_h2d" not in path.read_text():
        return None
    return load_definitions(path, ["async_tensor_h2d"], {"torch": torch, "np": np, "Any": Any}, "vllm.v1.worker.cpu.shm")["async_tensor_h2d"]


# --------------------------------------------------------------------------- built-in vllm targets


def _pin_note(flag: bool) -> str:
    where = f"VLLM_TARGET_DEVICE={os.environ.get('VLLM_TARGET_DEVICE', '<unset>')}"
    return f"vLLM PIN_MEMORY={flag} ({_PIN_HOW['how']}; {where}; CUDA {'available' if torch.cuda.is_available() else 'unavailable'})"


def vllm_target() -> Target:
    """``--h2d-impl vllm``: the installed vLLM with the current signature ``(data, device=None, dtype=None, out=None)``.

    Main function ``vllm.utils.torch_utils.async_tensor_h2d``; ``CpuGpuBuffer`` from
    ``vllm/v1/utils.py`` and the CPU-worker variant from ``vllm/v1/worker/cpu/shm.py``
    where the installed release has them (loaded from source, see the module docstring).
    """
    tu, version = _import_torch_utils()
    _check_signature(tu.async_tensor_h2d, ("current",), version, "vllm")
    flag = _pin_memory_flag(tu)
    buffer_cls = _load_buffer_cls(tu)
    cpu_variant = _load_cpu_variant()
    if cpu_variant is not None and _signature_of(cpu_variant) != "current":
        cpu_variant = None  # a variant of another signature cannot be compared call for call
    caps = {"out", "cuda"} | ({"buffer"} if buffer_cls is not None else set()) | ({"cpu-variant"} if cpu_variant is not None else set())
    return Target(
        name="vllm",
        async_tensor_h2d=tu.async_tensor_h2d,
        buffer_cls=buffer_cls,
        cpu_variant=cpu_variant,
        capabilities=frozenset(caps),
        pin_memory_available=lambda: flag,
        version=version,
        host_copy=False,  # t.to(device): a no-op for device="cpu", never for a GPU (aliasing on the host is not applicable)
        notes=(
            f"vllm.utils.torch_utils.async_tensor_h2d (imported); "
            f"CpuGpuBuffer {'loaded from the source of vllm/v1/utils.py' if buffer_cls else 'absent'}; "
            f"CPU-worker variant {'loaded from the source of vllm/v1/worker/cpu/shm.py' if cpu_variant else 'absent'}; "
            + _pin_note(flag)
        ),
    )


def vllm_device_dtype_target() -> Target:
    """``--h2d-impl vllm-device-dtype``: an installed vLLM with ``async_tensor_h2d(data, device, dtype=None)`` (0.24-0.29)."""
    tu, version = _import_torch_utils()
    _check_signature(tu.async_tensor_h2d, ("device-dtype",), version, "vllm-device-dtype")
    flag = _pin_memory_flag(tu)
    buffer_cls = _load_buffer_cls(tu)
    cpu_variant = _load_cpu_variant()
    if cpu_variant is not None and _signature_of(cpu_variant) != "device-dtype":
        cpu_variant = None
    return adapt_device_dtype(
        tu.async_tensor_h2d,
        name="vllm-device-dtype",
        version=version,
        buffer_cls=buffer_cls,
        cpu_variant=cpu_variant,
        pin_memory_available=lambda: flag,
        notes="signature (data, device, dtype=None), no out; " + _pin_note(flag),
    )


def vllm_pin_memory_target() -> Target:
    """``--h2d-impl vllm-pin-memory``: an installed vLLM with ``async_tensor_h2d(data, dtype, target_device, pin_memory)`` (<= 0.21).

    ``pin_memory`` is passed as vLLM's call sites do: ``is_pin_memory_available()``.
    """
    tu, version = _import_torch_utils()
    _check_signature(tu.async_tensor_h2d, ("pin-memory", "pin-memory-0.21"), version, "vllm-pin-memory")
    flag = _pin_memory_flag(tu)
    return adapt_pin_memory(
        tu.async_tensor_h2d,
        name="vllm-pin-memory",
        pin_memory=flag,
        version=version,
        buffer_cls=_load_buffer_cls(tu),
        notes=f"signature (data, dtype, target_device, pin_memory), called as fn(data, dtype, device, {flag}), no out; " + _pin_note(flag),
    )


def repro_preamble(target: Target) -> str:
    """The lines to paste before a reproduction printed for a vllm target (used by the conformance report)."""
    env = "import os; os.environ.setdefault('VLLM_TARGET_DEVICE', 'cpu')  # no CUDA: vLLM's CPU platform, PIN_MEMORY=False\n" if not torch.cuda.is_available() else ""
    lines = env + "import torch, numpy as np\nfrom vllm.utils.torch_utils import async_tensor_h2d"
    if target.buffer_cls is not None or target.cpu_variant is not None:
        lines += (
            "\n# CpuGpuBuffer / the CPU-worker variant, as the kit loads them (vllm.v1.utils needs vLLM's full dependencies):"
            "\n# from h2d_contracts.contracts.targets.vllm import vllm_target; t = vllm_target(); CpuGpuBuffer, cpu_async_tensor_h2d = t.buffer_cls, t.cpu_variant"
        )
    return lines
