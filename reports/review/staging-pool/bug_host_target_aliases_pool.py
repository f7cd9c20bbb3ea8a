"""Device-generic path with a host target (clock None, what the CPU call-trace tests drive):
`staging.to(cpu, non_blocking=True)` is a no-op returning the staging view itself, so the result
of _to_device/_copy_pooled IS the pool's block, which the very next call (block reused "at once")
overwrites. Test-harness-only path (async_tensor_h2d returns early for cpu targets), low severity,
but it contradicts _to_device's "one host copy, then one copy into the destination" and makes
the CPU trace tests model a result that aliases recycled staging."""
from common import *
from common import _staging
from h2d_contracts.h2d_impl import h2d

_staging._POOLS.clear()
n = (2 << 20) // 4                               # 2 MiB float32: the pooled-block path
a = torch.full((n,), 1.0); b = torch.full((n,), 2.0)
r1 = h2d._to_device(a, a, torch.float32, CPU, None, pin=False)
print("first result[0] =", r1[0].item(), "| result shares the pool block:",
      r1.untyped_storage().data_ptr() == next(iter(p for p in _staging._POOLS.values()))._free[0].block.data_ptr())
r2 = h2d._to_device(b, b, torch.float32, CPU, None, pin=False)
print("after a second call, first result[0] =", r1[0].item(), "(expected 1.0)", "BUG" if r1[0].item() != 1.0 else "ok")
