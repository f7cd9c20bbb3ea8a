"""The single-call checks of ``values``: one call judged against the oracle (:func:`check_values`), against values
known exact at scale (:func:`check_values_bulk`), or against a documented literal (:func:`check_values_equal`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.harness import contexts
from h2d_contracts.harness.calling import call_valid, check_device, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.oracle import assert_same_values, expected_tensor, own_dtype, resolve_device, resolve_dtype
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import fail
from h2d_contracts.strategies.describe import LazyCall


@check("values", valid_call=True)
def check_values(target: Target, data: Any, kwargs: dict[str, Any]) -> torch.Tensor:
    """values: the result equals ``data`` converted to the resolved dtype, same shape, on the requested device.

    Also checks the result's device index (``cuda:1`` stays ``cuda:1``), that a result
    made without ``out`` is contiguous (any input layout), and, with ``out``, that the
    returned object *is* ``out``. Returns the result.
    """
    call = target.describe_call(data, kwargs)
    dtype = resolve_dtype(data, kwargs)
    expected = expected_tensor(data, dtype)
    return _judged_call(target, data, kwargs, expected, call)


def _judged_call(target: Target, data: Any, kwargs: dict[str, Any], expected: torch.Tensor, call: str) -> torch.Tensor:
    """Call the target once and judge the result against ``expected``: device, bits, contiguity, autograd."""
    __tracebackhide__ = True
    dtype = expected.dtype
    device = resolve_device(kwargs)
    result = call_valid("values", target, data, kwargs)
    synchronize(device)
    check_device("values", result, device, call)
    pure_copy = isinstance(data, (torch.Tensor, np.ndarray, np.generic)) and own_dtype(data) == dtype
    assert_same_values(result, expected, contract="values", call=call, nan_payloads=pure_copy)
    if kwargs.get("out") is None and not result.is_contiguous():
        # a fresh result is dense and row-major, as torch.tensor's (docs/reference.md: staged into a fresh
        # contiguous buffer); a transposed input returned with its own strides breaks .view()
        fail(
            "values",
            "result is not contiguous",
            got=f"strides {tuple(result.stride())} for shape {tuple(result.shape)}",
            expected=f"strides {tuple(torch.empty(result.shape, device='meta').stride())}",
            call=call,
        )
    if result.requires_grad or result.grad_fn is not None:
        # a copy for the device is data, not a step of the caller's autograd graph (torch.tensor
        # and the reference detach); an out written from a tensor that requires grad joins it
        fail(
            "values",
            "the result is part of the caller's autograd graph",
            got=f"requires_grad={result.requires_grad}, grad_fn={type(result.grad_fn).__name__ if result.grad_fn is not None else None}",
            expected="requires_grad=False, grad_fn=None (a detached copy)",
            call=call,
        )
    made = kwargs.get("out") is None and result is not data  # the input itself is no-alias's to judge (a host stand-in)
    if made and contexts.ambient() == "inference_mode" and not result.is_inference():
        # made inside the caller's torch.inference_mode() (docs/reference.md, "Calling contexts"), as every tensor torch
        # makes there is: a normal tensor would join autograd outside the mode
        fail(
            "values",
            "a result made under torch.inference_mode() is not an inference tensor",
            got="result.is_inference() False",
            expected="True (made inside the mode, as torch.tensor(...) there)",
            call=call,
        )
    return result


@check("values", valid_call=True)
def check_values_bulk(target: Target, data: Any, kwargs: dict[str, Any], source: torch.Tensor) -> torch.Tensor:
    """values, at scale: ``data`` was made from the CPU tensor ``source`` (``source.tolist()``, ``.numpy()``, a view of it).

    The expected result is ``source`` converted to the resolved dtype, in one vectorised
    step: exact by construction, because :func:`strategies.bulk_values` makes every value
    representable in the dtype it is made for (so a million-element list is judged without
    the oracle's element-by-element conversion). Otherwise as :func:`check_values`:
    device, bits, contiguity, autograd. Returns the result.
    """
    # described only if the row fails (a million-element list costs 0.1 s)
    call = LazyCall(data, kwargs, fn=target.fn_name, arg_names=target.arg_names)
    expected = source.detach().contiguous().to(resolve_dtype(data, kwargs))
    return _judged_call(target, data, kwargs, expected, call)  # type: ignore[arg-type]


@check("values", valid_call=True)
def check_values_equal(target: Target, data: Any, kwargs: dict[str, Any], expected: torch.Tensor) -> torch.Tensor:
    """values, against a literal: the result has exactly ``expected``'s shape, dtype and bits (a documented outcome).

    For the regression corpus, whose cases pin an outcome the reference documents (its
    docstrings) besides the oracle's: ``expected`` is a CPU tensor built from literal
    values (``torch.tensor([5, 4, 3, 2, 1, 0])``). Also runs :func:`check_values`.
    """
    result = check_values(target, data, kwargs)
    assert_same_values(
        result,
        expected,
        contract="values",
        call=target.describe_call(data, kwargs) + "  # against the documented outcome",
    )
    return result
