"""The target for the installed ``sglang`` package: ``sglang.srt.utils.common.async_h2d`` (0.5.22 on).

SGLang's helper (``sglang/srt/utils/common.py``)::

    def async_h2d(args: List, *, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        pin = is_pin_memory_available(device)
        return torch.tensor(args, dtype=dtype, pin_memory=pin).to(device, non_blocking=pin)

Found by reading the installed file (nothing imported, as for vLLM: importing
``sglang.srt.utils.common`` needs about 29 more distributions, triton and torchvision among
them). Declared from its signature: input domain lists (``args: List``), ``dtype`` and
``device`` required (keyword-only, no defaults), no ``out``, no buffer class (SGLang has
none), no CPU-platform variant.

The function runs from the installed source with the globals it reads: ``torch``,
``List``, and ``is_pin_memory_available(device)``, SGLang's platform answer, supplied as
its CUDA platform gives it on a host that can pin (``False`` for ``device="cpu"``, else
``True``) and as its CPU platform gives it on a host that cannot (``False``); SGLang's
Confidential-Computing check (0.5.23) is taken as off.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import typing
from pathlib import Path
from typing import Any

import torch

from . import Target, TargetLoadError, torch_pin_memory_available
from .source import load_definitions
from .vllm import inputs_from_annotation

__all__ = ["HELPER", "sglang_target"]

#: Where the helper lives, relative to the ``sglang`` package folder.
HELPER = Path("srt") / "utils" / "common.py"


def _version(root: Path) -> str:
    dists = [
        d
        for d in importlib.metadata.distributions(path=[str(root.parent)])
        if (d.metadata["Name"] or "").lower() == "sglang"
    ]
    if dists:
        return dists[0].version
    try:
        return importlib.metadata.version("sglang")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def sglang_target() -> Target:
    """``--h2d-impl sglang``: the installed SGLang's ``async_h2d(args, *, dtype, device)`` (module docstring).

    Raises:
        TargetLoadError: sglang is not installed, or its ``common.py`` has no top-level
            ``async_h2d`` (releases before 0.5.22), or the helper reads a global this
            target does not supply.
    """
    spec = importlib.util.find_spec("sglang")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise TargetLoadError(
            "the sglang target needs the sglang package installed (without its dependency tree: pip install --no-deps sglang==0.5.23)"
        )
    root = Path(list(spec.submodule_search_locations)[0])
    path, version = root / HELPER, _version(root)
    tree = ast.parse(path.read_text(), filename=str(path)) if path.exists() else None
    node = (
        next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "async_h2d"), None) if tree else None
    )
    if node is None:
        raise TargetLoadError(f"sglang {version}: no top-level async_h2d in {path} (SGLang has it from 0.5.22)")
    pin = torch_pin_memory_available()

    def is_pin_memory_available(device: Any = None) -> bool:
        """SGLang's platform answer on this machine (CUDA platform: not for the host; CPU platform: never)."""
        return pin and not (device is not None and str(device) == "cpu")

    namespace = {
        "torch": torch,
        "List": list,
        "Optional": typing.Optional,
        "Union": typing.Union,
        "is_pin_memory_available": is_pin_memory_available,
    }
    try:
        fn = load_definitions(path, ["async_h2d"], namespace, "sglang.srt.utils.common")["async_h2d"]
    except NameError as exc:
        raise TargetLoadError(
            f"{exc}: an SGLang release this target does not know yet; write a target for it (docs/targets.md)"
        ) from exc
    args = node.args
    required = frozenset(a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None) & {
        "device",
        "dtype",
        "out",
    }
    annotation = ast.unparse(args.args[0].annotation) if args.args and args.args[0].annotation is not None else None
    inputs = inputs_from_annotation(annotation)
    return Target(
        name="sglang",
        async_tensor_h2d=fn,  # data positional, dtype and device by keyword: the protocol's names
        capabilities=frozenset(
            {"cuda"} | ({"out"} if any(a.arg == "out" for a in [*args.args, *args.kwonlyargs]) else set())
        ),
        pin_memory_available=lambda: pin,
        version=version,
        notes=(
            f"sglang.srt.utils.common.async_h2d from {path.relative_to(root.parent).as_posix()} (source-loaded); inputs {sorted(inputs)} "
            f"from args: {annotation}; requires {sorted(required)}; is_pin_memory_available(device) = {pin} unless device is the host"
        ),
        inputs=inputs,
        requires=required,
        arg_names={},
        positional=tuple(
            a.arg for a in args.args[1:] if a.arg in ("device", "dtype", "out")
        ),  # () in 0.5.x: keyword-only
        host_copy=False,  # .to(device) is a no-op for device="cpu": on the host it stands in for a device copy
    )
