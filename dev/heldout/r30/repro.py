"""Direct reproductions of the r30 bugs visible on a CPU-only machine.

Run: ``PYTHONPATH=/work/main:/work/r30_bugs python -m r30.repro`` (or ``python r30/repro.py``
with that PYTHONPATH). For each bug, one smallest input is run through the bug's target and
through the unmodified reference (plain torch/numpy calls), and the observable outcome
(result dtype, shape, contiguity and bytes, or the exception type; warnings and the
caller's array flags where the bug is about them) is compared: "buggy" when they differ.
The control is run on every bug's input and must be "not buggy" on all of them.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import types
import warnings

import numpy as np
import torch

from h2d_contracts import h2d_impl

REFERENCE = types.SimpleNamespace(
    name="reference",
    async_tensor_h2d=h2d_impl.async_tensor_h2d,
    cpu_variant=h2d_impl.async_tensor_h2d_cpu,
    buffer_cls=h2d_impl.CpuGpuBuffer,
)


def summary(value):
    """A comparable description of a call's result."""
    if isinstance(value, torch.Tensor):
        flat = value.detach().cpu().reshape(-1).contiguous()
        return ("tensor", value.dtype, tuple(value.shape), value.is_contiguous(), flat.view(torch.uint8).numpy().tobytes())
    if isinstance(value, h2d_impl.CpuGpuBuffer):
        return ("buffer", tuple(value.cpu.shape), tuple(value.gpu.shape), value.cpu.dtype)
    return ("value", repr(value))


def outcome(thunk):
    try:
        value = thunk()
    except Exception as exc:  # the exception's type is the observable
        return ("raised", type(exc).__name__)
    return ("returned", summary(value))


CPU = torch.device("cpu")


def s_floor(t):  # b01
    return outcome(lambda: t.async_tensor_h2d([-0.5], dtype=torch.uint8, device=CPU))


def s_round(t):  # b02
    return outcome(lambda: t.async_tensor_h2d([1.5], dtype=torch.int32, device=CPU))


def s_bool_target(t):  # b03
    return outcome(lambda: t.async_tensor_h2d([1], dtype=torch.bool, device=CPU))


def s_unsupported_dtype(t):  # b04
    return outcome(lambda: t.async_tensor_h2d([0], dtype=torch.complex32, device=CPU))


def s_bad_device_string(t):  # b05
    return outcome(lambda: t.async_tensor_h2d([0], device="gpu:0"))


def s_structured_field(t):  # b06
    field = np.zeros(2, dtype=[("a", "<i4"), ("b", "<i2")])["a"]
    return outcome(lambda: t.async_tensor_h2d(field, device=CPU))


_FIRST_CALL = """
import importlib, sys, warnings
import numpy as np
from h2d_contracts import h2d_impl
fn = importlib.import_module("r30." + sys.argv[1]).target().async_tensor_h2d if sys.argv[1] != "reference" else h2d_impl.async_tensor_h2d
arr = np.arange(3, dtype=np.int32)
arr.flags.writeable = False
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    result = fn(arr, device="cpu")
print(result.tolist(), sorted({w.category.__name__ for w in seen}))
"""


def s_readonly_warning(t):  # b07
    # torch warns about a read-only array once per process (TORCH_WARN_ONCE): the first such
    # call of a fresh interpreter shows it, so each side runs in its own
    name = "reference" if t is REFERENCE else t.module
    done = subprocess.run([sys.executable, "-c", _FIRST_CALL, name], capture_output=True, text=True, check=False)
    return done.returncode, done.stdout.strip(), done.stderr.strip()[-200:]


def s_empty_2d(t):  # b08
    return outcome(lambda: t.async_tensor_h2d([[]], device=CPU))


def s_numpy_scalar(t):  # b09
    return outcome(lambda: t.async_tensor_h2d(np.float32(1.5), device=CPU))


def s_channels_last(t):  # b10
    nhwc = torch.arange(16, dtype=torch.float32).reshape(1, 2, 2, 4).contiguous(memory_format=torch.channels_last)
    return outcome(lambda: t.async_tensor_h2d(nhwc, device=CPU))


def s_half_from_list(t):  # b11
    return outcome(lambda: t.async_tensor_h2d([1 + 2**-11 + 2**-40], dtype=torch.float16, device=CPU))


