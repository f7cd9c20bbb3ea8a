"""Contract ``side-effects``: every call, valid or failing, leaves the process as it found it.

An H2D helper runs in the engine's process, on every decode step. A call that changes
process-wide state changes the engine: a ``warnings.simplefilter("ignore", ...)`` left at
function scope (no ``catch_warnings``) silences every later warning of the process, the
engine's own included; a changed default dtype, grad mode, default device, thread count,
numpy error state or random state changes what the engine computes next.

:func:`process_state` reads everything of that kind a helper could plausibly touch
(:data:`STATE_NAMES`): Python's warning filters, torch's default dtype, grad and
inference mode, default device, intra-op and inter-op thread counts, the
deterministic-algorithms flags and the filling of uninitialised memory, float32 matmul precision, torch's print options, numpy's
error state and print options, the random states of torch, numpy and Python, the current
CUDA device and stream (where CUDA is initialised), the garbage collector's switch and
thresholds, and the process environment. A drawn call may start from a state other than the
default (:data:`STARTS`: the collector switched off or its thresholds raised), so that a helper
that resets a setting to its default is seen too. :func:`check_side_effects` reads it before and after one call
and fails naming the first thing that changed. What is left out, on purpose: caches a
helper owns (the reference's staging pools, torch's caching allocators: memory, judged
by the hygiene contracts), warnings' once-registries (``__warningregistry__``: a warning
shown once is the documented behaviour of ``warnings``), and threads a library starts once
(torch's thread pools).
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import decimal
import faulthandler
import gc
import locale
import logging
import os
import random
import signal
import socket
import sys
import threading
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import domain_kwargs
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.domain import in_domain
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, require_device, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import fail

from .buffer import make_buffer
from .buffer_utils.common import fused_tables, pool_device, utils

__all__ = ["STARTS", "STATE_NAMES", "check_side_effects", "process_state"]


def _torch_rng() -> bytes:
    return bytes(torch.random.get_rng_state().numpy().tobytes())


def _numpy_rng() -> tuple[Any, ...]:
    name, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)
    return (name, bytes(np.asarray(keys).tobytes()), pos, has_gauss, cached)


def _cuda_state() -> tuple[Any, ...] | None:
    if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
        return None
    return (torch.cuda.current_device(), torch.cuda.current_stream().cuda_stream)


def _cuda_settings() -> tuple[Any, ...] | None:
    if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
        return None  # read only where CUDA already runs: reading must not start it
    return (bytes(torch.cuda.get_rng_state().numpy().tobytes()), torch.cuda.get_sync_debug_mode())


def _function_modes() -> list[str]:
    # torch.set_default_device() and a TorchFunctionMode entered by hand live on this stack; torch's own
    # get_default_device() reads it the same way (torch has no public reader of the stack itself)
    from torch.overrides import _get_current_function_mode_stack

    modes: list[Any] = _get_current_function_mode_stack()  # type: ignore[no-untyped-call]
    return [f"{type(m).__name__}({getattr(m, 'device', '')})" for m in modes]


def _fill_flag() -> bool:
    # a property of torch's module class, which the type stubs do not declare
    return bool(getattr(torch.utils.deterministic, "fill_uninitialized_memory"))  # noqa: B009


def _set_fill_flag(on: bool) -> None:
    setattr(torch.utils.deterministic, "fill_uninitialized_memory", on)  # noqa: B010


def _torch_print_options() -> dict[str, Any]:
    from torch._tensor_str import PRINT_OPTS  # torch has no public getter of its print options

    return dict(vars(PRINT_OPTS))


def _print_options() -> tuple[Any, ...]:
    return tuple(sorted(_torch_print_options().items()))


#: ``torch._C._get_*`` functions that are not process-wide settings (counters, caches, tables, constants of the build,
#: the last JIT exception) or that may touch a device (the accelerator probe): left out of :func:`_torch_getters`.
_NOT_SETTINGS = frozenset(
    {
        "_get_DTensor_sharding_propagator_cache_stats",
        "_get_accelerator",
        "_get_all_dtypes",
        "_get_caught_jit_exception_class_name",
        "_get_caught_jit_exception_original_msg",
        "_get_max_operator_version",
        "_get_operator_version_map",
        "_get_upgraders_entry_map",
        "_get_upgraders_map_size",
    }
)


def _discover_torch_getters() -> tuple[Callable[[], Any], ...]:
    """Every zero-argument ``torch._C._get_*`` getter of a setting in this build (the flags behind
    ``torch.backends.*``, ``torch.set_warn_always``, the SDPA switches, the BLAS/linear-algebra backends, the qengine,
    ...): found by calling each once at import, so a flag a later torch adds is read without a change here."""
    found = []
    for name in sorted(dir(torch._C)):
        if not name.startswith("_get_") or name in _NOT_SETTINGS:
            continue
        fn = getattr(torch._C, name)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = fn()
        except Exception:  # noqa: BLE001 - a getter that needs arguments (or this build lacks) is not a setting
            continue
        if isinstance(value, (dict, set)) or (isinstance(value, (list, tuple)) and len(value) > 16):
            continue
        found.append(fn)
    return tuple(found)


_TORCH_GETTERS = _discover_torch_getters()


def _torch_settings() -> dict[str, str]:
    # repr: the backends' enums and tuples compare by value through it
    flags = {fn.__name__: repr(fn()) for fn in _TORCH_GETTERS}
    flags["torch.is_anomaly_enabled()"] = repr((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
    flags["torch.is_autocast_cache_enabled()"] = repr(torch.is_autocast_cache_enabled())
    for kind in ("cpu", "cuda"):  # thread-local settings: reading them initialises nothing
        flags[f"autocast({kind})"] = repr((torch.is_autocast_enabled(kind), torch.get_autocast_dtype(kind)))
    flags["torch.get_deterministic_debug_mode()"] = repr(torch.get_deterministic_debug_mode())
    flags["torch.backends.opt_einsum"] = repr((torch.backends.opt_einsum.enabled, torch.backends.opt_einsum.strategy))
    flags["torch.backends.mha.get_fastpath_enabled()"] = repr(torch.backends.mha.get_fastpath_enabled())
    flags["torch.multiprocessing.get_sharing_strategy()"] = repr(torch.multiprocessing.get_sharing_strategy())  # type: ignore[no-untyped-call]
    return flags


def _dispatch_modes() -> list[str]:
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack  # no public reader of the stack

    return [type(m).__name__ for m in _get_current_dispatch_mode_stack()]


#: The smallest positive subnormal float64, built from its bits (``2.0**-1074`` is itself flushed once the flags are on)
_TINY = np.frombuffer((1).to_bytes(8, sys.byteorder), dtype=np.float64)


def _denormals() -> tuple[bytes, bytes]:
    # torch.set_flush_denormal(True) sets the CPU's flush-to-zero / denormals-are-zero flags (MXCSR): no getter, so
    # read what they do: the smallest subnormal times one is itself, or zero once flushed (torch's and numpy's math).
    # Compared as bytes: under those flags Python's own float comparison takes a subnormal for 0.0 as well
    flushed_torch = torch.from_numpy(_TINY.copy()).mul_(1.0)
    return (flushed_torch.numpy().tobytes(), (_TINY * 1.0).tobytes())


#: Modules whose public functions and classes a helper could rebind (monkeypatching ``np.array`` or
#: ``torch.from_numpy`` "for speed"): read as name -> id, names present before the call compared (a lazy import adds
#: names), module attributes and plain values left out (``torch.cuda.default_generators`` is set when CUDA starts).
_PATCHABLE_MODULES = (torch, torch.cuda, torch.autograd, np, builtins, warnings, copy, threading)
#: Classes whose own attributes a helper could rebind or add (``torch.Tensor.copy_ = ...``): compared whole.
_PATCHABLE_CLASSES = (torch.Tensor, np.ndarray)


def _bindings() -> tuple[dict[str, Any], ...]:
    # shallow copies of the modules' namespaces (fast); :func:`_rebound` compares their public functions by identity
    return tuple(dict(vars(mod)) for mod in _PATCHABLE_MODULES)


def _rebound(old: tuple[dict[str, Any], ...], new: tuple[dict[str, Any], ...]) -> dict[str, tuple[str, str]]:
    changed = {}
    for mod, before, after in zip(_PATCHABLE_MODULES, old, new, strict=True):
        for name, value in before.items():
            if name.startswith("_") or isinstance(value, types.ModuleType) or not callable(value):
                continue
            now = after.get(name)
            if now is not value:
                changed[f"{mod.__name__}.{name}"] = (repr(value)[:80], repr(now)[:80])
    return changed


def _class_bindings() -> dict[str, int]:
    return {f"{cls.__qualname__}.{name}": id(value) for cls in _PATCHABLE_CLASSES for name, value in vars(cls).items()}


_SIGNALS = tuple(
    getattr(signal, n)
    for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGCHLD", "SIGPIPE", "SIGALRM", "SIGSEGV")
    if hasattr(signal, n)
)


def _affinity() -> tuple[int, ...] | None:
    """The CPUs this process may run on, sorted (None where the platform has no ``sched_getaffinity``)."""
    return tuple(sorted(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else None


def _python_runtime() -> dict[str, Any]:
    return {
        "sys.getrecursionlimit()": sys.getrecursionlimit(),
        "sys.getswitchinterval()": sys.getswitchinterval(),
        "sys.get_int_max_str_digits()": getattr(sys, "get_int_max_str_digits", lambda: None)(),
        "sys.gettrace()": id(sys.gettrace()),
        "sys.getprofile()": id(sys.getprofile()),
        "sys.excepthook": id(sys.excepthook),
        "sys.displayhook": id(sys.displayhook),
        "sys.unraisablehook": id(sys.unraisablehook),
        "threading.excepthook": id(threading.excepthook),
        "sys.path": list(sys.path),
        "sys.meta_path": [id(f) for f in sys.meta_path],
        "sys.path_hooks": [id(f) for f in sys.path_hooks],
        "os.getcwd()": os.getcwd(),
        "signal handlers": [id(signal.getsignal(s)) for s in _SIGNALS],
        "socket.getdefaulttimeout()": socket.getdefaulttimeout(),
        "decimal.getcontext()": repr(decimal.getcontext()),
        "locale.setlocale(LC_ALL)": locale.setlocale(locale.LC_ALL),
        "faulthandler.is_enabled()": faulthandler.is_enabled(),
        "gc.get_debug()": gc.get_debug(),
        "gc.callbacks": [id(c) for c in gc.callbacks],
        "numpy.getbufsize()": np.getbufsize(),
        "numpy.geterrcall()": id(np.geterrcall()),
    }


def _logging() -> dict[str, tuple[Any, ...]]:
    # every logger that exists (root included): level, disabled, propagate, handlers, filters; logging.disable()
    loggers: dict[str, Any] = {"": logging.root, **logging.root.manager.loggerDict}
    out: dict[str, tuple[Any, ...]] = {"logging.disable()": (logging.root.manager.disable,)}
    for name, lg in loggers.items():
        if isinstance(lg, logging.Logger):
            out[name or "root"] = (
                lg.level,
                lg.disabled,
                lg.propagate,
                [id(h) for h in lg.handlers],
                [id(f) for f in lg.filters],
            )
    return out


def _threads() -> frozenset[str]:
    return frozenset(f"{t.name} ({t.ident})" for t in threading.enumerate())


_LOGGING = "logging's configuration (levels, handlers, filters of every logger; logging.disable)"
#: A logger as ``logging.getLogger(name)`` creates it: level NOTSET, enabled, propagating, no handlers or filters.
_UNCONFIGURED: tuple[Any, ...] = (logging.NOTSET, False, True, [], [])
_REBOUND = "functions of torch, numpy, builtins, warnings, copy, threading (rebound: monkeypatched)"

#: What :func:`process_state` reads: name -> a function returning a comparable value.
_READERS: dict[str, Callable[[], Any]] = {
    "warnings.filters (a filter added or removed: warnings.simplefilter/filterwarnings outside catch_warnings)": lambda: (
        list(warnings.filters)
    ),
    "torch.get_default_dtype()": torch.get_default_dtype,
    "torch.is_grad_enabled()": torch.is_grad_enabled,
    "torch.is_inference_mode_enabled()": torch.is_inference_mode_enabled,
    "torch.get_default_device()": lambda: str(torch.get_default_device()),
    "torch's function modes (torch.set_default_device, a TorchFunctionMode left entered)": _function_modes,
    "torch's dispatch modes (a TorchDispatchMode left entered)": _dispatch_modes,
    "torch.get_num_threads()": torch.get_num_threads,
    "torch.get_num_interop_threads()": torch.get_num_interop_threads,
    "torch.are_deterministic_algorithms_enabled()": lambda: (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    ),
    "torch.utils.deterministic.fill_uninitialized_memory": _fill_flag,
    "torch.get_float32_matmul_precision()": torch.get_float32_matmul_precision,
    "torch's settings (torch.backends.*, torch.set_warn_always, autocast, anomaly mode, every torch._C._get_* flag)": _torch_settings,
    "torch's print options (torch.set_printoptions)": _print_options,
    "denormals (torch.set_flush_denormal: the CPU's flush-to-zero flags)": _denormals,
    "numpy.geterr()": np.geterr,
    "numpy.get_printoptions()": np.get_printoptions,
    "torch's random state (torch.random.get_rng_state())": _torch_rng,
    "numpy's global random state (numpy.random.get_state())": _numpy_rng,
    "Python's random state (random.getstate())": random.getstate,
    "the current CUDA device and stream": _cuda_state,
    "the CUDA random state and sync debug mode": _cuda_settings,
    "gc.isenabled()": gc.isenabled,
    "gc.get_threshold()": gc.get_threshold,
    # objects moved to the permanent generation (held-out round r56 froze the heap in CpuGpuBuffer's constructor,
    # vLLM's start-up gc.freeze() copied into every buffer: each later buffer froze again)
    "gc.get_freeze_count()": gc.get_freeze_count,
    # the CPUs the process may run on (held-out round r53 pinned the thread of a large numpy copy to one core for good)
    "os.sched_getaffinity(0)": _affinity,
    "os.environ": lambda: dict(os.environ),
    "Python's runtime settings (recursion limit, switch interval, hooks, sys.path, cwd, signal handlers, socket timeout, decimal context, locale, ...)": _python_runtime,
    _LOGGING: _logging,
    _REBOUND: _bindings,
    "attributes of torch.Tensor and numpy.ndarray (rebound or added: monkeypatched)": _class_bindings,
    "Python threads (one started by the call and left running)": _threads,
}

#: Readers whose value is a set that may only shrink (a thread of an earlier test ending is not the call's doing).
_NO_NEW = frozenset({"Python threads (one started by the call and left running)"})

#: The names of the process-wide state the contract compares, in the order it reports them.
STATE_NAMES = tuple(_READERS)


def process_state() -> dict[str, Any]:
    """A snapshot of the process-wide state of :data:`STATE_NAMES` (name -> value)."""
    return {name: read() for name, read in _READERS.items()}


def _dict_diff(old: dict[Any, Any], new: dict[Any, Any], missing: Any = "<absent>") -> tuple[Any, Any] | None:
    """The entries of two dicts that differ, as ``(old's, new's)`` (an absent key compares as ``missing``, shows as
    "<absent>"), or None when none does."""
    diff = sorted(k for k in old.keys() | new.keys() if old.get(k, missing) != new.get(k, missing))
    if not diff:
        return None
    return {k: old.get(k, "<absent>") for k in diff}, {k: new.get(k, "<absent>") for k in diff}


def _changed_part(name: str, old: Any, new: Any) -> tuple[Any, Any] | None:
    """``(old, new)`` narrowed to what changed (dict readers: the changed keys), or None when nothing did."""
    if name in _NO_NEW:
        started = new - old
        return None if not started else ("none", sorted(started))
    if name == _LOGGING:  # a logger created by the call counts as changed only when configured
        return _dict_diff(old, new, missing=_UNCONFIGURED)
    if name == _REBOUND:
        rebound = _rebound(old, new)
        if not rebound:
            return None
        return {k: v[0] for k, v in rebound.items()}, {k: v[1] for k, v in rebound.items()}
    if isinstance(old, dict) and isinstance(new, dict):
        return _dict_diff(old, new)
    return None if old == new else (old, new)


def _first_change(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, Any, Any] | None:
    for name in STATE_NAMES:
        part = _changed_part(name, before[name], after[name])
        if part is not None:
            return name, part[0], part[1]
    return None


def _shown(name: str, value: Any) -> str:
    if name.startswith("warnings.filters"):
        return f"{len(value)} filters, first {value[:2]!r}"
    text = repr(value)
    return text if len(text) <= 120 else f"{text[:60]}...({len(text)} characters)"


@contextlib.contextmanager
def _gc_disabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextlib.contextmanager
def _gc_thresholds() -> Iterator[None]:
    was = gc.get_threshold()
    gc.set_threshold(100_000, 50, 50)  # an engine's setting for long-lived batches (fewer collections)
    try:
        yield
    finally:
        gc.set_threshold(*was)


def _put_warnings(filters: list[Any]) -> None:
    warnings.filters[:] = filters  # type: ignore[index]
    # what simplefilter calls after changing the list (the once-registries' version); private, named by release
    mutated = getattr(warnings, "_filters_mutated", None) or getattr(warnings, "_filters_mutated_lock_held", None)
    if mutated is not None:
        mutated()


def _set_cudnn_benchmark(on: bool) -> None:
    torch.backends.cudnn.benchmark = on


def _set_matmul_tf32(on: bool) -> None:
    torch.backends.cuda.matmul.allow_tf32 = on


def _put_root_handlers(handlers: list[logging.Handler]) -> None:
    logging.root.handlers[:] = handlers


#: The process-wide settings a starting state sets and puts back: name -> (read it, write it). Print options are
#: written as keyword arguments (a partial dict sets those options only; a full one, as read, restores them all).
_SETTINGS: dict[str, tuple[Callable[[], Any], Callable[[Any], object]]] = {
    "warnings": (lambda: list(warnings.filters), _put_warnings),
    "dtype": (torch.get_default_dtype, torch.set_default_dtype),
    "grad": (torch.is_grad_enabled, torch.set_grad_enabled),
    "torch_print": (_torch_print_options, lambda v: torch.set_printoptions(**v)),  # type: ignore[no-untyped-call]
    "numpy_print": (np.get_printoptions, lambda v: np.set_printoptions(**v)),
    "numpy_err": (np.geterr, lambda v: np.seterr(**v)),
    "numpy_bufsize": (np.getbufsize, np.setbufsize),
    "numpy_errcall": (np.geterrcall, np.seterrcall),
    "fill": (_fill_flag, _set_fill_flag),
    "matmul": (torch.get_float32_matmul_precision, torch.set_float32_matmul_precision),
    "cudnn_benchmark": (lambda: torch.backends.cudnn.benchmark, _set_cudnn_benchmark),
    "matmul_tf32": (lambda: torch.backends.cuda.matmul.allow_tf32, _set_matmul_tf32),
    "warn_always": (torch.is_warn_always_enabled, torch.set_warn_always),
    "recursion_limit": (sys.getrecursionlimit, sys.setrecursionlimit),
    "log_level": (lambda: logging.root.level, logging.root.setLevel),
    "socket_timeout": (socket.getdefaulttimeout, socket.setdefaulttimeout),
    "threads": (torch.get_num_threads, torch.set_num_threads),
    "switch_interval": (sys.getswitchinterval, sys.setswitchinterval),
    "gc_debug": (gc.get_debug, gc.set_debug),
    "gc_threshold": (gc.get_threshold, lambda v: gc.set_threshold(*v)),
    "gc_enabled": (gc.isenabled, lambda on: gc.enable() if on else gc.disable()),
    "int_max_str_digits": (
        getattr(sys, "get_int_max_str_digits", lambda: None),
        lambda v: sys.set_int_max_str_digits(v) if v is not None else None,
    ),
    "affinity": (_affinity, lambda v: os.sched_setaffinity(0, v) if v is not None else None),
    "deterministic": (
        lambda: (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()),
        lambda v: torch.use_deterministic_algorithms(v[0], warn_only=v[1]),
    ),
    "root_handlers": (lambda: list(logging.root.handlers), _put_root_handlers),
}


def _read_settings(names: Any) -> dict[str, Any]:
    return {name: _SETTINGS[name][0]() for name in names}


def _write_settings(values: dict[str, Any]) -> None:
    for name, value in values.items():
        _SETTINGS[name][1](value)


@contextlib.contextmanager
def _with_settings(values: dict[str, Any]) -> Iterator[None]:
    """``values`` (name -> value, names of :data:`_SETTINGS`) set for the block, each put back as it was after it."""
    was = _read_settings(values)
    _write_settings(values)
    try:
        yield
    finally:
        _write_settings(was)


def _fill_uninitialized(on: bool) -> Callable[[], contextlib.AbstractContextManager[None]]:
    return lambda: _with_settings({"fill": on})


#: The settings as the kit's import found them (pytest's collection, before any test called a target): what
#: "as the process started" puts back.
_STARTED = _read_settings(
    (
        "warnings",
        "dtype",
        "grad",
        "torch_print",
        "numpy_print",
        "numpy_err",
        "numpy_bufsize",  # held-out round r50: a large copy's np.setbufsize, left by an earlier test of the process
        "numpy_errcall",
        "fill",
        "matmul",
        # and the other settings a helper could leave changed for good: from "as found" only the first call of the
        # process that changes one is seen
        "threads",
        "switch_interval",
        "gc_debug",
        "deterministic",
        # held-out round r53 raised gc's first threshold once, only from below 50,000: after the first call of the
        # process that did it, "as found" started from the raised value and saw nothing
        "gc_threshold",
        "gc_enabled",
        "int_max_str_digits",
        "affinity",  # held-out round r53: a core pinned for good by an earlier test is not seen from "as found"
    )
)


def _as_started() -> contextlib.AbstractContextManager[None]:
    """The settings put back as the process started (:data:`_STARTED`, the root logger without handlers), then
    restored: a helper whose change persists
    is seen even when an earlier call of the process already made it (the check compares one call's before and
    after; an outside round's print options and uninitialised-memory switch went unseen from "as found")."""
    # and a root logger without handlers, as every Python process starts (pytest adds its capture handlers)
    return _with_settings({**_STARTED, "root_handlers": []})


def _engine_settings() -> contextlib.AbstractContextManager[None]:
    """Settings a serving engine sets away from their defaults (cuDNN autotuning and TF32, float32 matmul precision
    "high", warnings always shown, short print options, a deeper recursion limit, INFO logging, a socket timeout, one
    intra-op thread, a root logger without handlers),
    restored afterwards: a helper that *resets* one of them to its default is seen only from here."""
    return _with_settings(
        {
            "cudnn_benchmark": True,
            "matmul_tf32": True,
            "matmul": "high",
            "warn_always": True,
            "torch_print": {"precision": 2},
            "numpy_print": {"precision": 3, "suppress": True},
            "recursion_limit": sys.getrecursionlimit() + 1000,
            "log_level": logging.INFO,
            "socket_timeout": 30.0,
            # one intra-op thread a worker, and a root logger with no handlers, as a process that configured no
            # logging has (pytest's own capture handlers sit on it inside a test, so logging.warning()'s basicConfig
            # would do nothing there): held-out round r47 reset the thread count to the core count and logged a
            # refusal through the root logger
            "threads": 1,
            "root_handlers": [],
        }
    )


#: The process-wide states a call may start from (an engine that switched the collector off for its step loop; one
#: that raised its thresholds; torch's filling of uninitialised memory on and off): a helper that *resets* a setting
#: to its default leaves a default process as it was and changes only these (the held-out round r39: ``gc.disable()``
#: / ``gc.enable()`` around a conversion).
STARTS: dict[str, Callable[[], contextlib.AbstractContextManager[None]]] = {
    "as found": contextlib.nullcontext,
    "as the process started": _as_started,
    "gc disabled": _gc_disabled,
    "gc thresholds raised": _gc_thresholds,
    # set both ways, so a helper that switches it off is seen even after an earlier call left it off (an outside
    # round's bug: every later check began from the state the first call had left), and one that switches it on too
    "uninitialised memory filled": _fill_uninitialized(True),
    "uninitialised memory not filled": _fill_uninitialized(False),
    "engine settings": _engine_settings,
    # a caller's np.seterr(all="raise") (NaNs caught in its preprocessing), or a call inside np.errstate(...): a helper
    # that puts back numpy's defaults, or the state it read at import, is seen only from here (held-out round r56)
    "numpy errors raising": lambda: _with_settings({"numpy_err": {"all": "raise"}}),
    # deterministic algorithms in their warn-only form: a helper that switches them off around a kernel and puts back
    # "on" without warn_only is seen only from here (held-out round r57)
    "deterministic algorithms, warn only": lambda: _with_settings({"deterministic": (True, True)}),
    # a call inside the engine's torch.no_grad() or torch.inference_mode() (vLLM's execute_model runs under
    # inference_mode): a helper that switches grad mode off around its write and back *on*, not to what it was, is
    # seen only from here (held-out round r58's apply_write)
    "grad mode off": torch.no_grad,
    "inference mode": torch.inference_mode,
}


def _fail_if_changed(before: dict[str, Any], after: dict[str, Any], what: str, call: str) -> None:
    """Report the first state :func:`process_state` read differently ``after`` than ``before``: "``what`` changed
    <state>", with its value before and after."""
    changed = _first_change(before, after)
    if changed is not None:
        name, old, new = changed
        fail("side-effects", f"{what} changed {name}", got=_shown(name, new), expected=_shown(name, old), call=call)


@check("side-effects")
def check_side_effects(
    target: Target, data: Any, kwargs: dict[str, Any], *, valid: bool = True, start: str = "as found"
) -> None:
    """side-effects: one call of ``target`` on ``data``, ``kwargs`` leaves :func:`process_state` as it was.

    ``valid``: whether the call is a valid one; a failing call (``valid=False``) may raise
    whatever it raises (other contracts judge that), but must leave the process as it was too.
    ``start``: the state the call starts from, one of :data:`STARTS` (restored afterwards).

    Raises:
        ContractViolation: some process-wide state differs after the call (the first
            one, in :data:`STATE_NAMES` order).
        ValueError: ``start`` is not one of :data:`STARTS`.
    """
    if start not in STARTS:
        raise ValueError(f"start must be one of {sorted(STARTS)}, got {start!r}")
    call = target.describe_call(data, kwargs) + ("" if start == "as found" else f"  # starting with {start}")
    outcome = "returned"
    with STARTS[start]():
        before = process_state()
        try:
            target.call(data, kwargs)
        except Exception as exc:  # noqa: BLE001 - a refusal is judged by bad-input; here only what it left behind
            outcome = f"raised {type(exc).__name__}"
        after = process_state()
    _fail_if_changed(before, after, f"a {'valid' if valid else 'failing'} call ({outcome})", call)


@check("side-effects")
def check_buffer_side_effects(target: Target, spec: dict[str, Any], device: torch.device, n: int | None) -> None:
    """side-effects (CpuGpuBuffer): construction, ``copy_to_gpu(n)`` and ``copy_to_cpu(n)`` leave :func:`process_state` as it was."""
    target.require("buffer", "side-effects")
    before = process_state()
    buf = make_buffer(target, spec, device)
    args = () if n is None else (n,)
    buf.copy_to_gpu(*args)
    buf.copy_to_cpu(*args)
    _fail_if_changed(
        before,
        process_state(),
        "a CpuGpuBuffer's construction and copies",
        f"{target.buffer_name}(*{spec['size']}, dtype={spec['dtype']}, device={str(device)!r}, pin_memory={spec['pin_memory']}).copy_to_gpu/cpu({'' if n is None else n})",
    )


def _buffer_utils_scenario(target: Target) -> list[Any]:
    """Every Model Runner V2 class of the target at work on this platform's device (:func:`pool_device`): a UVA view
    (``UvaBuffer`` with CUDA, ``NonUvaBuffer`` without), a pool's steps (growth included) by ``copy_to_uva`` and
    ``copy_to_gpu``, a backed tensor's refresh, staged writes applied, a refused construction, one fused apply. Returns the
    objects made, for the caller to keep alive while it reads the state (a writer's threads live as long as it)."""
    device = pool_device()
    uva_cls = utils(target, "side-effects", "UvaBuffer" if device.type == "cuda" else "NonUvaBuffer")
    pool_cls = utils(target, "side-effects", "UvaBufferPool")
    backed_cls = utils(target, "side-effects", "UvaBackedTensor")
    staged_cls = utils(target, "side-effects", "StagedWriteTensor")
    fused_cls = utils(target, "side-effects", "FusedStagedWriter")
    buf = uva_cls(4, torch.int32)
    buf.np[:] = 1
    views = [buf.uva(2)]
    pool = pool_cls(4, torch.int32)
    views += [
        pool.copy_to_uva([1, 2]),
        pool.copy_to_gpu(np.arange(3, dtype=np.int32)),
        pool.copy_to_uva(list(range(9))),
    ]
    backed = backed_cls(4, torch.int32)
    backed.np[:] = 3
    backed.copy_to_uva(2)
    staged = staged_cls((2, 4), torch.int32, device)
    staged.stage_write(0, 1, [1, 2])
    staged.stage_write_elem(1, 3)
    try:
        # a refused construction (float16: no staged-write dtype; judged by staged-write). Not a write past the
        # tensor: vLLM's kernel would store it out of bounds, into this process's memory under Triton's interpreter
        staged_cls((2, 4), torch.float16, device)
    except Exception:  # noqa: BLE001 - only what it leaves behind is judged here
        pass
    staged.apply_write()
    pair = [staged_cls((2, 4), torch.int32, device) for _ in range(2)]
    for k, t in enumerate(pair):
        t.stage_write(k, 0, [k + 5, k + 6])
    writer = fused_cls(device, 2)
    writer.apply(pair, *fused_tables(pair, device))
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return [buf, pool, backed, staged, pair, writer, views]


_BUFFER_UTILS_CALL = (
    "b = {uva}(4, torch.int32); b.np[:] = 1; b.uva(2); p = UvaBufferPool(4, torch.int32); p.copy_to_uva([1, 2]); "
    "p.copy_to_gpu(np.arange(3, dtype=np.int32)); p.copy_to_uva(list(range(9))); u = UvaBackedTensor(4, torch.int32); "
    "u.np[:] = 3; u.copy_to_uva(2); t = StagedWriteTensor((2, 4), torch.int32, {dev!r}); t.stage_write(0, 1, [1, 2]); "
    "t.stage_write_elem(1, 3); StagedWriteTensor((2, 4), torch.float16, {dev!r}) (refused); t.apply_write(); a, b2 = StagedWriteTensor((2, 4), "
    "torch.int32, {dev!r}) x 2, a write each; FusedStagedWriter({dev!r}, 2).apply([a, b2], ptrs, strides)"
)


@check("side-effects")
def check_buffer_utils_side_effects(target: Target, start: str = "as found") -> None:
    """side-effects (Model Runner V2's utilities): :func:`_buffer_utils_scenario`, from the starting state ``start``
    (one of :data:`STARTS`), leaves :func:`process_state` as it was while its objects are alive (held-out round r54
    left grad mode off after ``apply_write`` and a fused writer's worker threads running)."""
    target.require("buffer-utils", "side-effects")
    if start not in STARTS:
        raise ValueError(f"start must be one of {sorted(STARTS)}, got {start!r}")
    device = pool_device()
    call = _BUFFER_UTILS_CALL.format(uva="UvaBuffer" if device.type == "cuda" else "NonUvaBuffer", dev=str(device))
    with STARTS[start]():
        before = process_state()
        made = _buffer_utils_scenario(target)
        after = process_state()
        del made
    _fail_if_changed(
        before,
        after,
        "Model Runner V2's utilities at work",
        call + ("" if start == "as found" else f"  # starting with {start}"),
    )


@prop("side-effects")
def prop_side_effects(target: Target, device: torch.device, **overrides: Any) -> None:
    """side-effects: drawn valid calls and bad inputs, each leaving the process-wide state as it found it."""
    require_device(target, device, "side-effects")
    calls = hs.h2d_calls(device, inputs=target.inputs, requires=target.requires)
    bad = hs.bad_inputs(device)

    def body(data: st.DataObject) -> None:
        start = data.draw(st.sampled_from(sorted(STARTS, key=lambda k: k != "as found")), label="starting state")
        for _ in range(data.draw(st.integers(1, 3), label="calls")):
            if data.draw(st.booleans(), label="a valid call"):
                call = data.draw(calls, label="call")
                check_side_effects(target, call.data, call.kwargs, start=start)
            else:
                wrong = data.draw(bad, label="bad input")
                if not in_domain(target, wrong.data, wrong.kwargs) or (
                    wrong.kwargs.get("out") is not None and "out" not in target.capabilities
                ):
                    continue  # outside what the target declares: not its call
                check_side_effects(target, wrong.data, wrong.kwargs, valid=False, start=start)

    run_given(body, overrides)


@prop("side-effects", cap=10)
def prop_buffer_side_effects(target: Target, device: torch.device, **overrides: Any) -> None:
    """side-effects: CpuGpuBuffer construction and copies of drawn specs leave the process-wide state as they found it."""
    require_device(target, device, "side-effects")
    target.require("buffer", "side-effects")

    def body(data: st.DataObject) -> None:
        spec = data.draw(hs.buffer_specs(), label="buffer")
        rows = spec["size"][0]
        n = data.draw(st.one_of(st.none(), st.integers(0, rows)), label="n")
        check_buffer_side_effects(target, spec, device, n)

    run_given(body, overrides)


@prop("side-effects", table=True)
def prop_buffer_utils_side_effects(target: Target, device: torch.device, **overrides: Any) -> None:
    """side-effects: Model Runner V2's six classes at work (:func:`check_buffer_utils_side_effects`) from every
    starting state (:data:`STARTS`; a table)."""
    target.require("buffer-utils", "side-effects")
    del device, overrides  # the classes live on this platform's device (CUDA where UVA is available)
    rows = Rows("side-effects buffer-utils")
    for start in STARTS:
        rows.row(check_buffer_utils_side_effects, target, start)
    rows.finish()


@prop("side-effects", table=True)
def prop_side_effects_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """side-effects: a list, an array, a tensor call, a 40,000-element list and 40,000-element copies and conversions
    from every starting state
    (:data:`STARTS`), and every bad-input
    kind's simplest case (:func:`~h2d_contracts.strategies.bad_inputs_table`), each leaving the process-wide state as
    it found it: a table, so a starting state or an error path (print options set to shorten a message's preview) is
    met every run, not when a draw reaches it."""
    require_device(target, device, "side-effects")
    del overrides  # deterministic: every row every run
    rows = Rows("side-effects table")
    valid: list[Any] = [
        [1.5, -2.0],
        np.arange(6, dtype=np.int32).reshape(2, 3),
        torch.arange(4, dtype=torch.int64),
        # a long flat list, the hot path's token ids at prefill (held-out round r53 raised gc's thresholds for lists
        # past 4,096 elements and left them raised)
        list(range(40_000)),
    ]
    # and a conversion large enough for the reference's piecewise host copy (40,000 float32 into float16: held-out
    # round r47 pinned torch to one thread there and "restored" the core count)
    converted = (np.ones(40_000, dtype=np.float32), {"dtype": torch.float16})
    # and the two numpy routes of that copy: a same-dtype copy and a cast numpy makes (held-out round r50 raised
    # numpy's ufunc buffer size there and left it: np.setbufsize is process-wide, not a per-call option)
    numpy_routes = [
        (np.arange(40_000, dtype=np.int32), {}),
        (np.ones(40_000, dtype=np.float32), {"dtype": torch.int32}),
    ]
    for start in STARTS:
        for data, extra in [*((d, {}) for d in valid), converted, *numpy_routes]:
            kwargs = domain_kwargs(target, data, {"device": device, **extra})
            if in_domain(target, data, kwargs):
                rows.row(check_side_effects, target, data, kwargs, start=start)
    # an int too long to print (10**5000: past Python's integer-string limit of 4,300 digits), refused: its message
    # must not lift the limit to echo it (held-out round r53 turned it off for the process, CVE-2020-10735's guard)
    huge = [10**5000]
    huge_kwargs: dict[str, Any] | None
    try:  # a target whose calls need a dtype (SGLang's) gets the data's own: torch has none for this int
        huge_kwargs = domain_kwargs(target, huge, {"device": device})
    except (ValueError, OverflowError):
        huge_kwargs = None  # outside the target's domain: not its call
    if huge_kwargs is not None and in_domain(target, huge, huge_kwargs):
        rows.row(check_side_effects, target, huge, huge_kwargs, valid=False, start="as the process started")
    for bad in hs.bad_inputs_table(device):
        if not in_domain(target, bad.data, bad.kwargs) or (
            bad.kwargs.get("out") is not None and "out" not in target.capabilities
        ):
            continue  # outside what the target declares: not its call
        rows.row(check_side_effects, target, bad.data, bad.kwargs, valid=False, start="as the process started")
    rows.finish()
