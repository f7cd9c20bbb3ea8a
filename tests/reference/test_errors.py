"""Golden error messages of the reference (``h2d_impl``): every ``raise`` site, its type and its exact text.

The reference promises (``h2d_impl._host`` module docstring, docs/reference.md) that errors
"name the argument and echo the offending input": ``TypeError`` for a wrong kind of
thing, ``ValueError`` for a wrong value, ``IndexError`` for ``n`` out of range, never an
``assert``. The contracts check the exception *type* of any target; this module pins the
reference's *messages* too, so a change to a message (or to ``describe``, which
renders the offending input, truncating long reprs to 80 characters) is a visible,
reviewed change. Written to kill the message mutants of the mutation run
(mutants that change or drop a message's text). These are unit tests of ``h2d_impl`` itself: they do not follow
``--h2d-impl``.

Machine-dependent texts: ``describe`` adds ", pageable"/", pinned" to a host tensor
only where pinned memory exists, and the "CUDA is not available" cases only exist
without CUDA (skipped elsewhere).
"""

from __future__ import annotations

import collections
import decimal
import fractions
import warnings

import numpy as np
import pytest
import torch

import h2d_contracts.h2d_impl as H
from h2d_contracts.h2d_impl import CpuGpuBuffer as B

f = H.async_tensor_h2d
cpu = "cpu"


def ragged(n: int) -> list:
    """A ragged nested list whose ``repr`` is exactly ``n`` characters (79-81: describe's truncation edge)."""
    for k in range(60):
        for pad in range(10):
            d = [[1] * k, [2, 2], [10**pad]]
            if len(repr(d)) == n and k != 2:
                return d
    raise AssertionError(n)


