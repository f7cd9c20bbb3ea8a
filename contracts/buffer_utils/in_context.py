"""Model Runner V2's classes under the calling contexts engines build and use them in (``uva``, ``pool``, ``staged-write``).

vLLM's model runner makes its buffers at start-up, often under a default device
(``with torch.device(...)``) or a default dtype, and uses them every step under
``torch.inference_mode()``. A class that allocates without naming a device (a twin made on
the default device) or that depends on the grad mode works in a plain test and breaks in the
engine. Each check here runs one short scenario of a class twice: in the plain context, then
with construction *and* calls inside a context of :data:`harness.contexts.CONTEXTS`
(``no_grad``, ``inference_mode``, ``torch.device("meta")`` as the default device); the results
must agree in values, dtype and device. And each class made in a context, then used after it (a pool slot grown
during a step under ``inference_mode`` serves later steps), gives what it gives made in the plain context. The
reference's behaviour in each context:
docs/reference.md ("Calling contexts").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from h2d_contracts.harness import contexts
from h2d_contracts.harness.calling import synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail

from .common import device_str, utils

__all__ = [
    "IN_CONTEXTS",
    "check_pool_in_context",
    "check_pool_made_in_context",
    "check_staged_in_context",
    "check_staged_made_in_context",
    "check_uva_in_context",
    "check_uva_made_in_context",
    "prop_pool_in_contexts",
    "prop_staged_in_contexts",
    "prop_uva_in_contexts",
]

#: The contexts a scenario is run in besides the plain one (``positional`` changes nothing here: no call by protocol).
IN_CONTEXTS = ("no_grad", "inference_mode", "default_device", "deterministic")


def _host(results: list[torch.Tensor]) -> list[tuple[tuple[int, ...], torch.dtype, str, list[Any]]]:
    """What each result is: shape, dtype, device and values (read on the host after one sync)."""
    synchronize()
    return [(tuple(t.shape), t.dtype, t.device.type, t.detach().to("cpu").tolist()) for t in results]


def _modes() -> dict[str, Any]:
    """The thread's calling modes a context sets (grad, inference, default dtype and device, deterministic algorithms)."""
    return {
        "torch.is_grad_enabled()": torch.is_grad_enabled(),
        "torch.is_inference_mode_enabled()": torch.is_inference_mode_enabled(),
        "torch.get_default_dtype()": torch.get_default_dtype(),
        "torch.get_default_device()": str(torch.get_default_device()),
        "torch.are_deterministic_algorithms_enabled()": (
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        ),
    }


def _modes_kept(contract: str, before: dict[str, Any], after: dict[str, Any], label: str, where: str) -> None:
    """The calls left the context's modes as they found them (held-out round r58's ``apply_write`` switched grad mode
    off for its write and back *on*, not to what it was: inside ``no_grad`` the caller's later ops recorded graphs)."""
    for name, was in before.items():
        if after[name] != was:
            fail(
                contract,
                f"{label}: the calls changed {name}",
                got=repr(after[name]),
                expected=f"{was!r}, as the context set it",
                call=where,
            )


def _judge(
    contract: str,
    make: Callable[[], Any],
    context: str,
    call: str,
    use: Callable[[Any], list[torch.Tensor]] | None = None,
) -> None:
    """``make()`` in ``context`` gives what it gives in the plain context (its results read outside the context, as the
    engine's next step would). With ``use``: ``make()`` in ``context``, then ``use`` of what it made after leaving it,
    gives what the same calls give made in the plain context: a class's tensors are state kept across steps, made
    during a step (a slot grown under ``inference_mode``) and used in later ones (held-out round r57's author: an
    inference tensor, which torch refuses to write outside the mode)."""
    run_after = use if use is not None else (lambda made: made)
    label = contexts.describe(context) if use is None else f"made {contexts.describe(context)}, used after it"
    plain = _host(run_after(make()))
    where = f"{call}  # {label}"
    try:
        with contexts.entered(context):
            modes = _modes()
            made = make()
            kept = _modes()
        got = _host(run_after(made))
    except Exception as exc:  # noqa: BLE001 - a failure in (or after) the context alone is what is reported
        fail(
            contract,
            f"{label}: the calls or a read of their results raised",
            got=f"{type(exc).__name__}: {str(exc)[:200]}",
            expected="what the same calls return " + ("in" if use is None else "made in") + " the plain context",
            call=where,
        )
    _modes_kept(contract, modes, kept, label, where)
    for k, (want, seen) in enumerate(zip(plain, got, strict=True)):
        if seen != want:
            fail(
                contract,
                f"{label}: result {k} differs from the plain context's",
                got=f"shape {seen[0]}, {seen[1]}, on {seen[2]}, values {seen[3]}",
                expected=f"shape {want[0]}, {want[1]}, on {want[2]}, values {want[3]}",
                call=where,
            )