def s_float_rows(t):  # b12
    buf = t.buffer_cls(4, dtype=torch.int32, device=CPU)
    return outcome(lambda: buf.copy_to_gpu(2.5))


def s_neg_view(t):  # b13
    neg = torch.tensor([1 - 2j]).conj().imag  # 2.0 with torch's negative bit set
    assert neg.is_neg()
    return outcome(lambda: t.async_tensor_h2d(neg, dtype=torch.int32, device=CPU))


def s_buffer_twin(t):  # b14
    buf = t.buffer_cls(4, dtype=torch.int32, device=CPU)
    buf.np[0] = 5  # a host write, no copy_to_gpu
    return outcome(lambda: buf.gpu.clone())


def s_python_type_dtype(t):  # b15
    return outcome(lambda: t.async_tensor_h2d([1], dtype=float, device=CPU))


def s_device_zero(t):  # b16
    return outcome(lambda: t.async_tensor_h2d([1], device=0))


def s_complex_to_bool(t):  # b17
    return outcome(lambda: t.async_tensor_h2d([1j], dtype=torch.bool, device=CPU))


def s_size1_flip(t):  # b18
    return outcome(lambda: t.async_tensor_h2d(np.array([7])[::-1], device=CPU))


def s_readonly_flag_on_error(t):  # b19
    arr = np.array([1.0], dtype=np.longdouble)
    arr.flags.writeable = False
    result = outcome(lambda: t.async_tensor_h2d(arr, device=CPU))
    return result, ("writeable after the call", bool(arr.flags.writeable))


def s_size_tuple(t):  # b20
    return outcome(lambda: t.buffer_cls((4,), dtype=torch.int32, device=CPU))


SCENARIOS = {
    "b01_range_check_floor": s_floor,
    "b02_float_to_int_rounded": s_round,
    "b03_bool_target_range_checked": s_bool_target,
    "b04_unsupported_dtype_valueerror": s_unsupported_dtype,
    "b05_device_string_runtimeerror": s_bad_device_string,
    "b06_structured_field_refused": s_structured_field,
    "b07_readonly_fast_path_warns": s_readonly_warning,
    "b08_empty_result_flattened": s_empty_2d,
    "b09_numpy_scalar_1d": s_numpy_scalar,
    "b10_channels_last_kept": s_channels_last,
    "b11_float_list_direct_to_half": s_half_from_list,
    "b12_rows_coerced_with_int": s_float_rows,
    "b13_neg_view_range_check": s_neg_view,
    "b14_buffer_twin_aliases_host": s_buffer_twin,
    "b15_python_type_dtypes": s_python_type_dtype,
    "b16_device_zero_falsy": s_device_zero,
    "b17_complex_to_bool_refused": s_complex_to_bool,
    "b18_flip_size1_refused": s_size1_flip,
    "b19_readonly_flag_left_on_error": s_readonly_flag_on_error,
    "b20_buffer_size_tuple_accepted": s_size_tuple,
}
GPU_ONLY = (
    "b21_small_slices_align4",
    "b22_gather_span_short",
    "b23_pinned_converted_on_device",
    "b24_small_path_source_itemsize",
)


def load(name):
    target = importlib.import_module(f"r30.{name}").target()
    return types.SimpleNamespace(
        module=name,  # for the fresh-interpreter scenario
        async_tensor_h2d=target.async_tensor_h2d,
        cpu_variant=target.cpu_variant,
        buffer_cls=target.buffer_cls,
    )


def main(verbose: bool = "-v" in sys.argv) -> int:
    control = load("b00_control")
    mismatches = [n for n, s in SCENARIOS.items() if s(control) != s(REFERENCE)]
    print(f"b00_control: {'buggy' if mismatches else 'not buggy'}" + (f" (differs on {mismatches})" if mismatches else ""))
    wrong = bool(mismatches)
    for name, scenario in SCENARIOS.items():
        bug, ref = scenario(load(name)), scenario(REFERENCE)
        print(f"{name}: {'buggy' if bug != ref else 'not buggy'}")
        if verbose or bug == ref:
            print(f"    reference: {ref}\n    bug:       {bug}")
        wrong |= bug == ref
    for name in GPU_ONLY:
        load(name)  # importable and builds its target; its scenario needs CUDA (BUGS.md)
        print(f"{name}: GPU only, not run here (scenario in BUGS.md)")
    return int(wrong)


if __name__ == "__main__":
    sys.exit(main())
