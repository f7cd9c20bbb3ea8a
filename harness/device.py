"""Whether this process's CUDA context is lost: the probe the runner and the pytest plugin share.

A kernel fault (an illegal memory access) leaves CUDA's error sticky: every later CUDA call
of the process raises it. The runner names such a test's failure by the loss
(:func:`harness.runner.search_kinds`), not by what Hypothesis's replays after the loss saw;
the plugin ends the process's tests (``h2d_contracts.plugin.device_loss``).
:func:`context_error` is read as a module attribute, so the kit's meta-tests replace it
on a CPU host (``tests/meta/_simulated_device_loss.py``).
"""

from __future__ import annotations

__all__ = ["context_error"]


def context_error() -> str | None:
    """The sticky error of this process's CUDA context (``"AcceleratorError: CUDA error: ..."``), or None.

    None where CUDA is not initialised (a CPU-only host, a process that never touched the
    device) or where the context answers. An error is sticky when ``torch.cuda.synchronize()``
    raises and a fresh one-element allocation with a second synchronize raises too; an error
    that a second synchronize no longer shows is not a lost context.
    """
    import torch

    if not torch.cuda.is_initialized():
        return None
    # torch's C entry points, not torch.cuda.synchronize()/current_device(): a test may monkeypatch those (the
    # reference's routing tests pretend two visible devices, device 1 current), and a probe through them would read a
    # device that does not exist as a lost context (seen on an H200: "invalid device ordinal")
    sync = getattr(torch._C, "_cuda_synchronize", torch.cuda.synchronize)
    current = getattr(torch._C, "_cuda_getDevice", torch.cuda.current_device)
    try:
        sync()
        return None
    except RuntimeError as exc:  # torch.AcceleratorError (torch 2.9 on, a RuntimeError) or an older RuntimeError
        first = (str(exc).strip().splitlines() or [""])[0]
        error = f"{type(exc).__name__}: {first}".rstrip(": ")
    try:
        torch.ones(1, device=torch.device("cuda", current())).add_(1)
        sync()
    except RuntimeError:  # the same context still refuses a fresh allocation: the error is sticky
        return error
    return None
