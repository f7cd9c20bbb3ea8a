"""Contract ``buffer``: ``CpuGpuBuffer``'s construction, views and row copies, checked on their own and as op sequences.

``CpuGpuBuffer(*size, dtype, device, pin_memory, with_numpy=True)``: zero-initialised,
``.cpu`` pinned iff asked and available (``pin_memory=True`` on a host without pinned
memory gives pageable memory, no error), ``.np`` a view of ``.cpu``, bfloat16/float8 with
``.np`` refused, ``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` copying exactly rows ``[0, n)``
and returning that view of the destination, ``n`` outside ``[0, capacity]`` refused.

Every check builds its buffer from a spec (the constructor's keyword arguments, as
:func:`strategies.buffer_specs` draws them), so a failure's reproduction rebuilds it. On
the host a buffer may keep one memory for both sides (``.gpu`` is ``.cpu`` when the device
is the host: vLLM 0.10); such a buffer is judged on what the host can see (the rows a copy
returns), not on a separation of sides that does not exist there.

The modules: building a buffer from a spec and reading its bytes (``build``), the built
buffer (``construction``), refused constructor arguments (``refusals``), row copies
(``copies``), op sequences against a numpy model (``ops``) and the properties
(``properties``). This package re-exports every public name.
"""

from .build import host_aliased, make_buffer, repr_spec, wait
from .construction import check_buffer_constructed, check_buffer_init
from .copies import check_copy_to_cpu, check_copy_to_gpu, check_roundtrip_bits, check_row_count_rejected
from .ops import buffer_state_machine, check_buffer_ops
from .properties import (
    buffer_values,
    prop_buffer_bad_args,
    prop_buffer_bad_rows,
    prop_buffer_bad_rows_after_valid,
    prop_buffer_copy,
    prop_buffer_copy_sizes,
    prop_buffer_default_pinning,
    prop_buffer_init,
    prop_buffer_made_in_contexts,
    prop_buffer_numpy_rejected,
    prop_buffer_roundtrip,
    prop_buffer_spellings,
    prop_buffer_state_machine,
    prop_buffer_wide_unsigned,
)
from .refusals import BUFFER_ARGUMENT_NAMES, check_buffer_rejected, check_numpy_view_rejected

__all__ = [
    "BUFFER_ARGUMENT_NAMES",
    "buffer_state_machine",
    "buffer_values",
    "check_buffer_constructed",
    "check_buffer_init",
    "check_buffer_ops",
    "check_buffer_rejected",
    "check_copy_to_cpu",
    "check_copy_to_gpu",
    "check_numpy_view_rejected",
    "check_roundtrip_bits",
    "check_row_count_rejected",
    "host_aliased",
    "make_buffer",
    "prop_buffer_bad_args",
    "prop_buffer_made_in_contexts",
    "prop_buffer_bad_rows",
    "prop_buffer_bad_rows_after_valid",
    "prop_buffer_copy",
    "prop_buffer_copy_sizes",
    "prop_buffer_init",
    "prop_buffer_numpy_rejected",
    "prop_buffer_spellings",
    "prop_buffer_default_pinning",
    "prop_buffer_wide_unsigned",
    "prop_buffer_roundtrip",
    "prop_buffer_state_machine",
    "repr_spec",
    "wait",
]
