"""The device-hygiene contract: a call on one device creates no context on another, in a fresh process."""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.harness.checks import check
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.target import Target, run_fresh
from h2d_contracts.harness.violations import NotApplicable, fail

from .timing import (
    requires_cuda,
)

#: Run in a fresh interpreter by :func:`check_device_hygiene`: every entry point of the
#: target aimed at one CUDA device, then what the other devices hold. Nothing before the
#: calls touches CUDA beyond counting devices (no pinned-memory probe: the kit's own
#: probe would allocate under the current device and create the very context looked for).
_HYGIENE_SCRIPT = r"""
import json, sys
import numpy as np
import torch
from h2d_contracts.contracts.targets import load_target

spec, index = sys.argv[1], int(sys.argv[2])
dev = torch.device("cuda", index)
target = load_target(spec)
steps = []

def step(call, fn):
    try:
        fn()
        steps.append([call, None])
    except Exception as exc:  # a call that fails is reported, and the others still run
        steps.append([call, f"{type(exc).__name__}: {exc}"])

step(f"async_tensor_h2d([1, 2, 3], device='cuda:{index}')", lambda: target.async_tensor_h2d([1, 2, 3], device=f"cuda:{index}"))
step(f"async_tensor_h2d(np.arange(4096, dtype=np.float32), device=torch.device('cuda', {index}))", lambda: target.async_tensor_h2d(np.arange(4096, dtype=np.float32), device=dev))
step(f"async_tensor_h2d(torch.arange(4096).t(), device={index})", lambda: target.async_tensor_h2d(torch.arange(4096).view(64, 64).t(), device=index))
if "out" in target.capabilities:
    out = torch.empty(3, dtype=torch.int64, device=dev)  # the contract's own allocation, on the target device
    step(f"async_tensor_h2d([1, 2, 3], out=torch.empty(3, dtype=torch.int64, device='cuda:{index}'))", lambda: target.async_tensor_h2d([1, 2, 3], out=out))
if "buffer" in target.capabilities:
    def buffer_ops():
        buf = target.buffer_cls(8, 4, dtype=torch.float32, device=dev, pin_memory=True)
        buf.cpu.fill_(1.0)
        buf.copy_to_gpu(5)
        buf.copy_to_cpu(5)
    step(f"CpuGpuBuffer(8, 4, dtype=torch.float32, device='cuda:{index}', pin_memory=True); .copy_to_gpu(5); .copy_to_cpu(5)", buffer_ops)
torch.cuda.synchronize(dev)
others = [j for j in range(torch.cuda.device_count()) if j != index]
contexts = {j: bool(torch._C._cuda_hasPrimaryContext(j)) for j in others}
allocated = {j: int(torch.cuda.memory_allocated(j)) for j in others}
print("H2D-HYGIENE " + json.dumps({"steps": steps, "contexts": contexts, "allocated": allocated}))
"""


@check("device-hygiene")
def check_device_hygiene(target: Target, index: int, *, timeout_s: float = 240.0) -> dict[str, Any]:
    """device-hygiene: calls aimed at ``cuda:index`` create no CUDA context and allocate nothing on any other device.

    Runs :data:`_HYGIENE_SCRIPT` in a fresh interpreter (a context, once created, stays for
    the life of the process, so only a fresh one can tell): the target is loaded there
    from ``target.spec`` (its ``--h2d-impl`` string), then ``async_tensor_h2d`` on a
    list, an array and a strided tensor with ``device=`` spelled three ways, into an
    ``out`` on ``cuda:index``, and a pinned ``CpuGpuBuffer`` on ``cuda:index`` with both
    copies. Then, for every other device, ``torch._C._cuda_hasPrimaryContext(j)`` must be
    False and ``torch.cuda.memory_allocated(j)`` 0. Returns the script's findings.

    Source: a 2x H200 run in which the reference made a context on ``cuda:0`` when
    asked only for ``cuda:1`` (on a multi-GPU server every worker then holds memory on
    GPU 0).

    Raises:
        NotApplicable: fewer than two CUDA devices, or a target built in-process (no spec).
        ContractViolation: ``device-hygiene``, naming the calls made and the device touched.
    """
    if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
        raise NotApplicable("device-hygiene needs 2 CUDA devices")
    if not target.spec:
        raise NotApplicable(
            f"device-hygiene loads the target in a fresh process by its --h2d-impl spec; target {target.name!r} has none"
        )
    found: dict[str, Any] = run_fresh(
        "device-hygiene", _HYGIENE_SCRIPT, [target.spec, str(index)], "H2D-HYGIENE ", timeout_s=timeout_s
    )
    calls = "; ".join(c for c, _ in found["steps"])
    touched = {
        j: (found["contexts"][j], found["allocated"][j])
        for j in found["contexts"]
        if found["contexts"][j] or found["allocated"][j]
    }
    if touched:
        fail(
            "device-hygiene",
            f"calls aimed at cuda:{index} touched other devices (fresh process)",
            got=", ".join(
                f"cuda:{j}: {'a CUDA context' if ctx else 'no context'}, {mem} bytes allocated"
                for j, (ctx, mem) in touched.items()
            ),
            expected="no context and 0 bytes on every other device",
            call=calls,
        )
    return found


@prop("device-hygiene")
def prop_device_hygiene(target: Target, device: torch.device, **overrides: Any) -> None:
    """device-hygiene: calls aimed at a non-primary CUDA device touch no other device (a fresh process; 2 GPUs).

    Not a Hypothesis property: one fixed set of calls in a fresh interpreter
    (:func:`contracts.gpu.check_device_hygiene`); ``overrides`` are ignored. Aims at
    ``device``'s index when it is not 0, else at ``cuda:1``.
    """
    del overrides
    requires_cuda(target, "device-hygiene", device)
    index = device.index if device.index else 1
    check_device_hygiene(target, index)
