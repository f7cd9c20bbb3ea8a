"""Model Runner V2's transfer utilities of the installed vLLM, source-loaded: the built-in ``vllm`` target's ``buffer_utils``.

vLLM keeps them in ``vllm/v1/worker/gpu/buffer_utils.py`` (``UvaBuffer``, ``NonUvaBuffer``,
``UvaBufferPool``, ``UvaBackedTensor``, ``StagedWriteTensor``, ``FusedStagedWriter`` and the
Triton kernel ``_apply_write_kernel`` that applies staged writes). As for the other vLLM
helpers (:mod:`contracts.targets.vllm`), the file is read, not imported: its classes and
kernel are executed from its source, vLLM's statements unchanged, with the globals they
read supplied here. What vLLM takes from compiled code or from its platform layer, the
kit supplies, and the target's notes say so:

- ``get_accelerator_view_from_cpu_tensor`` (vLLM's compiled op
  ``torch.ops._C.get_cuda_view_from_cpu_tensor``): the kit's
  :func:`h2d_contracts.h2d_impl.buffer_utils.uva_view`, the same mapping of pinned host
  memory made with plain torch (docs/reference.md, Model Runner V2);
- ``is_uva_available()``: a CUDA device and pinned memory
  (:func:`~h2d_contracts.h2d_impl.buffer_utils.uva_available`). vLLM's own answers True on
  its CPU platform too, where its view op then raises; on a host without CUDA the pools
  therefore use ``NonUvaBuffer``, vLLM's own fallback, which is what the CPU half checks;
- ``current_platform.device_type`` (imported inside ``NonUvaBuffer.__init__`` from
  ``vllm.platforms``, which would import vLLM's dependency tree): ``"cuda"`` on a CUDA
  host, ``"cpu"`` otherwise, as vLLM's platforms answer;
- ``async_tensor_h2d``: vLLM's own, source-loaded (the target's main function);
- ``triton``: the installed Triton. On a CUDA host the kernel is compiled and launched
  as in vLLM; on a host without CUDA it runs under Triton's interpreter (what
  ``TRITON_INTERPRET=1`` selects, here chosen for this kernel only, not process-wide):
  the same kernel body, its programs executed one after another on the host tensors.
  Without Triton installed, ``StagedWriteTensor`` and ``FusedStagedWriter`` are not loaded
  (their contracts are then not applicable, and the notes say why).
"""

from __future__ import annotations

import ast
import functools
import importlib
import logging
import types
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .source import load_definitions

__all__ = ["KERNEL_NAMES", "earlier_layout", "find", "load", "load_earlier"]

#: The classes loaded without Triton, then the ones whose methods launch the kernel, then the kernel's definitions.
_PLAIN = ("UvaBuffer", "NonUvaBuffer", "UvaBufferPool", "UvaBackedTensor")
_STAGED = ("StagedWriteTensor", "FusedStagedWriter")
KERNEL_NAMES = ("_num_write_chunks", "_apply_write_kernel", "_load_ptr")
#: vLLM 0.33.0's module constants the definitions read (its defaults, unchanged).
_CONSTANTS = {"_DEFAULT_MAX_CONCURRENCY": 2, "_WRITE_BLOCK_SIZE": 1024}


def _defined(path: Path) -> set[str]:
    """The top-level classes and functions of the file at ``path`` (none if it is missing or does not parse)."""
    try:
        tree = ast.parse(path.read_text(), filename=str(path))
    except (OSError, SyntaxError):
        return set()
    return {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}


def find(root: Path) -> Path | None:
    """The release's ``vllm/v1/worker/gpu/buffer_utils.py`` if it defines the six classes (0.31 on), else None."""
    path = root / "v1" / "worker" / "gpu" / "buffer_utils.py"
    return path if set(_PLAIN + _STAGED) <= _defined(path) else None


def earlier_layout(root: Path) -> Path | None:
    """The release's buffer_utils.py when it is of a layout :func:`find` does not load (0.15-0.29: no ``NonUvaBuffer``,
    so without UVA its classes only raise "UVA is not available"), else None."""
    path = root / "v1" / "worker" / "gpu" / "buffer_utils.py"
    return path if path.is_file() and find(root) is None else None


def _logger() -> Any:
    """vLLM's ``init_logger(__name__)``: a standard logger with vLLM's ``warning_once``/``info_once``."""
    log = logging.getLogger("vllm.v1.worker.gpu.buffer_utils")
    return types.SimpleNamespace(
        warning_once=functools.lru_cache(maxsize=None)(log.warning),
        info_once=functools.lru_cache(maxsize=None)(log.info),
        warning=log.warning,
        info=log.info,
        debug=log.debug,
    )


def _triton(on_cuda: bool) -> tuple[Any, Any] | None:
    """``(triton, tl)`` as the kernel's definitions read them, or None without Triton installed."""
    # imported by name: triton is optional (installed for the vLLM stage, not with the kit) and untyped
    try:
        triton = importlib.import_module("triton")
        tl = importlib.import_module("triton.language")
    except ImportError:
        return None
    if on_cuda:
        return triton, tl
    interpreted = importlib.import_module("triton.runtime.interpreter").InterpretedFunction

    def jit(fn: Any = None, **kwargs: Any) -> Any:
        """``triton.jit`` as ``TRITON_INTERPRET=1`` makes it: the kernel runs under the interpreter on host tensors."""
        return interpreted(fn, **kwargs) if fn is not None else functools.partial(jit, **kwargs)

    return types.SimpleNamespace(jit=jit, cdiv=triton.cdiv), tl


