"""Control: the unmodified reference through the same plumbing as every bug of round r44.

A fork of the four reference modules with no override (its own staging pools and
resolved-device cache), the reference ``CpuGpuBuffer`` and the six Model Runner V2
classes built by ``bu_fork("b00")`` with nothing replaced (subclasses whose methods are
the reference's own code, rebound). It must never be caught, and ``repro.py`` checks that
it gives the plain reference's result on every scenario.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target


def _fork() -> Fork:
    return fork("b00")


def classes():
    return bu_fork("b00")


def target() -> Target:
    f = _fork()
    return make_target(
        "b00_control",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=classes(),
    )
