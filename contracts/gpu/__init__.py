"""Contracts that only mean something on CUDA: staging, non-blocking, snapshot, stream, device-hygiene.

Techniques (measured on an H200):

- a busy stream: ``torch.cuda._sleep(cycles)`` queues a spin kernel; cycles per ms are
  calibrated with CUDA events per device, never hard-coded;
- memcpy kinds: ``torch.profiler`` with CUDA activity names each H2D DMA
  "Memcpy HtoD (Pageable -> Device)" or "Memcpy HtoD (Pinned -> Device)";
- pinned allocations: ``torch.cuda.host_memory_stats()`` counts requests to the
  caching host allocator ("active_requests.allocated", "allocations.allocated").

The non-blocking contract is the kit's one timing-based check, judged by the stream's own
state: the call must return while the work queued before it (at least ``BUSY_MS``,
calibrated to the call's warm host time) still runs, read off an event; a wait is confirmed
behind ``CONFIRM_FACTOR`` times the work before the check fails. A pageable "non_blocking"
copy of >= 4 MB blocked ~60 ms behind a busy stream on the H200, a staged one returned in
0.2-1.3 ms at every size up to 64 MB (measured on an H200; docs/reference.md).
"""

from . import device_hygiene, non_blocking, snapshot, staging, stream, timing
from .device_hygiene import check_device_hygiene, prop_device_hygiene
from .non_blocking import (
    NON_BLOCKING_BYTES,
    NON_BLOCKING_KINDS,
    SMALL_CALLS,
    check_buffer_non_blocking,
    check_non_blocking,
    check_non_blocking_after_trims,
    check_small_calls_non_blocking,
    prop_buffer_non_blocking,
    prop_cap_wait_for_oldest_copy,
    prop_idle_stream_never_waits,
    prop_non_blocking,
    prop_non_blocking_after_trims,
    prop_other_thread_work_never_waited,
    prop_small_calls_non_blocking,
)
from .snapshot import (
    CONVERTED_PINNED_CASES,
    check_back_to_back,
    check_buffer_fresh_behind_busy,
    check_buffer_hazard,
    check_per_thread_streams,
    check_pinned_hazard,
    check_queued_past_cap,
    check_snapshot,
    prop_back_to_back,
    prop_back_to_back_idle,
    prop_buffer_fresh,
    prop_buffer_hazard,
    prop_per_thread_streams,
    prop_pinned_hazard,
    prop_pinned_hazard_small,
    prop_queued_past_cap,
    prop_snapshot,
    prop_snapshot_converted_pinned,
)
from .staging import (
    DENSE_LAYOUTS,
    DENSE_PERMUTED_TABLE,
    check_pinned_not_restaged,
    check_staging,
    check_staging_after_default_device,
    dense_layout,
    prop_pinned_not_restaged,
    prop_staging,
    prop_staging_fresh_default_device,
    prop_staging_strided_pinned,
    staged_kind,
)
from .stream import check_stream_no_out, check_stream_out, prop_cross_device, prop_stream
from .timing import (
    BUSY_MS,
    CALIBRATION_FACTOR,
    CONFIRM_FACTOR,
    MAX_BUSY_MS,
    busy,
    cycles_per_ms,
    memcpy_kinds,
    requires_cuda,
)

__all__ = [
    "BUSY_MS",
    "CALIBRATION_FACTOR",
    "CONFIRM_FACTOR",
    "CONVERTED_PINNED_CASES",
    "DENSE_LAYOUTS",
    "DENSE_PERMUTED_TABLE",
    "MAX_BUSY_MS",
    "NON_BLOCKING_BYTES",
    "NON_BLOCKING_KINDS",
    "SMALL_CALLS",
    "busy",
    "check_back_to_back",
    "check_buffer_fresh_behind_busy",
    "check_buffer_hazard",
    "check_buffer_non_blocking",
    "check_device_hygiene",
    "check_non_blocking",
    "check_pinned_hazard",
    "check_queued_past_cap",
    "check_pinned_not_restaged",
    "check_non_blocking_after_trims",
    "check_per_thread_streams",
    "check_small_calls_non_blocking",
    "check_snapshot",
    "check_staging",
    "check_staging_after_default_device",
    "check_stream_no_out",
    "check_stream_out",
    "cycles_per_ms",
    "dense_layout",
    "device_hygiene",
    "memcpy_kinds",
    "non_blocking",
    "prop_back_to_back",
    "prop_back_to_back_idle",
    "prop_buffer_fresh",
    "prop_buffer_hazard",
    "prop_buffer_non_blocking",
    "prop_cross_device",
    "prop_device_hygiene",
    "prop_non_blocking",
    "prop_cap_wait_for_oldest_copy",
    "prop_idle_stream_never_waits",
    "prop_non_blocking_after_trims",
    "prop_other_thread_work_never_waited",
    "prop_per_thread_streams",
    "prop_pinned_hazard",
    "prop_pinned_hazard_small",
    "prop_queued_past_cap",
    "prop_pinned_not_restaged",
    "prop_small_calls_non_blocking",
    "prop_snapshot",
    "prop_snapshot_converted_pinned",
    "prop_staging",
    "prop_staging_fresh_default_device",
    "prop_staging_strided_pinned",
    "prop_stream",
    "requires_cuda",
    "snapshot",
    "staged_kind",
    "staging",
    "stream",
    "timing",
]