def _namespace(async_tensor_h2d: Any) -> dict[str, Any]:
    """The globals every layout's definitions read (:func:`load`, :func:`load_earlier` add their own)."""
    from h2d_contracts.h2d_impl.buffer_utils import uva_available, uva_view

    return {
        "np": np,
        "torch": torch,
        "partial": functools.partial,
        "Iterable": Iterable,
        "Sequence": Sequence,
        "is_uva_available": uva_available,
        "get_accelerator_view_from_cpu_tensor": uva_view,
        "async_tensor_h2d": async_tensor_h2d,
        **_CONSTANTS,
    }


def load(path: Path, async_tensor_h2d: Any) -> tuple[Any, list[str]]:
    """vLLM's Model Runner V2 classes from ``path``: a namespace with the six classes (None where not loaded), and notes.

    Args:
        path: the release's ``vllm/v1/worker/gpu/buffer_utils.py`` (:func:`find`).
        async_tensor_h2d: the release's own helper (source-loaded), which ``apply_write`` calls.

    Raises:
        NameError: the release's definitions read a global this loader does not supply
            (a release it does not know yet).
    """
    from h2d_contracts.h2d_impl.buffer_utils import uva_available

    on_cuda = torch.cuda.is_available()
    namespace = {
        **_namespace(async_tensor_h2d),
        "logger": _logger(),
        "current_platform": types.SimpleNamespace(device_type="cuda" if on_cuda else "cpu"),
    }
    tri = _triton(on_cuda)
    names = list(_PLAIN)
    if tri is not None:
        namespace["triton"], namespace["tl"] = tri
        names += [*_STAGED, *KERNEL_NAMES]
    defined = _defined(path)  # releases differ in their helpers (0.31 has no _num_write_chunks): load those it has
    names = [n for n in names if n in defined]
    loaded = load_definitions(
        path, names, namespace, "vllm.v1.worker.gpu.buffer_utils", local_imports=frozenset({"vllm.platforms"})
    )
    utils = types.SimpleNamespace(**{name: loaded.get(name) for name in (*_PLAIN, *_STAGED)})
    where = "/".join(path.parts[-5:])
    notes = [
        f"Model Runner V2 utilities from {where} (source-loaded)",
        "UVA views by the kit's uva_view (vLLM's compiled get_cuda_view_from_cpu_tensor is not loaded)",
        f"is_uva_available() = {uva_available()} (CUDA and pinned memory; without, the pools use vLLM's NonUvaBuffer)",
    ]
    if tri is None:
        notes.append("triton not installed: StagedWriteTensor and FusedStagedWriter not loaded (pip install triton)")
    elif not on_cuda:
        notes.append("staged writes by vLLM's Triton kernel under Triton's interpreter (no CUDA)")
    return utils, notes


def load_earlier(path: Path, async_tensor_h2d: Any) -> tuple[Any, list[str]]:
    """Model Runner V2's classes of a 0.15-0.29 release (:func:`earlier_layout`), as :func:`load` gives 0.31's on.

    That layout has no ``NonUvaBuffer`` (without UVA every class raises "UVA is not available"),
    and its ``UvaBuffer`` exposes the view as the attribute ``.uva``, not the method ``uva(n)``
    the ``uva`` contract calls: the namespace gives ``UvaBuffer`` and ``NonUvaBuffer`` as None
    (that contract is not applicable; the pools still use vLLM's own ``UvaBuffer`` inside).
    Beside :func:`load`'s globals it supplies what those releases import by other names:
    ``get_cuda_view_from_cpu_tensor`` (0.15: the kit's ``uva_view``) and ``next_power_of_2``
    (0.15: source-loaded from the release's own ``vllm/utils/math_utils.py``).

    Raises:
        NameError: the release's definitions read a global this loader does not supply.
    """
    on_cuda = torch.cuda.is_available()
    namespace = _namespace(async_tensor_h2d)
    namespace["get_cuda_view_from_cpu_tensor"] = namespace["get_accelerator_view_from_cpu_tensor"]  # 0.15's name
    math_utils = path.parents[3] / "utils" / "math_utils.py"  # vllm/utils/math_utils.py beside vllm/v1/
    if "next_power_of_2" in _defined(math_utils):
        namespace.update(load_definitions(math_utils, ["next_power_of_2"], {}, "vllm.utils.math_utils"))
    tri = _triton(on_cuda)
    names = ["UvaBuffer", "UvaBufferPool", "UvaBackedTensor", "async_copy_to_gpu"]
    if tri is not None:
        namespace["triton"], namespace["tl"] = tri
        names += [*_STAGED, *KERNEL_NAMES]
    names = [n for n in names if n in _defined(path)]
    loaded = load_definitions(path, names, namespace, "vllm.v1.worker.gpu.buffer_utils")
    utils = types.SimpleNamespace(
        UvaBuffer=None, NonUvaBuffer=None, **{name: loaded.get(name) for name in (*_PLAIN[2:], *_STAGED)}
    )
    where = "/".join(path.parts[-5:])
    notes = [
        f"Model Runner V2 utilities from {where} (source-loaded; the layout before 0.31: no NonUvaBuffer, "
        "UvaBuffer's view the attribute .uva, so the uva contract is not applicable)",
        "UVA views by the kit's uva_view (vLLM's compiled get_cuda_view_from_cpu_tensor is not loaded)",
    ]
    if tri is None:
        notes.append("triton not installed: StagedWriteTensor and FusedStagedWriter not loaded (pip install triton)")
    return utils, notes
