"""Contract ``values``: the result equals ``data`` converted to the resolved dtype, on the requested device.

Bit for bit (NaN and -0.0 included), same shape, on the requested device with its index,
contiguous when made without ``out`` (any input layout), never part of the caller's
autograd graph. The check is :func:`check_values`; the properties draw every input kind,
layout, dtype and route (``device=``, ``dtype=``, ``out=``), and deterministic tables hit
what random draws reach only by luck (every dtype at its edges, every layout, typed numpy
scalars wherever they sit, Python floats under another default dtype, the first call of a
process).

The modules: the single-call checks (``checks``), drawn calls (``drawn``), wide numpy
dtypes (``wide_numpy``), large and multi-MB inputs (``large``), typed numpy scalars
(``typed_leaves``), the first call of a process (``first_call``), the deterministic
tables (``tables``), integer range ends and list leaf types (``edges``), special floats (``special``) and the size, conversion and row
ladders (``ladder``). This package re-exports every public name.
"""

# isort: off
# The properties register in the order these modules are imported (harness.registry.PROPERTIES
# keeps it): drawn calls first, the tables after them, at scale last (the costliest properties).
from .checks import check_values, check_values_bulk, check_values_equal
from .drawn import prop_values, prop_values_pure_copy_bits, prop_values_zero_length
from .wide_numpy import prop_values_wide_numpy
from .large import LARGE_LENGTHS, MULTI_MB_ELEMENTS, prop_values_large, prop_values_multi_mb
from .typed_leaves import TYPED_LEAF_PLACES, TYPED_LEAVES, prop_values_typed_leaves
from .first_call import FIRST_CALL_CASES, check_values_first_call, first_call_inputs, prop_values_first_call
from .tables import (
    LAYOUT_SHAPES,
    PRODUCT_SIZES,
    prop_values_autograd_and_default_dtype,
    prop_values_dtype_matrix,
    prop_values_layouts,
    prop_values_bool_bytes,
    prop_values_lazy_tensors,
    prop_values_product,
)
from .edges import (
    FIELD_DTYPES,
    INT_SOURCES,
    LEAF_LISTS,
    int_edge_values,
    prop_values_fields,
    prop_values_int_edges,
    prop_values_list_leaf_kinds,
)
from .special import (
    SPECIAL_FLOATS,
    check_values_under_numpy_errors,
    prop_values_numpy_error_state,
    prop_values_special_table,
)
from .ladder import (
    CONVERSION_PAIRS,
    FULL_LADDER_DTYPE,
    SIZE_DTYPES,
    prop_values_conversion_sizes,
    prop_values_log_sizes,
    prop_values_rows,
    prop_values_sizes,
)

# isort: on

__all__ = [
    "FIELD_DTYPES",
    "INT_SOURCES",
    "LEAF_LISTS",
    "int_edge_values",
    "prop_values_fields",
    "prop_values_int_edges",
    "prop_values_list_leaf_kinds",
    "CONVERSION_PAIRS",
    "FIRST_CALL_CASES",
    "FULL_LADDER_DTYPE",
    "LARGE_LENGTHS",
    "LAYOUT_SHAPES",
    "MULTI_MB_ELEMENTS",
    "PRODUCT_SIZES",
    "SIZE_DTYPES",
    "SPECIAL_FLOATS",
    "TYPED_LEAF_PLACES",
    "TYPED_LEAVES",
    "check_values",
    "check_values_bulk",
    "check_values_equal",
    "check_values_first_call",
    "first_call_inputs",
    "prop_values",
    "prop_values_autograd_and_default_dtype",
    "prop_values_conversion_sizes",
    "prop_values_dtype_matrix",
    "prop_values_first_call",
    "prop_values_large",
    "prop_values_layouts",
    "prop_values_log_sizes",
    "prop_values_multi_mb",
    "prop_values_bool_bytes",
    "prop_values_lazy_tensors",
    "prop_values_product",
    "prop_values_numpy_error_state",
    "check_values_under_numpy_errors",
    "prop_values_pure_copy_bits",
    "prop_values_rows",
    "prop_values_sizes",
    "prop_values_special_table",
    "prop_values_typed_leaves",
    "prop_values_wide_numpy",
    "prop_values_zero_length",
]
