"""The control of round 4: the unmodified reference, built the way every r4 bug module builds its target."""
from h2d_contracts import h2d_impl
from h2d_contracts.contracts import Target


def target() -> Target:
    return Target(
        name="r4:b00_reference (control)",
        async_tensor_h2d=h2d_impl.async_tensor_h2d,
        buffer_cls=h2d_impl.CpuGpuBuffer,
        cpu_variant=h2d_impl.async_tensor_h2d_cpu,
        capabilities=frozenset({"out", "buffer", "cpu-variant", "cuda"}),
        pin_memory_available=h2d_impl.pin_memory_available,
        version=h2d_impl.__version__,
        notes="no edit",
    )
