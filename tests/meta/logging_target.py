"""A target that logs which test calls it: the reference, every call appended to ``$H2D_TEST_LOG`` with the test id.

``--h2d-impl tests.meta.logging_target:target`` (or, copied out of the checkout,
``logging_target:target``). The log is the independent witness of the verdict's rule that a
test reported as passed called the target: pytest sets ``PYTEST_CURRENT_TEST`` to the
running test's id, fresh processes a contract starts inherit it, and every call here writes
it. Not the plugin's own counting: a second, separate record.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import types
from collections.abc import Callable
from typing import Any

from h2d_contracts.contracts import Target, load_target
from h2d_contracts.harness.target import BUFFER_UTILS


def _logged(fn: Callable[..., Any] | None) -> Callable[..., Any] | None:
    if fn is None:
        return None

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        path, test = os.environ.get("H2D_TEST_LOG"), os.environ.get("PYTEST_CURRENT_TEST")
        if path and test:
            with open(path, "a") as fh:
                fh.write(test.rsplit(" (", 1)[0] + "\n")
        return fn(*args, **kwargs)

    return call


def target() -> Target:
    """The reference, logging the test id of every call (``async_tensor_h2d``, the CPU variant, ``CpuGpuBuffer``,
    the constructors of its Model Runner V2 utilities)."""
    ref = load_target("reference")
    utils = types.SimpleNamespace(**{n: _logged(getattr(ref.buffer_utils, n)) for n in BUFFER_UTILS})
    return dataclasses.replace(
        ref,
        name="logging-reference",
        async_tensor_h2d=_logged(ref.async_tensor_h2d),  # type: ignore[arg-type]
        cpu_variant=_logged(ref.cpu_variant),  # type: ignore[arg-type]
        buffer_cls=_logged(ref.buffer_cls),
        buffer_utils=utils,
        spec="",  # set by load_target to this factory's spec
    )
