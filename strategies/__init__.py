"""Hypothesis strategies for the inputs users pass to H2D copy utilities.

Host data (:func:`host_data`, :func:`nested_lists`, :func:`numpy_arrays`,
:func:`cpu_tensors`), dtypes and shapes (:func:`torch_dtypes`, :func:`shapes`), and the
other arguments (:func:`devices`, :func:`out_buffers`, :func:`wrong_shapes`,
:func:`h2d_calls`, :func:`buffer_specs`, :func:`row_counts`, :func:`bad_inputs`).
"""

from ._dtypes import FLOAT8_DTYPES, NUMPY_OF, TARGET_DTYPES, UNSIGNED_WIDE_DTYPES, USER_DTYPES
from .calls import (
    OUT_KINDS,
    POISON,
    ROUTES,
    VALUE_KINDS,
    value_bad_inputs_table,
    value_case,
    BadInput,
    H2DCall,
    bad_inputs,
    buffer_specs,
    devices,
    h2d_calls,
    out_buffers,
    out_in_layout,
    row_counts,
    wrong_shapes,
)
from .host import (
    ARRAY_LAYOUTS,
    TENSOR_LAYOUTS,
    cpu_tensors,
    host_data,
    nested_lists,
    numpy_arrays,
    pinning_available,
    shapes,
    tensor_in_layout,
    torch_dtypes,
)

__all__ = [
    "ARRAY_LAYOUTS",
    "FLOAT8_DTYPES",
    "NUMPY_OF",
    "OUT_KINDS",
    "POISON",
    "TENSOR_LAYOUTS",
    "TARGET_DTYPES",
    "UNSIGNED_WIDE_DTYPES",
    "USER_DTYPES",
    "ROUTES",
    "VALUE_KINDS",
    "value_bad_inputs_table",
    "value_case",
    "BadInput",
    "H2DCall",
    "bad_inputs",
    "buffer_specs",
    "cpu_tensors",
    "tensor_in_layout",
    "devices",
    "h2d_calls",
    "host_data",
    "nested_lists",
    "numpy_arrays",
    "out_buffers",
    "out_in_layout",
    "pinning_available",
    "row_counts",
    "shapes",
    "torch_dtypes",
    "wrong_shapes",
]