#: (id, call, exception type, exact message)
CASES = [
    ("device-float", lambda: f([1], device=3.5), TypeError, "device must be a torch.device, str or int, got 3.5"),
    ("device-bool", lambda: f([1], device=True), TypeError, "device must be a torch.device, str or int, got True"),
    ("device-bad-string", lambda: f([1], device="bogus"), ValueError, "device='bogus' is not a valid device string"),
    (
        "device-meta",
        lambda: f([1], device="meta"),
        ValueError,
        "device=meta is not supported: the target must be 'cpu' or a CUDA device",
    ),
    (
        "device-cuda-unavailable",
        lambda: f([1], device="cuda"),
        ValueError,
        "device=cuda but CUDA is not available in this process",
    ),
    (
        "device-int-unavailable",
        lambda: f([1], device=0),
        ValueError,
        "device=cuda:0 but CUDA is not available in this process",
    ),
    ("out-list", lambda: f([1], out=[0]), TypeError, "out must be a torch.Tensor or None, got list"),
    (
        "out-sparse",
        lambda: f([1], out=torch.zeros(1).to_sparse()),
        TypeError,
        "out has layout torch.sparse_coo; only strided (dense) tensors can be written",
    ),
    (
        "out-requires-grad",
        lambda: f([1.0], out=torch.zeros(1, requires_grad=True)),
        ValueError,
        "out requires grad; in-place writes into it would be recorded by autograd",
    ),
    (
        "out-overlapping",
        lambda: f([1.0, 2.0, 3.0], out=torch.zeros(1).expand(3)),
        ValueError,
        "out has internally overlapping memory (several elements share an address): Tensor(shape=(3,), dtype=torch.float32, device=cpu, stride=(0,){pageable})",
    ),
    ("no-target", lambda: f([1]), TypeError, "a target is required: pass device=... or out=... (got neither)"),
    (
        "device-out-disagree",
        lambda: f([1], device="cpu", out=torch.empty(1, device="meta")),
        ValueError,
        "device=cpu disagrees with out.device=meta",
    ),
    (
        "dtype-out-disagree",
        lambda: f([1], dtype=torch.int32, out=torch.zeros(1, dtype=torch.int64)),
        TypeError,
        "dtype=torch.int32 disagrees with out.dtype=torch.int64; it is never converted silently",
    ),
    (
        "out-meta",
        lambda: f([1], out=torch.empty(1, device="meta")),
        ValueError,
        "out.device=meta is not supported: the target must be 'cpu' or a CUDA device",
    ),
    (
        "out-shape",
        lambda: f([7], out=torch.zeros(4)),
        ValueError,
        "out.shape=(4,) but data has shape (1,); out is never broadcast or truncated",
    ),
    (
        "out-shape-2d",
        lambda: f([[1, 2, 3]], out=torch.zeros(3, 1)),
        ValueError,
        "out.shape=(3, 1) but data has shape (1, 3); out is never broadcast or truncated",
    ),
    (
        "cpu-variant-meta",
        lambda: H.async_tensor_h2d_cpu([1], device="meta"),
        ValueError,
        "device=meta is not supported: the target must be 'cpu' or a CUDA device",
    ),
    (
        "dtype-str",
        lambda: f([1], device=cpu, dtype="float32"),
        TypeError,
        "dtype must be a torch.dtype or None, got 'float32' (pass a torch.dtype such as torch.int32, not a numpy dtype, type or string)",
    ),
    (
        "dtype-numpy-type",
        lambda: f([1], device=cpu, dtype=np.float32),
        TypeError,
        "dtype must be a torch.dtype or None, got <class 'numpy.float32'> (pass a torch.dtype such as torch.int32, not a numpy dtype, type or string)",
    ),
    (
        "dtype-numpy-dtype",
        lambda: f([1], device=cpu, dtype=np.dtype("f4")),
        TypeError,
        "dtype must be a torch.dtype or None, got dtype('float32') (pass a torch.dtype such as torch.int32, not a numpy dtype, type or string)",
    ),
    ("dtype-int", lambda: f([1], device=cpu, dtype=5), TypeError, "dtype must be a torch.dtype or None, got 5"),
    (
        "dtype-qint8",
        lambda: f([1], device=cpu, dtype=torch.qint8),
        TypeError,
        "dtype=torch.qint8 is not supported: torch has no host copy kernel for it",
    ),
    (
        "object-array",
        lambda: f(np.array([1, None], dtype=object), device=cpu),
        TypeError,
        "data has numpy dtype object (kind 'O'); only bool, integer, floating and complex arrays can be copied to a device",
    ),
    (
        "string-array",
        lambda: f(np.array(["ab"]), device=cpu),
        TypeError,
        "data has numpy dtype <U2 (kind 'U'); only bool, integer, floating and complex arrays can be copied to a device",
    ),
    (
        "longdouble-array",
        lambda: f(np.zeros(2, dtype=np.longdouble), device=cpu),
        TypeError,
        "data has numpy dtype float128, which torch cannot represent",
    ),
    (
        "ragged",
        lambda: f([[1], [2, 3]], device=cpu),
        ValueError,
        "data is a ragged nested sequence and has no rectangular shape: [[1], [2, 3]]",
    ),
    (
        "ragged-80",
        lambda: f(ragged(80), device=cpu),
        ValueError,
        "data is a ragged nested sequence and has no rectangular shape: [[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [2, 2], [100000000]]",
    ),
    (
        "ragged-81",
        lambda: f(ragged(81), device=cpu),
        ValueError,
        "data is a ragged nested sequence and has no rectangular shape: [[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [2, 2], [10000000...",
    ),
    (
        "ragged-79",
        lambda: f(ragged(79), device=cpu),
        ValueError,
        "data is a ragged nested sequence and has no rectangular shape: [[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [2, 2], [10000000]]",
    ),
    (
        "list-none",
        lambda: f([1, None], device=cpu),
        TypeError,
        "data contains NoneType element None; only bool, int, float and complex elements are accepted: [1, None]",
    ),
    (
        "list-huge-and-bool",
        lambda: f([2**70, True], device=cpu),
        ValueError,
        "data contains integers outside the int64/uint64 range: [1180591620717411303424, True]",
    ),
    (
        "list-huge",
        lambda: f([2**70], device=cpu),
        ValueError,
        "data contains integers outside the int64/uint64 range: [1180591620717411303424]",
    ),
    (
        "list-strings",
        lambda: f(["a", "b"], device=cpu),
        TypeError,
        "data contains elements of kind <U1 (strings, bytes or dates); only bool, int, float and complex elements are accepted: ['a', 'b']",
    ),
    (
        "sparse-data",
        lambda: f(torch.zeros(2).to_sparse(), device=cpu),
        TypeError,
        "data has layout torch.sparse_coo; only strided (dense) tensors are accepted",
    ),
    (
        "meta-data",
        lambda: f(torch.empty(2, device="meta"), device=cpu),
        ValueError,
        "data must be a host (CPU) tensor, got data.device=meta",
    ),
    (
        "qint8-data",
        lambda: f(torch.quantize_per_tensor(torch.zeros(2), 1.0, 0, torch.qint8), device=cpu),
        TypeError,
        "data has dtype torch.qint8, which the reference cannot copy",
    ),
    (
        "dict-data",
        lambda: f({"a": 1}, device=cpu),
        TypeError,
        "data must be a list, tuple, numpy.ndarray, CPU torch.Tensor or number, got builtins.dict",
    ),
    (
        "none-data",
        lambda: f(None, device=cpu),
        TypeError,
        "data must be a list, tuple, numpy.ndarray, CPU torch.Tensor or number, got builtins.NoneType",
    ),
    (
        "complex-to-float",
        lambda: f([1 + 2j], device=cpu, dtype=torch.float32),
        TypeError,
        "data is complex (torch.complex128) but dtype=torch.float32 is not: the imaginary part would be lost",
    ),
    (
        "complex-to-int",
        lambda: f([1 + 2j], device=cpu, dtype=torch.int32),
        TypeError,
        "data is complex (torch.complex128) but dtype=torch.int32 is an integer dtype",
    ),
    (
        "nan-to-int",
        lambda: f([1.0, float("nan")], device=cpu, dtype=torch.int32),
        ValueError,
        "data[1] = nan cannot be converted to integer dtype torch.int32",
    ),
    (
        "inf-to-int-2d",
        lambda: f([[1.0, 2.0], [float("-inf"), 3.0]], device=cpu, dtype=torch.int64),
        ValueError,
        "data[1, 0] = -inf cannot be converted to integer dtype torch.int64",
    ),
    (
        "float-out-of-range",
        lambda: f([0.0, 1.0, 300.5], device=cpu, dtype=torch.uint8),
        ValueError,
        "data[2] = 300.5 is out of range for torch.uint8 [0, 255]",
    ),
    (
        "int-out-of-range-2d",
        lambda: f([[1, 2], [3, 2**40]], device=cpu, dtype=torch.int32),
        ValueError,
        "data[1, 1] = 1099511627776 is out of range for torch.int32 [-2147483648, 2147483647]",
    ),
    (
        "int-below-range",
        lambda: f(np.array([5, -129], dtype=np.int16), device=cpu, dtype=torch.int8),
        ValueError,
        "data[1] = -129 is out of range for torch.int8 [-128, 127]",
    ),
    (
        "buffer-no-size",
        lambda: B(dtype=torch.int32, device=cpu),
        ValueError,
        "CpuGpuBuffer needs at least one size argument (the row capacity)",
    ),
    ("buffer-float-size", lambda: B(2.0, dtype=torch.int32, device=cpu), TypeError, "size[0] must be an int, got 2.0"),
    ("buffer-bool-size", lambda: B(True, dtype=torch.int32, device=cpu), TypeError, "size[0] must be an int, got True"),
    ("buffer-str-size", lambda: B(3, "4", dtype=torch.int32, device=cpu), TypeError, "size[1] must be an int, got '4'"),
    ("buffer-negative-size", lambda: B(3, -1, dtype=torch.int32, device=cpu), ValueError, "size[1]=-1 is negative"),
    (
        "buffer-dtype-none",
        lambda: B(3, dtype=None, device=cpu),
        TypeError,
        "dtype is required: pass a torch.dtype such as torch.int32",
    ),
    (
        "buffer-dtype-numpy",
        lambda: B(3, dtype=np.float32, device=cpu),
        TypeError,
        "dtype must be a torch.dtype or None, got <class 'numpy.float32'> (pass a torch.dtype such as torch.int32, not a numpy dtype, type or string)",
    ),
    (
        "buffer-bfloat16-numpy",
        lambda: B(3, dtype=torch.bfloat16, device=cpu),
        ValueError,
        "dtype=torch.bfloat16 has no numpy equivalent, so .np cannot be made: create the buffer with with_numpy=False",
    ),
    (
        "buffer-n-bool",
        lambda: B(3, dtype=torch.int32, device=cpu).copy_to_gpu(True),
        TypeError,
        "n must be an int or None, got True",
    ),
    (
        "buffer-n-float",
        lambda: B(3, dtype=torch.int32, device=cpu).copy_to_cpu(1.0),
        TypeError,
        "n must be an int or None, got 1.0",
    ),
    (
        "buffer-n-beyond",
        lambda: B(3, dtype=torch.int32, device=cpu).copy_to_gpu(4),
        IndexError,
        "n=4 is outside [0, 3] (the buffer's row capacity)",
    ),
    (
        "buffer-n-negative",
        lambda: B(3, dtype=torch.int32, device=cpu).copy_to_cpu(-1),
        IndexError,
        "n=-1 is outside [0, 3] (the buffer's row capacity)",
    ),
    (
        "buffer-np-missing",
        lambda: B(3, dtype=torch.int32, device=cpu, with_numpy=False).np,
        AttributeError,
        "this CpuGpuBuffer was created with with_numpy=False and has no .np view",
    ),
    # raise sites added with the new-user trial's fixes
    (
        "list-of-bfloat16-tensor",
        lambda: f([torch.tensor(1.0, dtype=torch.bfloat16)], device=cpu),
        TypeError,
        lambda e: f"data contains elements numpy cannot convert ({e.__cause__}): [tensor(1., dtype=torch.bfloat16)]",
    ),
    (
        "mixed-sign-huge-ints",
        lambda: f([-1, 2**63], device=cpu),
        ValueError,
        "data contains integers outside the int64 range: [-1, 9223372036854775808]",
    ),
    (
        "nested-tensor-data",
        lambda: f(torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)]), device=cpu),
        TypeError,
        "data has layout nested; only strided (dense) tensors are accepted",
    ),
    (
        "fraction",
        lambda: f(fractions.Fraction(1, 2), device=cpu),
        TypeError,
        "data of type Fraction is not supported: pass an int, float, bool or complex",
    ),
    (
        "decimal",
        lambda: f(decimal.Decimal("1.5"), device=cpu),
        TypeError,
        "data of type Decimal is not supported: pass an int, float, bool or complex",
    ),
    (
        "nan-scalar-to-int",
        lambda: f(float("nan"), device=cpu, dtype=torch.int32),
        ValueError,
        "data = nan cannot be converted to integer dtype torch.int32",
    ),
    (
        "out-of-range-scalar",
        lambda: f(300, device=cpu, dtype=torch.uint8),
        ValueError,
        "data = 300 is out of range for torch.uint8 [0, 255]",
    ),
    (
        "buffer-device-none",
        lambda: B(3, dtype=torch.int32, device=None),
        TypeError,
        "device is required: pass 'cuda', 'cuda:1', a torch.device or 'cpu'",
    ),
    (
        "buffer-pin-not-bool",
        lambda: B(3, dtype=torch.int32, device=cpu, pin_memory=1),
        TypeError,
        "pin_memory must be a bool or None, got 1",
    ),
    (
        "buffer-with-numpy-not-bool",
        lambda: B(3, dtype=torch.int32, device=cpu, with_numpy="yes"),
        TypeError,
        "with_numpy must be a bool, got 'yes'",
    ),
    (
        "buffer-too-big",
        lambda: B(2**62, dtype=torch.int64, device=cpu),
        ValueError,
        lambda e: (
            f"size=(4611686018427387904,) with dtype=torch.int64 cannot be allocated: {str(e.__cause__).splitlines()[0]}"
        ),
    ),
    (
        "buffer-bad-device",
        lambda: B(3, dtype=torch.int32, device="meta"),
        ValueError,
        "device=meta is not supported: the target must be 'cpu' or a CUDA device",
    ),
    ("device-negative", lambda: f([1], device=-1), ValueError, "device=-1 is a negative device index"),
    ("device-np-negative", lambda: f([1], device=np.int64(-2)), ValueError, "device=-2 is a negative device index"),
    (
        "device-cpu-index",
        lambda: f([1], device="cpu:1"),
        ValueError,
        "device=cpu:1 names a CPU index; the host is 'cpu'",
    ),
    (
        "device-np-bool",
        lambda: f([1], device=np.bool_(True)),
        TypeError,
        "device must be a torch.device, str or int, got np.True_",
    ),
    (
        "out-nested",
        lambda: f([1.0], out=torch.nested.nested_tensor([torch.zeros(1)])),
        TypeError,
        "out is a nested tensor; only strided (dense) tensors can be written",
    ),
    (
        "out-shares-data",
        lambda: (lambda t: f(t, out=t.view(3)))(torch.arange(3.0)),
        ValueError,
        "out shares memory with data; copy data first or pass another out",
    ),
    (
        "out-overlap-2d",
        lambda: f([[1.0, 2.0], [3.0, 4.0]], out=torch.zeros(4).as_strided((2, 2), (1, 1))),
        ValueError,
        "out has internally overlapping memory (several elements share an address): Tensor(shape=(2, 2), dtype=torch.float32, device=cpu, stride=(1, 1){pageable})",
    ),
    (
        "out-overlap-3d",
        lambda: f(
            [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]], out=torch.zeros(10).as_strided((2, 2, 2), (1, 2, 3))
        ),
        ValueError,
        "out has internally overlapping memory (several elements share an address): Tensor(shape=(2, 2, 2), dtype=torch.float32, device=cpu, stride=(1, 2, 3){pageable})",
    ),
    (
        "list-huge-float-none",
        lambda: f([2**70, 1.5, None], device=cpu),
        TypeError,
        "data contains NoneType element None; only bool, int, float and complex elements are accepted: [1180591620717411303424, 1.5, None]",
    ),
    (
        "list-dict",
        lambda: f([1, {}], device=cpu),
        TypeError,
        "data contains dict element {{}}; only bool, int, float and complex elements are accepted: [1, {{}}]",
    ),
    (
        "uint64-out-of-range",
        lambda: f(np.array([7, 2**64 - 1], dtype=np.uint64), device=cpu, dtype=torch.int64),
        ValueError,
        "data[1] = 1.8446744073709552e+19 is out of range for torch.int64 [-9223372036854775808, 9223372036854775807]",
    ),
    (
        "uint16-out-of-range",
        lambda: f(np.array([7, 300], dtype=np.uint16), device=cpu, dtype=torch.uint8),
        ValueError,
        "data[1] = 300 is out of range for torch.uint8 [0, 255]",
    ),
    (
        "ordereddict-data",
        lambda: f(collections.OrderedDict(), device=cpu),
        TypeError,
        "data must be a list, tuple, numpy.ndarray, CPU torch.Tensor or number, got collections.OrderedDict",
    ),
    # Added with the second new-user trial's fixes (a mutation run found these texts unpinned).
    (
        "out-inference-tensor",
        lambda: f([1.0], out=_inference_zeros(1)),
        ValueError,
        "out is an inference tensor (made under torch.inference_mode()); write it inside inference mode",
    ),
    (
        "out-unsupported-dtype",
        lambda: f([1.0], out=torch.zeros(1, dtype=torch.complex32)),
        TypeError,
        "out.dtype=torch.complex32 is not supported: torch has no host copy kernel for it",
    ),
    # Interleaved views of one buffer (elements 0, 10, 20 into 5, 15, 25): no element is
    # shared, but the byte spans overlap, and the reference refuses conservatively.
    (
        "out-interleaved-with-data",
        lambda: (lambda b: f(b[0:30:10], out=b[5:35:10]))(torch.zeros(40)),
        ValueError,
        "out shares memory with data; copy data first or pass another out",
    ),
]


