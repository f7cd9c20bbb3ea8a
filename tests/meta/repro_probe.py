"""A check that records what it was called with: the meta-tests run reproduction scripts against it (tests/meta/test_repro.py)."""

from __future__ import annotations

from typing import Any

from h2d_contracts.harness.checks import check

#: Every call of :func:`check_probe`: (target name, args, kwargs, global state).
SEEN: list[tuple[str, tuple[Any, ...], dict[str, Any], dict[str, Any]]] = []


@check("values")
def check_probe(target: Any, *args: Any, **kwargs: Any) -> None:
    """Record the call (and the torch state a reproduction must set up); never fails."""
    import torch

    SEEN.append(
        (
            target.name,
            args,
            kwargs,
            {
                "default_dtype": torch.get_default_dtype(),
                "inference": torch.is_inference_mode_enabled(),
                "grad": torch.is_grad_enabled(),
            },
        )
    )