@check("uva")
def check_uva_made_in_context(target: Target, context: str) -> None:
    """uva: ``UvaBuffer`` (``NonUvaBuffer`` without UVA) made in ``context``, written and read after it."""
    name = "UvaBuffer" if torch.cuda.is_available() else "NonUvaBuffer"
    cls = utils(target, "uva", name)

    def use(buf: Any) -> list[torch.Tensor]:
        buf.np[:] = np.arange(1, 5, dtype=np.int32)
        return [buf.uva(3)]

    _judge(
        "uva",
        lambda: cls(4, torch.int32),
        context,
        f"buf = {name}(4, torch.int32); buf.np[:] = [1, 2, 3, 4]; buf.uva(3)",
        use=use,
    )


@check("pool")
def check_pool_made_in_context(target: Target, context: str, grown: bool) -> None:
    """pool: a one-slot ``UvaBufferPool`` made (and, if ``grown``, its slot grown by a step of 8 rows) in ``context``,
    then sent a step of 3 rows after it; a ``UvaBackedTensor`` made in ``context``, refreshed after it."""
    pool_cls = utils(target, "pool", "UvaBufferPool")
    backed_cls = utils(target, "pool", "UvaBackedTensor")

    def make() -> tuple[Any, Any]:
        pool = pool_cls((2, 2), torch.int32, 1)
        if grown:
            pool.copy_to_uva(np.zeros((8, 2), dtype=np.int32))
        return pool, backed_cls(4, torch.float32, 2)

    def use(made: tuple[Any, Any]) -> list[torch.Tensor]:
        pool, backed = made
        step = pool.copy_to_gpu(np.array([[1, 2], [3, 4], [5, 6]], dtype=np.int32))
        backed.np[:] = np.array([0.5, 1.5, 2.5, 3.5], dtype=np.float32)
        return [step, backed.copy_to_uva(3)]

    _judge(
        "pool",
        make,
        context,
        "pool = UvaBufferPool((2, 2), torch.int32, 1)"
        + ("; pool.copy_to_uva(np.zeros((8, 2), dtype=np.int32))" if grown else "")
        + "; t = UvaBackedTensor(4, torch.float32, 2); <leaving the context>; "
        "pool.copy_to_gpu(np.array([[1, 2], [3, 4], [5, 6]], dtype=np.int32)); t.np[:] = [0.5, 1.5, 2.5, 3.5]; "
        "t.copy_to_uva(3)",
        use=use,
    )


@check("staged-write")
def check_staged_made_in_context(target: Target, context: str, device: str) -> None:
    """staged-write: a ``StagedWriteTensor`` made in ``context``, written and applied after it."""
    cls = utils(target, "staged-write", "StagedWriteTensor")

    def use(t: Any) -> list[torch.Tensor]:
        t.stage_write(1, 2, [5, 6, 7])
        t.apply_write()
        return [t.gpu]

    _judge(
        "staged-write",
        lambda: cls((2, 8), torch.int32, device),
        context,
        f"t = StagedWriteTensor((2, 8), torch.int32, {device!r}); <leaving the context>; t.stage_write(1, 2, [5, 6, 7]); "
        "t.apply_write(); t.gpu",
        use=use,
    )


@check("uva")
def check_uva_in_context(target: Target, context: str) -> None:
    """uva: ``UvaBuffer`` (``NonUvaBuffer`` without UVA) made and read in ``context``: ``uva(3)`` as in the plain context."""
    name = "UvaBuffer" if torch.cuda.is_available() else "NonUvaBuffer"
    cls = utils(target, "uva", name)

    def scenario() -> list[torch.Tensor]:
        buf = cls(4, torch.int32)
        buf.np[:] = np.arange(1, 5, dtype=np.int32)
        return [buf.uva(3), buf.uva()]

    _judge("uva", scenario, context, f"buf = {name}(4, torch.int32); buf.np[:] = [1, 2, 3, 4]; buf.uva(3); buf.uva()")


