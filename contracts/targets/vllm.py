"""Targets for the installed ``vllm`` package, every release from 0.10 on: the helper found by inspection.

``--h2d-impl vllm`` reads the installed package's files (never by its version number):

1. the module that defines ``async_tensor_h2d``: ``vllm/utils/torch_utils.py`` (0.11.1 on)
   or ``vllm/utils/__init__.py`` (0.10.0-0.11.0);
2. its signature, which picks the built-in target (its *family*):

   ===================================================  ======================  ===============================
   signature (parameters)                               releases (PyPI)         built-in target
   ===================================================  ======================  ===============================
   ``(data, device=None, dtype=None, out=None)``        0.30.0 - 0.33.0         ``vllm``
   ``(data, device, dtype=None)``                       0.24.0 - 0.29.0         ``vllm-device-dtype``
   ``(data, dtype, device, pin_memory=PIN_MEMORY)``     0.21.0 - 0.23.0         ``vllm-pin-memory``
   ``(data, dtype, target_device, pin_memory)``         0.10.0 - 0.20.2         ``vllm-pin-memory``
   ===================================================  ======================  ===============================

3. the input domain from the annotation of ``data`` (``data: list`` -> lists only;
   ``list | np.ndarray | torch.Tensor`` -> lists, arrays and tensors; see
   :func:`inputs_from_annotation`) and the protocol arguments the signature requires
   (``dtype`` and ``device`` for ``(data, dtype, target_device, pin_memory)``);
4. ``CpuGpuBuffer`` from ``vllm/v1/utils.py`` (0.10.2 on) and the CPU-worker variant from
   ``vllm/v1/worker/cpu/shm.py`` (0.23.0 on), where the release has them;
5. Model Runner V2's transfer utilities from ``vllm/v1/worker/gpu/buffer_utils.py``
   (capability ``"buffer-utils"``), where the release has them
   (:mod:`contracts.targets.vllm_buffer_utils` says what the kit supplies).

``--h2d-impl vllm-device-dtype`` and ``vllm-pin-memory`` name a family explicitly and
refuse an installed release of another signature, saying which name fits.

How the code under test runs: each function or class is executed from the installed
file's source (:func:`contracts.targets.source.load_definitions`), vLLM's own statements
unchanged, with exactly the globals it reads. The modules themselves are not imported:
``vllm/utils/__init__.py`` (0.10-0.11) pulls in transformers and about 17 more
distributions; ``vllm/v1/utils.py`` uvloop, zmq, pydantic...; importing
``vllm/v1/worker/cpu/shm.py`` monkey-patches torch for the whole process (it does so in
vLLM's CPU worker processes, where that variant *replaces* the main function). The one
global that is vLLM's decision about the machine is pinning (``PIN_MEMORY``, the
``pin_memory`` argument vLLM's call sites pass, ``is_pin_memory_available()``): it is
supplied as :func:`~contracts.targets.torch_pin_memory_available`, what vLLM's CUDA
platform answers on a CUDA host and its ``CpuPlatform`` answers on a host without
(releases before 0.28 resolve ``UnspecifiedPlatform`` on such a host and would try to
pin, failing every call: vLLM's packaging, not its helper; the target's notes say so).
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch

from . import INPUT_KINDS, Target, TargetLoadError, torch_pin_memory_available, vllm_buffer_utils
from .adapters import keyword_call
from .source import load_definitions

__all__ = [
    "FAMILIES",
    "inputs_from_annotation",
    "locate",
    "vllm_device_dtype_target",
    "vllm_pin_memory_target",
    "vllm_target",
]

#: family (built-in target name) -> the parameter tuples of ``async_tensor_h2d`` it covers.
FAMILIES: dict[str, tuple[tuple[str, ...], ...]] = {
    "vllm": (("data", "device", "dtype", "out"),),
    "vllm-device-dtype": (("data", "device", "dtype"),),
    "vllm-pin-memory": (("data", "dtype", "target_device", "pin_memory"), ("data", "dtype", "device", "pin_memory")),
}

#: The function's own parameter names -> the protocol's (``target_device`` is vLLM <= 0.20's ``device``).
_PROTOCOL_NAME = {"target_device": "device"}

#: Annotation names -> the input kinds they declare (:data:`~contracts.targets.INPUT_KINDS`).
_KIND_OF_ANNOTATION = {
    "list": {"list"},
    "List": {"list"},
    "tuple": {"tuple"},
    "Tuple": {"tuple"},
    "Sequence": {"list", "tuple"},
    "np.ndarray": {"ndarray"},
    "numpy.ndarray": {"ndarray"},
    "ndarray": {"ndarray"},
    "NDArray": {"ndarray"},
    "torch.Tensor": {"tensor"},
    "Tensor": {"tensor"},
}


def inputs_from_annotation(annotation: str | None) -> frozenset[str]:
    """The input kinds a ``data`` annotation declares (source text, e.g. ``"list | np.ndarray | torch.Tensor"``).

    A union is split on ``|`` and ``Union[...]``; each member maps by
    :data:`_KIND_OF_ANNOTATION` (a subscript such as ``list[int]`` by its base). ``list``
    means a (nested) list of numbers, as vLLM's call sites pass: a list of ndarrays, a
    tuple or a bare scalar is outside it. No annotation, ``Any`` or a member the table
    does not know: every kind (nothing is excluded on a guess).
    """
    if not annotation:
        return INPUT_KINDS
    text = annotation.strip().strip("'\"")
    if text.startswith(("Union[", "typing.Union[")) and text.endswith("]"):
        text = text[text.index("[") + 1 : -1].replace(",", "|")
    if text.startswith(("Optional[", "typing.Optional[")) and text.endswith("]"):
        text = text[text.index("[") + 1 : -1]
    kinds: set[str] = set()
    for member in (m.strip() for m in text.split("|")):
        base = member.split("[", 1)[0].strip()
        if base == "None":
            continue
        known = _KIND_OF_ANNOTATION.get(base)
        if known is None:
            return INPUT_KINDS
        kinds |= known
    return frozenset(kinds) or INPUT_KINDS


@dataclass(frozen=True)
class Located:
    """Where the installed release keeps its H2D helpers (found by reading its files, nothing imported).

    Attributes:
        version: the distribution's version (its ``.dist-info`` beside the package).
        root: the ``vllm`` package folder.
        helper: the file defining ``async_tensor_h2d``.
        params: its parameter names, in order.
        data_annotation: the source text of the annotation of its first parameter, or None.
        required: protocol arguments (``device``, ``dtype``, ``out``) it has no default for.
        buffer: the file defining ``CpuGpuBuffer``, or None.
        cpu_variant: the file defining the CPU-worker ``async_tensor_h2d``, or None.
        buffer_utils: Model Runner V2's ``vllm/v1/worker/gpu/buffer_utils.py``, or None
            (:mod:`contracts.targets.vllm_buffer_utils`).
    """

    version: str
    root: Path
    helper: Path
    params: tuple[str, ...]
    data_annotation: str | None
    required: frozenset[str]
    buffer: Path | None
    cpu_variant: Path | None
    buffer_utils: Path | None = None

    @property
    def family(self) -> str | None:
        """The built-in target whose signature this is, or None."""
        return next((name for name, sigs in FAMILIES.items() if self.params in sigs), None)


def _def_of(path: Path, name: str, kind: type = ast.FunctionDef) -> ast.AST | None:
    try:
        tree = ast.parse(path.read_text(), filename=str(path))
    except (OSError, SyntaxError):
        return None
    return next((n for n in tree.body if isinstance(n, kind) and n.name == name), None)  # type: ignore[attr-defined]


def _version(root: Path) -> str:
    dists = [
        d
        for d in importlib.metadata.distributions(path=[str(root.parent)])
        if (d.metadata["Name"] or "").lower() == "vllm"
    ]
    if dists:
        return dists[0].version
    try:
        return importlib.metadata.version("vllm")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def locate() -> Located:
    """Read the installed ``vllm`` package's files: its version and where its helpers are.

    Raises:
        TargetLoadError: vllm is not installed, or no ``async_tensor_h2d`` is found where a
            release keeps it (naming the files read).
    """
    spec = importlib.util.find_spec("vllm")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise TargetLoadError(
            "the vllm targets need the vllm package installed (without its dependency tree: pip install --no-deps vllm==X)"
        )
    root = Path(list(spec.submodule_search_locations)[0])
    candidates = [root / "utils" / "torch_utils.py", root / "utils" / "__init__.py"]
    helper = next((p for p in candidates if p.exists() and _def_of(p, "async_tensor_h2d") is not None), None)
    if helper is None:
        raise TargetLoadError(
            f"vllm {_version(root)} at {root}: no top-level async_tensor_h2d in {', '.join(str(p.relative_to(root)) for p in candidates)}"
        )
    node = _def_of(helper, "async_tensor_h2d")
    if not isinstance(node, ast.FunctionDef):  # found just above; a file changed under us
        raise TargetLoadError(f"{helper}: async_tensor_h2d is no longer a top-level def")
    args = node.args
    params = tuple(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])
    positional = [*args.posonlyargs, *args.args]
    n_no_default = len(positional) - len(args.defaults)
    no_default = {a.arg for a in positional[:n_no_default]} | {
        a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None
    }
    required = frozenset(_PROTOCOL_NAME.get(p, p) for p in no_default) & {"device", "dtype", "out"}
    annotation = ast.unparse(positional[0].annotation) if positional and positional[0].annotation is not None else None
    buffer = root / "v1" / "utils.py"
    variant = root / "v1" / "worker" / "cpu" / "shm.py"
    return Located(
        version=_version(root),
        root=root,
        helper=helper,
        params=params,
        data_annotation=annotation,
        required=required,
        buffer=buffer if _def_of(buffer, "CpuGpuBuffer", ast.ClassDef) is not None else None,
        cpu_variant=variant if _def_of(variant, "async_tensor_h2d") is not None else None,
        buffer_utils=vllm_buffer_utils.find(root),
    )


def _namespace(pin: bool) -> dict[str, Any]:
    """The globals vLLM's helpers read, as they are in vLLM on this machine (pinning: see the module docstring)."""

    def is_pin_memory_available() -> bool:
        """vLLM's platform answer on this machine: pinned host memory is usable (CUDA) or not."""
        return pin

    typing_names = {
        n: getattr(typing, n) for n in ("Any", "List", "Optional", "Sequence", "Tuple", "Union", "TYPE_CHECKING")
    }
    return {
        **typing_names,
        "torch": torch,
        "np": np,
        "numpy": np,
        "PIN_MEMORY": pin,
        "is_pin_memory_available": is_pin_memory_available,
    }


