"""One-shot probe of the facts the GPU contracts rely on (run on the lent GPU)."""
import json, time, sys
import torch, numpy as np
print("torch", torch.__version__, "cuda", torch.version.cuda, "devices", torch.cuda.device_count(),
      [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())])
print("host_memory_stats keys", sorted(torch.cuda.host_memory_stats().keys()))
x = torch.arange(1 << 20, dtype=torch.int32)
d = torch.device("cuda:0")
before = torch.cuda.host_memory_stats()
st = torch.empty(x.shape, dtype=x.dtype, pin_memory=True).copy_(x); r = st.to(d, non_blocking=True); del st
torch.cuda.synchronize()
after = torch.cuda.host_memory_stats()
print("stats diff after one staged copy", {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)})
from torch.profiler import profile, ProfilerActivity
xp = x.pin_memory()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    x.to(d, non_blocking=True); xp.to(d, non_blocking=True); xp.view(1024, 1024)[:, ::2].to(d, non_blocking=True)
    torch.cuda.synchronize()
for e in prof.events():
    if "emcpy" in e.name or "copy" in e.name.lower():
        print("EV", repr(e.name), e.device_type, getattr(e, "device_index", None), e.cpu_memory_usage if hasattr(e,'cpu_memory_usage') else None)
ke = prof.profiler.kineto_results.events() if hasattr(prof.profiler, "kineto_results") else []
for k in ke:
    if "emcpy" in k.name():
        print("KE", k.name(), "stream" , getattr(k, "stream", lambda: None)() if callable(getattr(k, "stream", None)) else None, [a for a in dir(k) if not a.startswith('_')][:40])
        break
for name in ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]:
    dt = getattr(torch, name, None)
    if dt is None: print(name, "absent"); continue
    try:
        t = torch.arange(8, dtype=torch.uint8).view(dt); g = t.to(d); b = g.cpu(); print(name, "roundtrip", torch.equal(t.view(torch.uint8), b.view(torch.uint8)))
        tp = torch.empty(8, dtype=dt, pin_memory=True).copy_(t); print(name, "pinned copy ok")
    except Exception as e: print(name, "ERR", type(e).__name__, e)
# stream of memcpy: copy on non-default stream
s = torch.cuda.Stream()
with profile(activities=[ProfilerActivity.CUDA]) as prof2:
    with torch.cuda.stream(s): xp.to(d, non_blocking=True)
    torch.cuda.synchronize()
print("non-default stream id", s.stream_id, "cuda_stream", s.cuda_stream)
for k in prof2.profiler.kineto_results.events():
    if "emcpy" in k.name():
        print("KE2", k.name(), {a: (getattr(k, a)() if callable(getattr(k, a)) else getattr(k, a)) for a in dir(k) if not a.startswith('_') and a in ("stream","device_index","device_resource_id","correlation_id","device_type")})
