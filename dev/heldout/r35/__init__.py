"""Round r35 of held-out bugs for h2d-contracts: each ``bNN_*`` module's ``target()`` is the
reference with one realistic change (see BUGS.md); ``b00_control`` is the unmodified reference."""

CPU_BUGS = [
    "b01_buffer_pin_not_degraded",
    "b02_buffer_cpu_uninitialised",
    "b03_buffer_rows_exclusive",
    "b04_flat_bool_as_int",
    "b05_range_check_after_write",
    "b06_buffer_flat_copy",
    "b07_integer_set_has_complex",
    "b08_cpu_variant_default_device",
    "b09_detach_in_place",
    "b10_numpy_fast_path_2d",
    "b11_out_device_unchecked",
    "b12_complex32_supported",
    "b13_buffer_np_none",
    "b14_buffer_capacity_numel",
    "b15_copyto_swapped",
    "b16_copy_to_cpu_direction",
    "b17_first_index_flat",
    "b18_ragged_padded",
    "b19_copy_to_gpu_returns_whole",
    "b20_sparse_densified",
    "b21_buffer_numpy_no_uint",
    "b22_buffer_registry_leak",
]
GPU_BUGS = [
    "b23_dense_is_non_overlapping",
    "b24_block_floor_pow2",
    "b25_device_index_off_by_one",
    "b26_buffer_np_before_pin",
    "b27_give_back_before_dma",
    "b28_first_done_queries_start",
    "b29_gather_source_offset",
    "b30_buffer_always_pins",
]
ALL_BUGS = CPU_BUGS + GPU_BUGS
