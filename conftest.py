"""The kit's checkout: load the pytest plugin when its entry point did not.

Installed (``pip install -e .`` or a wheel), the kit's plugin ``h2d_contracts.plugin`` is
loaded by pytest through the ``pytest11`` entry point (pyproject.toml). Without an
install (``PYTHONPATH=.``) or with ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` set, this file loads
it; loading it twice would register it twice.
"""

import sys

if "h2d_contracts.plugin" not in sys.modules:
    pytest_plugins = ["h2d_contracts.plugin"]