def _inference_zeros(n: int) -> torch.Tensor:
    with torch.inference_mode():
        return torch.zeros(n)


#: Only meaningful on machines without CUDA.
NO_CUDA_ONLY = {"device-cuda-unavailable", "device-int-unavailable"}


@pytest.mark.parametrize("call, exc, message", [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_error_message(request, call, exc, message):
    case = request.node.callspec.id
    if case in NO_CUDA_ONLY and torch.cuda.is_available():
        pytest.skip("this message is for machines without CUDA")
    if case == "longdouble-array" and np.dtype(np.longdouble).itemsize <= 8:
        pytest.skip("numpy's longdouble is float64 on this platform, which torch represents")
    if isinstance(message, str):
        message = message.format(pageable=", pageable" if H.pin_memory_available() else "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            call()
    assert type(info.value) is exc, f"{type(info.value).__name__}: {info.value}"
    if callable(message):  # the message quotes the chained exception (torch's or numpy's own text)
        assert info.value.__cause__ is not None, "the original exception is not chained"
        message = message(info.value)
    assert str(info.value) == message


@pytest.mark.skipif(
    not H.pin_memory_available(),
    reason="pinned memory is unavailable on this machine (CPU-only torch): describe() only marks pinned-ness where it exists",
)
def test_describe_marks_pinned_and_pageable_tensors():
    """Where pinning exists, ``describe`` ends a host tensor's description with ", pinned" or ", pageable"."""
    for pinned in (True, False):
        base = torch.zeros(1)
        out = (base.pin_memory() if pinned else base).expand(3)
        with pytest.raises(ValueError) as info:
            f([1.0, 2.0, 3.0], out=out)
        kind = "pinned" if pinned else "pageable"
        assert (
            str(info.value)
            == f"out has internally overlapping memory (several elements share an address): Tensor(shape=(3,), dtype=torch.float32, device=cpu, stride=(0,), {kind})"
        )


def test_int_too_long_to_print_is_refused_naming_data():
    """An int past Python's integer-string limit (10**5000) is refused naming ``data`` (the message describes it without
    printing it), and the limit, a process-wide setting, is left as it was."""
    import sys

    limit = sys.get_int_max_str_digits()
    with pytest.raises(ValueError, match=r"^data contains integers outside .*int too long to print") as info:
        f([10**5000], device="cpu")
    assert "Exceeds the limit" not in str(info.value)
    assert sys.get_int_max_str_digits() == limit


def test_fraction_too_long_to_print_is_refused_naming_data():
    """A Fraction whose numerator is past Python's integer-string limit is refused with TypeError naming ``data``, not
    the limit's own ValueError (the element was printed with repr; held-out round r56's author found it)."""
    with pytest.raises(TypeError, match=r"^data contains Fraction element <Fraction holding an int too long"):
        f([fractions.Fraction(10**5000, 3)], device="cpu")


def test_pool_step_requiring_grad_is_written_detached():
    """A ``UvaBufferPool`` step that requires grad is written detached: neither its view nor a later step's view of
    the same slot joins the caller's autograd graph (held-out round r56's author saw every later view with a
    grad_fn)."""
    from h2d_contracts.h2d_impl.buffer_utils import UvaBufferPool

    pool = UvaBufferPool(2, torch.float32, 1)
    first = pool.copy_to_uva(torch.ones(2, requires_grad=True))
    later = pool.copy_to_uva([1.0, 2.0])
    assert first.grad_fn is None and later.grad_fn is None and not later.requires_grad


def test_buffer_repr():
    """``repr(CpuGpuBuffer)`` (used in the GPU contracts' failure messages): shape, dtype, device, pinned-ness."""
    buf = B(3, 2, dtype=torch.int32, device=cpu)
    pinned = buf.cpu.is_pinned() if H.pin_memory_available() else False
    assert repr(buf) == f"CpuGpuBuffer(*(3, 2), dtype=torch.int32, device=cpu, pinned={pinned})"


@pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="needs CUDA: on a CPU-only machine every CUDA target is already rejected as unavailable",
)
def test_cpu_variant_rejects_cuda_targets():
    """The CPU-platform variant only targets host memory: ValueError for a CUDA device or a CUDA ``out``."""
    import h2d_contracts.h2d_impl as H

    with pytest.raises(ValueError, match=r"^the CPU-platform variant only targets host memory, got device=cuda:\d+$"):
        H.async_tensor_h2d_cpu([1], device="cuda")
    out = torch.zeros(1, dtype=torch.int64, device="cuda")
    with pytest.raises(ValueError, match="only targets host memory"):
        H.async_tensor_h2d_cpu([1], out=out)
    assert out.item() == 0
