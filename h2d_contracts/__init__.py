"""h2d-contracts: a property-based verification kit for host-to-device (H2D) copy utilities.

Everything the kit installs lives under this one package, so no generic top-level
name (``contracts``, ``strategies``, ``tests``) is claimed in site-packages:

    ``h2d_contracts.h2d_impl``      the reference implementation (vLLM's ``async_tensor_h2d``, ``CpuGpuBuffer``)
    ``h2d_contracts.strategies``    Hypothesis strategies for the inputs users pass
    ``h2d_contracts.contracts``     the contracts by area, the :class:`~h2d_contracts.contracts.Target` protocol,
                                    the built-in targets (``contracts.targets``: vLLM, SGLang), the mutants
                                    (``contracts.mutants``), the report
    ``h2d_contracts.tests``         the packaged contract suite (``pytest --pyargs h2d_contracts.tests``)
    ``h2d_contracts.plugin``        the pytest plugin (entry point ``pytest11: h2d_contracts``)

    ``h2d_contracts.harness``       the machinery the contracts run on: the Target protocol, checks, calling,
                                    the oracle, the runner, violations, reproductions

The repository keeps the layout the project was specified with (``h2d_impl/``,
``harness/``, ``contracts/``, ``strategies/``, ``tests/`` at the top); ``pyproject.toml``
maps those folders under this package (its ``package-dir`` table), in a wheel and in an
editable install (``pip install -e .``) alike, so every module has one name,
``h2d_contracts.X.Y``, and nothing imports the folders as top-level ``X``. A checkout is
used through its editable install: this package never edits its own ``__path__``.
"""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

_HERE = Path(__file__).resolve().parent
#: True in a source checkout (the subpackages are folders next to this package's folder).
CHECKOUT = not (_HERE / "contracts").is_dir() and (_HERE.parent / "contracts" / "__init__.py").is_file()
#: The folder of the contract suite that ``pytest --pyargs h2d_contracts.tests`` collects.
SUITE_DIR = (_HERE.parent / "tests") if CHECKOUT else (_HERE / "tests")
#: The kit's expected-failure files of its built-in targets (``contracts/targets/xfails/vllm.txt``).
XFAILS_DIR = ((_HERE.parent / "contracts") if CHECKOUT else (_HERE / "contracts")) / "targets" / "xfails"