def _load(path: Path, name: str, root: Path, pin: bool) -> Any:
    module = "vllm." + ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
    try:
        return load_definitions(path, [name], _namespace(pin), module)[name]
    except NameError as exc:
        raise TargetLoadError(
            f"{exc}: a vLLM release this adapter does not know yet; write a target for it (docs/targets.md)"
        ) from exc


def _signature_text(found: Located) -> str:
    return "(" + ", ".join(found.params) + ")"


def _build(found: Located) -> Target:
    family = found.family
    if family is None:
        raise TargetLoadError(
            f"vllm {found.version}: async_tensor_h2d{_signature_text(found)} in {found.helper.relative_to(found.root.parent)} "
            "fits no built-in vllm target; write a target for it (docs/targets.md)"
        )
    pin = torch_pin_memory_available()
    fn = _load(found.helper, "async_tensor_h2d", found.root, pin)
    buffer_cls = _load(found.buffer, "CpuGpuBuffer", found.root, pin) if found.buffer else None
    variant = _load(found.cpu_variant, "async_tensor_h2d", found.root, pin) if found.cpu_variant else None
    if variant is not None and tuple(inspect.signature(variant).parameters) != found.params:
        variant = None  # a variant of another signature cannot be called as the main function is
    own_names = {_PROTOCOL_NAME[p]: p for p in found.params if p in _PROTOCOL_NAME}
    extra = {"pin_memory": pin} if "pin_memory" in found.params else {}
    main: Callable[..., torch.Tensor] = fn if family == "vllm" else keyword_call(fn, own_names, extra)
    cpu_variant = variant if variant is None or family == "vllm" else keyword_call(variant, own_names, {})
    utils: Any = None
    utils_notes: list[str] = []
    if found.buffer_utils is not None:
        try:
            utils, utils_notes = vllm_buffer_utils.load(found.buffer_utils, fn)
        except NameError as exc:  # the Model Runner V2 half only: the helper and the buffer are still judged
            utils_notes = [f"Model Runner V2 utilities not loaded ({exc}): their contracts are not applicable"]
    elif (earlier := vllm_buffer_utils.earlier_layout(found.root)) is not None:
        from h2d_contracts.h2d_impl.buffer_utils import uva_available

        if uva_available():
            try:
                utils, utils_notes = vllm_buffer_utils.load_earlier(earlier, fn)
            except NameError as exc:
                utils_notes = [f"Model Runner V2 utilities not loaded ({exc}): their contracts are not applicable"]
        else:  # that layout has no fallback without UVA: every class raises "UVA is not available"
            utils_notes = [
                f"Model Runner V2 utilities in {earlier.relative_to(found.root.parent).as_posix()} not loaded: "
                "before 0.31 they need UVA (no NonUvaBuffer), which this host lacks; their contracts are not applicable"
            ]
    caps = (
        {"cuda"}
        | ({"buffer-utils"} if utils is not None else set())
        | ({"out"} if "out" in found.params else set())
        | ({"buffer"} if buffer_cls else set())
        | ({"cpu-variant"} if cpu_variant else set())
    )
    where = found.helper.relative_to(found.root.parent).as_posix()
    notes = [
        f"async_tensor_h2d{_signature_text(found)} from {where} (source-loaded)",
        f"inputs {sorted(inputs_from_annotation(found.data_annotation))} from data: {found.data_annotation or '<no annotation>'}",
        f"requires {sorted(found.required)}" if found.required else "",
        f"pin_memory={pin} passed as vLLM's call sites pass is_pin_memory_available()" if extra else "",
        f"PIN_MEMORY / is_pin_memory_available() = {pin} (torch {'can' if pin else 'cannot'} pin here; vLLM's platform answer on this machine)",
        f"CpuGpuBuffer {'from ' + cast(Path, found.buffer).relative_to(found.root.parent).as_posix() if buffer_cls else 'absent'}",
        f"CPU-worker variant {'from ' + cast(Path, found.cpu_variant).relative_to(found.root.parent).as_posix() if cpu_variant else 'absent'}",
        *utils_notes,
    ]
    return Target(
        name=family,
        async_tensor_h2d=main,
        buffer_cls=buffer_cls,
        cpu_variant=cpu_variant,
        capabilities=frozenset(caps),
        pin_memory_available=lambda: pin,
        version=found.version,
        notes="; ".join(n for n in notes if n),
        inputs=inputs_from_annotation(found.data_annotation),
        requires=found.required,
        arg_names={k: v for k, v in own_names.items()},
        # vLLM's own (data, device=None, dtype=None, out=None) by position; an older signature is called through
        # keyword_call, which takes keywords only
        positional=("device", "dtype", "out") if family == "vllm" else (),
        # t.to(device) is a no-op for device="cpu", never for a GPU: on the host, aliasing and
        # a buffer's .gpu being its .cpu (0.10.2-0.11.0: self.gpu = self.cpu.to(device)) are
        # stand-ins for a device copy, not judged
        host_copy=False,
        buffer_utils=utils,
    )


