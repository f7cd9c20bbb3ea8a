"""Control: the unmodified reference through the same plumbing as every bug of round r40.

A fork of the four reference modules with no override (its own staging pools and
resolved-device cache), the reference ``CpuGpuBuffer`` and the reference Model Runner V2
classes (``buffer_utils_ns()`` with nothing replaced). It must never be caught.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import Fork, buffer_utils_ns, fork, make_target


def _fork() -> Fork:
    return fork("b00")


def target() -> Target:
    f = _fork()
    return make_target(
        "b00_control",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
