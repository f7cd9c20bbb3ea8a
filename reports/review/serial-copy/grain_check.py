"""Every aten op run inside _host_copy (dst <= 256 KiB) for every dtype pair and table layouts: any op touching > 32768 elements?"""
import sys
sys.argv = [sys.argv[0], "40000", "__none__"]
exec(open("/tmp/review_serial/table.py").read())
from torch.utils._python_dispatch import TorchDispatchMode
import collections
VIEWS = {"view", "t", "transpose", "permute", "expand", "slice", "select", "alias", "as_strided", "_neg_view", "detach", "_conj", "unsqueeze", "squeeze", "view_as_real", "_reshape_alias", "empty", "empty_strided", "is_same_size", "resolve_conj", "resolve_neg", "_local_scalar_dense", "lift_fresh"}
class Big(TorchDispatchMode):
    def __init__(s): super().__init__(); s.ops = []; s.maxcopy = 0
    def __torch_dispatch__(s, func, types, args=(), kwargs=None):
        r = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if name not in VIEWS:
            ns = [a.numel() for a in torch.utils._pytree.tree_leaves((args, kwargs, r)) if isinstance(a, torch.Tensor)]
            if ns and max(ns) > 32768: s.ops.append(f"{name}({max(ns)})")
        return r
cases = 0; bad = collections.defaultdict(list)
for sdt in DT:
    for ddt in DT:
        n = min(40000, (256 << 10) // ddt.itemsize)
        if n < 32768: continue
        v = torch.zeros(n, dtype=torch.uint8).view(sdt) if (sdt.is_floating_point and sdt.itemsize == 1) else torch.zeros(n, dtype=sdt)
        for lname, src in layouts_src(v):
            for dname, mk in dst_layouts(tuple(src.shape), ddt):
                dst = mk()
                if dst.numel() * dst.element_size() > (256 << 10): continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    with Big() as m:
                        try: new._host_copy(dst, src)
                        except Exception as e: pass
                cases += 1
                if m.ops: bad[(str(sdt)[6:], str(ddt)[6:])].append((lname, dname, m.ops[:3]))
print("cases", cases, "with an op over 32768 elements:", sum(map(len, bad.values())))
for k, v in list(bad.items())[:20]: print(k, v[:2])
