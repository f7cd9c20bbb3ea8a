"""h2d-contracts: a property-based verification kit for host-to-device (H2D) copy utilities.

Everything the kit installs lives under this one package, so no generic top-level
name (``contracts``, ``strategies``, ``tests``) is claimed in site-packages:

    ``h2d_contracts.h2d_impl``      the reference implementation (vLLM's ``async_tensor_h2d``, ``CpuGpuBuffer``)
    ``h2d_contracts.strategies``    Hypothesis strategies for the inputs users pass
    ``h2d_contracts.contracts``     the contracts, the :class:`~h2d_contracts.contracts.Target` protocol, the report
    ``h2d_contracts.tests``         the packaged contract suite (``pytest --pyargs h2d_contracts.tests``)
    ``h2d_contracts.plugin``        the pytest plugin (entry point ``pytest11: h2d_contracts``)
    ``h2d_contracts.h2d_adapters``  built-in downstream targets (vLLM)
    ``h2d_contracts.h2d_mutants``   deliberately broken references the meta-tests hunt

The repository keeps the layout the project was specified with (``h2d_impl/``,
``contracts/``, ``strategies/``, ``tests/`` at the top); ``pyproject.toml`` maps those
folders under this package when a wheel is built. In a checkout (editable install or
``PYTHONPATH=.``) this file finds no subpackages next to it and makes each
``h2d_contracts.<name>`` an alias of the checkout's top-level ``<name>`` module (the very
same module object, so identity checks, ``mock.patch`` and mutmut's trampolines, which
compare ``__module__``, see one module, not two copies).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

__version__ = "0.1.0"

#: The subpackages, by their name under this package (= their folder in the repository).
SUBPACKAGES = ("h2d_impl", "strategies", "contracts", "tests", "h2d_adapters", "h2d_mutants")

_HERE = Path(__file__).resolve().parent
#: True in a source checkout (the subpackages are folders next to this package's folder).
CHECKOUT = not (_HERE / "contracts").is_dir() and (_HERE.parent / "contracts" / "__init__.py").is_file()
#: The folder of the contract suite that ``pytest --pyargs h2d_contracts.tests`` collects.
SUITE_DIR = (_HERE.parent / "tests") if CHECKOUT else (_HERE / "tests")
#: The kit's expected-failure files of its built-in targets (``xfails/vllm.txt``).
XFAILS_DIR = (_HERE.parent / "xfails") if CHECKOUT else (_HERE / "xfails")


class _CheckoutAliases(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``h2d_contracts.X[.Y]`` -> the checkout's top-level ``X[.Y]`` module (the same object).

    A meta path finder, as ``six.moves`` and setuptools' editable finders are; installed
    first on ``sys.meta_path`` and only in a checkout. A wheel holds real subpackages and
    never creates it.
    """

    _PREFIX = __name__ + "."

    def find_spec(self, fullname, path=None, target=None):  # noqa: ANN001 - importlib's signature
        if not fullname.startswith(self._PREFIX):
            return None
        real = fullname[len(self._PREFIX):]
        if real.split(".", 1)[0] not in SUBPACKAGES:
            return None
        module = _import_from_checkout(real)
        spec = importlib.machinery.ModuleSpec(fullname, self, is_package=hasattr(module, "__path__"))
        spec.loader_state = module
        return spec

    def create_module(self, spec):  # noqa: ANN001
        return spec.loader_state

    def exec_module(self, module) -> None:  # noqa: ANN001
        # importlib set module.__spec__ to the alias's spec: give the module its own back.
        real_spec = getattr(module, "__h2d_real_spec__", None)
        if real_spec is not None:
            module.__spec__ = real_spec


def _import_from_checkout(name: str):
    """Import ``name`` (top-level ``X`` or ``X.Y``) from the checkout root, never from elsewhere on sys.path."""
    top = name.split(".", 1)[0]
    loaded = sys.modules.get(top)
    root = str(_HERE.parent)
    if loaded is None:
        spec = importlib.machinery.PathFinder.find_spec(top, [root])
        if spec is None:
            raise ImportError(f"h2d_contracts (checkout at {root}): no {top!r} package there", name=name)
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[top] = loaded
        try:
            spec.loader.exec_module(loaded)  # type: ignore[union-attr]
        except BaseException:
            sys.modules.pop(top, None)
            raise
    elif not str(getattr(loaded, "__file__", "") or "").startswith(root):
        raise ImportError(
            f"h2d_contracts (checkout at {root}): the top-level module {top!r} already imported is {loaded!r}, "
            f"not the checkout's; run from the checkout or install the kit as a wheel",
            name=name,
        )
    module = importlib.import_module(name)
    if not hasattr(module, "__h2d_real_spec__"):
        try:
            module.__h2d_real_spec__ = module.__spec__
        except AttributeError:
            pass
    return module


if CHECKOUT and not any(isinstance(f, _CheckoutAliases) for f in sys.meta_path):
    sys.meta_path.insert(0, _CheckoutAliases())
