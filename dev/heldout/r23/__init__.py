"""r23bugs: held-out GPU-only bugs for h2d-contracts (one module per bug, each with ``target()``).

``BUGS`` lists the bug modules in order (b00 is the unmodified reference, the control).
Every module only imports torch / the kit; nothing touches CUDA at import time.
"""

BUGS = [
    "b00_control",
    "b01_side_stream_no_prewait",
    "b02_event_on_current_stream",
    "b03_side_stream_no_record_stream",
    "b04_pool_stale_chunk_stream",
    "b05_small_chunk_shared_across_streams",
    "b06_per_shape_pinned_cache",
    "b07_keepalive_prune_newest",
    "b08_mirror_cache_by_data_ptr",
    "b09_buffer_stream_at_init",
    "b10_buffer_d2h_side_stream_no_wait",
    "b11_pinned_ndarray_zero_copy",
    "b12_numpy_cast_pageable",
    "b13_ring_device_side_wait",
    "b14_buffer_setitem_blocking",
    "b15_latched_first_stream",
]