def vllm_helper(pin: bool) -> Any:
    """vLLM's own ``async_tensor_h2d`` of the installed release, source-loaded, with no adapter around it.

    For the benchmark's ``vllm`` column (bench/h2d_bench.py), where importing vLLM would pull its
    dependency tree. ``pin``: the value of vLLM's ``PIN_MEMORY`` / ``is_pin_memory_available()``
    (its platform answer; a CUDA host: True).

    Raises:
        TargetLoadError: vllm is not installed, or its helper reads a name the loader does not supply.
    """
    found = locate()
    return _load(found.helper, "async_tensor_h2d", found.root, pin)


def vllm_target() -> Target:
    """``--h2d-impl vllm``: the installed vLLM, any release from 0.10.0: its family found by inspection (module docstring).

    Raises:
        TargetLoadError: vllm is not installed, or its helper has a signature no family covers.
    """
    return _build(locate())


def _family_target(family: str) -> Target:
    found = locate()
    if found.family != family:
        fits = (
            f"use --h2d-impl {found.family} (or vllm, which detects it)"
            if found.family
            else "no built-in target fits it"
        )
        raise TargetLoadError(
            f"--h2d-impl {family}: the installed vllm {found.version} has async_tensor_h2d{_signature_text(found)}; {fits}"
        )
    return _build(found)


def vllm_device_dtype_target() -> Target:
    """``--h2d-impl vllm-device-dtype``: an installed vLLM whose helper is ``(data, device, dtype=None)`` (0.24-0.29); else TargetLoadError."""
    return _family_target("vllm-device-dtype")


def vllm_pin_memory_target() -> Target:
    """``--h2d-impl vllm-pin-memory``: an installed vLLM whose helper takes ``pin_memory`` (0.10-0.23); else TargetLoadError."""
    return _family_target("vllm-pin-memory")
