"""Control: the unmodified reference through the round's plumbing.

A fork of the reference's four modules with no override (its own staging pools and
device cache, its own ``empty_cache``), the reference's ``CpuGpuBuffer`` and the
reference's six Model Runner V2 classes (capability ``buffer-utils``). It must not be
caught by anything: every bug of the round differs from it by one change.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


def target() -> Target:
    f = fork("b00")
    return make_target(
        "b00_control",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