@check("pool")
def check_pool_in_context(target: Target, context: str) -> None:
    """pool: a ``UvaBufferPool`` and a ``UvaBackedTensor`` made and used in ``context``, as in the plain context."""
    pool_cls = utils(target, "pool", "UvaBufferPool")
    backed_cls = utils(target, "pool", "UvaBackedTensor")

    def scenario() -> list[torch.Tensor]:
        pool = pool_cls((4, 2), torch.int32, 2)
        first = pool.copy_to_uva([[1, 2]])
        second = pool.copy_to_gpu(np.array([[3, 4], [5, 6]], dtype=np.int32))
        backed = backed_cls(4, torch.float32, 2)
        backed.np[:] = np.array([0.5, 1.5, 2.5, 3.5], dtype=np.float32)
        return [first, second, backed.copy_to_uva(3)]

    _judge(
        "pool",
        scenario,
        context,
        "pool = UvaBufferPool((4, 2), torch.int32, 2); pool.copy_to_uva([[1, 2]]); "
        "pool.copy_to_gpu(np.array([[3, 4], [5, 6]], dtype=np.int32)); t = UvaBackedTensor(4, torch.float32, 2); "
        "t.np[:] = [0.5, 1.5, 2.5, 3.5]; t.copy_to_uva(3)",
    )


@check("staged-write")
def check_staged_in_context(target: Target, context: str, device: str) -> None:
    """staged-write: a ``StagedWriteTensor`` made, written and applied in ``context``: ``.gpu`` as in the plain context."""
    cls = utils(target, "staged-write", "StagedWriteTensor")

    def scenario() -> list[torch.Tensor]:
        t = cls((2, 8), torch.int32, device)
        t.stage_write(1, 2, [5, 6, 7])
        t.stage_write_elem(0, 9)
        t.apply_write()
        return [t.gpu]

    _judge(
        "staged-write",
        scenario,
        context,
        f"t = StagedWriteTensor((2, 8), torch.int32, {device!r}); t.stage_write(1, 2, [5, 6, 7]); "
        "t.stage_write_elem(0, 9); t.apply_write(); t.gpu",
    )


def _table(name: str, run: Callable[[str], None]) -> None:
    rows = Rows(name)
    for context in IN_CONTEXTS:
        rows.row(run, context)
    rows.finish()


@prop("uva", table=True)
def prop_uva_in_contexts(target: Target, device: torch.device, **overrides: Any) -> None:
    """uva: a buffer made and read under no_grad, inference_mode and a meta default device, as in the plain context."""
    target.require("buffer-utils", "uva")
    del device, overrides  # the buffer's twin lives on this platform's device
    _table("uva in contexts", lambda context: check_uva_in_context(target, context))
    _table("uva made in contexts", lambda context: check_uva_made_in_context(target, context))


@prop("pool", table=True)
def prop_pool_in_contexts(target: Target, device: torch.device, **overrides: Any) -> None:
    """pool: a pool and a backed tensor made and used under no_grad, inference_mode and a meta default device."""
    target.require("buffer-utils", "pool")
    del device, overrides
    _table("pool in contexts", lambda context: check_pool_in_context(target, context))
    _table("pool made in contexts", lambda context: check_pool_made_in_context(target, context, False))
    _table("pool grown in contexts", lambda context: check_pool_made_in_context(target, context, True))


@prop("staged-write", table=True)
def prop_staged_in_contexts(target: Target, device: torch.device, **overrides: Any) -> None:
    """staged-write: a staged tensor made, written and applied under no_grad, inference_mode and a meta default device."""
    target.require("buffer-utils", "staged-write")
    del overrides
    if device.type not in ("cpu", "cuda"):
        raise NotApplicable(f"contract 'staged-write': no scenario for device {device}")
    where = device_str(device) if device.type == "cuda" else "cpu"
    _table("staged-write in contexts", lambda context: check_staged_in_context(target, context, where))
    _table("staged-write made in contexts", lambda context: check_staged_made_in_context(target, context, where))
