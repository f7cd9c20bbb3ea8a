"""Contracts of Model Runner V2's transfer utilities: ``uva``, ``pool``, ``staged-write``, ``fused-writes``.

The classes of vLLM 0.33.0's ``vllm/v1/worker/gpu/buffer_utils.py`` (a target's
``buffer_utils``, capability ``"buffer-utils"``), judged against a numpy model:

- ``staged-write``: a ``StagedWriteTensor`` after any schedule of ``stage_write`` /
  ``stage_write_elem`` / ``apply_write`` holds exactly what the model holds (writes applied
  in staging order, bit for bit, across vLLM's 1,024-element chunks); a write past the
  tensor's rows or a row's end (or a negative index or start) is refused with an
  exception naming the argument (never an ``assert``: ``python -O`` removes it) and
  nothing is staged; a dtype outside int32/int64/float32 is refused with ``ValueError``.
- ``fused-writes``: one ``FusedStagedWriter.apply`` leaves every tensor as its own
  ``apply_write`` would, and clears all their staged writes.
- ``pool``: a ``UvaBufferPool``'s reader sees its own step's data while at most
  ``max_concurrency`` steps are in flight (readers retired before a slot is reused, as
  vLLM asks of callers), growth included; ``x`` whose rows are not a slot's rows is refused.
- ``uva``: ``uva(n)`` is the first ``n`` rows of ``.cpu``, refused past the rows (IndexError
  naming ``n``); on CUDA a ``UvaBuffer``'s view is read when the kernel runs (a reader
  queued behind busy work sees what the host wrote after the call), and the view keeps its
  pinned memory alive; a ``NonUvaBuffer``'s ``uva(n)`` holds the values at the call.
- ``non-blocking`` on CUDA: a pool's ``copy_to_uva``/``copy_to_gpu``, a backed tensor's
  ``copy_to_uva``, ``apply_write`` and a fused ``apply`` return behind queued work.
- ``staged-write`` on CUDA: applies land in stream order (a reader queued before
  ``apply_write`` reads the previous contents), UVA-backed ``.gpu`` included.

On the CPU the pool's slots are ``NonUvaBuffer``\\ s (no UVA) and a reader is a host read;
on CUDA readers are kernels queued behind calibrated busy work (``contracts.gpu.timing``).
"""

from .in_context import (
    IN_CONTEXTS,
    check_pool_in_context,
    check_staged_in_context,
    check_uva_in_context,
    prop_pool_in_contexts,
    prop_staged_in_contexts,
    prop_uva_in_contexts,
)
from .non_blocking import (
    BUFFER_UTILS_CALLS,
    check_buffer_utils_non_blocking,
    prop_buffer_utils_non_blocking,
)
from .pool import (
    check_backed_rows_refused,
    check_backed_steps,
    check_nonuva_values_at_call,
    check_pool_depth_refused,
    check_pool_growth_released,
    check_pool_rows_refused,
    check_pool_steps,
    check_pools_interleaved,
    check_uva_fresh,
    check_uva_outlives_buffer,
    check_uva_read_at_kernel_time,
    check_uva_rows,
    prop_backed_rows,
    prop_backed_steps,
    prop_pool_depth,
    prop_pool_growth_released,
    prop_pool_long_steps,
    prop_pool_rows,
    prop_pool_state,
    prop_pool_steps,
    prop_pools_interleaved,
    prop_uva_kernel_time,
    prop_uva_rows,
)
from .staged import (
    UNSUPPORTED_STAGED_DTYPES,
    check_fused_refused,
    check_fused_tables_reordered,
    check_fused_writes,
    check_staged_dtype_refused,
    check_staged_on_stream,
    check_staged_size_refused,
    check_staged_writes,
    prop_fused_refused,
    prop_fused_some_empty,
    prop_fused_subsets,
    prop_fused_tables_reordered,
    prop_fused_writes,
    prop_staged_array_values,
    prop_staged_bad_values,
    prop_staged_chunks,
    prop_staged_dtypes,
    prop_staged_edges,
    prop_staged_far_past,
    prop_staged_overlaps,
    prop_staged_stream_order,
    prop_staged_writes,
)

__all__ = [
    "BUFFER_UTILS_CALLS",
    "IN_CONTEXTS",
    "check_buffer_utils_non_blocking",
    "prop_buffer_utils_non_blocking",
    "check_pool_in_context",
    "check_staged_in_context",
    "check_uva_in_context",
    "prop_pool_in_contexts",
    "prop_staged_in_contexts",
    "prop_uva_in_contexts",
    "UNSUPPORTED_STAGED_DTYPES",
    "check_backed_rows_refused",
    "check_backed_steps",
    "check_pool_depth_refused",
    "check_pool_growth_released",
    "check_nonuva_values_at_call",
    "check_staged_on_stream",
    "check_staged_size_refused",
    "check_uva_fresh",
    "check_uva_outlives_buffer",
    "prop_backed_rows",
    "prop_backed_steps",
    "prop_pool_depth",
    "prop_pool_long_steps",
    "prop_pool_growth_released",
    "check_fused_refused",
    "check_fused_tables_reordered",
    "check_fused_writes",
    "prop_fused_refused",
    "prop_fused_tables_reordered",
    "prop_fused_some_empty",
    "prop_fused_subsets",
    "check_pool_rows_refused",
    "check_pool_steps",
    "check_pools_interleaved",
    "check_staged_dtype_refused",
    "check_staged_writes",
    "check_uva_read_at_kernel_time",
    "check_uva_rows",
    "prop_fused_writes",
    "prop_pool_rows",
    "prop_pool_state",
    "prop_pool_steps",
    "prop_pools_interleaved",
    "prop_staged_chunks",
    "prop_staged_dtypes",
    "prop_staged_array_values",
    "prop_staged_bad_values",
    "prop_staged_edges",
    "prop_staged_far_past",
    "prop_staged_overlaps",
    "prop_staged_stream_order",
    "prop_staged_writes",
    "prop_uva_kernel_time",
    "prop_uva_rows",
]
