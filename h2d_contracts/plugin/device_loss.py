"""A target that loses the CUDA context ends its process's tests at once, named once, instead of failing them one by one.

When a kernel faults (an illegal memory access by a staged write past its tensor, a fused
apply handed a short pointer table), CUDA's error is sticky: every later CUDA call of the
process raises the same ``AcceleratorError``, so every later test of that process fails
with "could not complete: ... an illegal memory access was encountered", each looking like
a finding of its own, and none of them reproduces in a fresh process (measured on an H200
with vLLM 0.27.1 and 0.29.0's Model Runner V2 utilities: 15 such problems from one fault;
docs/records/gpu/README.md). Here, after each test the process's CUDA context is probed (only
where CUDA is initialised: never on a CPU-only host):

- the test during which the context was lost fails, or keeps its own failure, with the
  error added: "[device lost] after this test's calls ...";
- every later test of the process fails at once as "not run: this process's CUDA context
  was lost in <test> (<error>)", as ``--h2d-max-hangs`` does for a hung target. Under
  ``pytest -n`` that is one worker's tests; the other workers' contexts are their own.

The probe is :func:`probe` (a module attribute, so the meta-tests simulate a loss on a CPU
host: ``tests/meta/_simulated_device_loss.py``).
"""

from __future__ import annotations

import pytest

__all__ = ["probe", "stop_if_device_lost", "check_after_test"]

_LOST: list[tuple[str, str]] = []  # (node id, error) of the test during which this process lost its CUDA context


def probe() -> str | None:
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


def check_after_test(item: pytest.Item, failed: bool) -> None:
    """After ``item``'s call: if the context is lost now, record it, and fail ``item`` if it passed (else add a section).

    Raises:
        pytest.fail.Exception: ``item`` passed but left the CUDA context lost.
    """
    if _LOST:
        return
    error = probe()
    if error is None:
        return
    _LOST.append((item.nodeid, error))
    text = (
        f"[device lost] after this test's calls the CUDA context reports {error}: a call made a kernel fault "
        "(an out-of-bounds access?); CUDA's error is sticky, so every later CUDA call of this process fails"
    )
    if failed:
        item.add_report_section("call", "h2d device", text)
    else:
        pytest.fail(text, pytrace=False)


def stop_if_device_lost(item: pytest.Item) -> None:
    """Fail ``item`` at once when this process already lost its CUDA context in an earlier test.

    Raises:
        pytest.fail.Exception: the context was lost in an earlier test of this process.
    """
    if _LOST:
        nodeid, error = _LOST[0]
        pytest.fail(
            f"not run: this process's CUDA context was lost in {nodeid} ({error}); every CUDA call after it fails, "
            "so the rest of this process's tests fail at once (run this test alone to judge it)",
            pytrace=False,
        )
