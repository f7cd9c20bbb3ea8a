# signalling NaN float32 -> float64 / -> bool: numpy.copyto raises the FP invalid flag and warns
exec(open("/tmp/review_serial/load.py").read())
import numpy as np, torch, warnings
snan = np.full(32768, 0x7F800001, np.uint32).view(np.float32)     # 32768 float64 = 256 KiB
for dtype in (torch.float64, torch.bool):
    for name, m in (("old", old), ("new", new)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = m.async_tensor_h2d(snan, device="cpu", dtype=dtype)
        print(dtype, name, [f"{x.category.__name__}: {x.message}" for x in w])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name, m in (("old", old), ("new", new)):
            try:
                m.async_tensor_h2d(snan, device="cpu", dtype=dtype); print("  -W error", name, "ok")
            except Exception as e:
                print("  -W error", name, type(e).__name__, e)
print("== out= under warnings-as-errors: is out written although the call raised?")
for name, m in (("old", old), ("new", new)):
    out = torch.zeros(32768, dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            m.async_tensor_h2d(snan, device="cpu", out=out); res = "returned"
        except RuntimeWarning as e:
            res = f"raised RuntimeWarning({e})"
    print(name, res, "| out still all zeros:", bool((out == 0).all()), "| NaNs in out:", int(out.isnan().sum()))
