"""Control: the unmodified reference through the same plumbing as every bug of round r60.

A fork of the four reference modules with no override (its own staging pools and
resolved-device cache), the reference ``CpuGpuBuffer`` and the six Model Runner V2
classes built by ``bu_fork("b00")`` with nothing replaced. It must never be caught.
"""

from __future__ import annotations

from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def target() -> Target:
    f = fork("b00")
    return make_target(
        "b00_control",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b00"),
    )
