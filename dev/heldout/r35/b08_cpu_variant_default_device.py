"""b08 (CPU): the CPU-platform variant defaults ``device`` to ``"cpu"``.

The change: ``async_tensor_h2d_cpu(data, device=None, ...)`` became
``async_tensor_h2d_cpu(data, device="cpu", ...)``.

Why an engineer writes it: on a CPU worker the host is the only possible target, so a
default saves every call site from spelling it.

What breaks: the variant has "same signature and errors" as ``async_tensor_h2d``
(docs/reference.md); its docstring: ``device`` ... "or None (then ``out`` is required)";
the target contract: neither ``device`` nor ``out`` raises ``TypeError`` naming an argument.
``async_tensor_h2d_cpu([1])`` returns ``tensor([1])``; the main function raises
``TypeError``, so the cpu-path contract (variant and main agree) breaks too.
"""

from __future__ import annotations

from ._common import fork, fork_target


def async_tensor_h2d_cpu(data, device="cpu", dtype=None, out=None):  # BUG: device defaults to "cpu"
    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)
    if out is not None:
        return out.copy_(source)
    return _stage(source, dtype, pin=False)


def target():
    f = fork("b08", h2d={"async_tensor_h2d_cpu": async_tensor_h2d_cpu})
    return fork_target("b08-cpu-variant-default-device", f, main=False)
