"""Constant-filled contiguous 1-D sources (every element the same special value), _stage layout
(fresh contiguous dst): _serial_copy vs copy_, per dtype pair in the torch-pieces route and the numpy route."""
import sys
sys.argv = [sys.argv[0], "40000", "__none__"]
exec(open("/tmp/review_serial/table.py").read())
import collections
def specials(dt):
    if dt == torch.bool: return [torch.tensor(v) for v in (False, True)]
    if dt in (torch.float16, torch.bfloat16):
        pats = list(range(0, 0x10000, 0x0101)) + [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x007F, 0x7C00, 0xFC00, 0x7F80, 0xFF80, 0x7BFF, 0x7F7F, 0x3C00, 0x3F80,
                0x7C01, 0x7D00, 0x7E00, 0x7E01, 0x7FFF, 0xFC01, 0xFE00, 0xFFFF, 0xFCFC, 0x7F81, 0x7FC0, 0x7FC1, 0xFFC0, 0xFF81, 0x7FA0]
        return [torch.tensor(p - 0x10000 if p >= 0x8000 else p, dtype=torch.int16).view(dt) for p in sorted(set(pats))]
    if dt.is_floating_point and dt.itemsize == 1:
        return [torch.tensor(p - 256 if p >= 128 else p, dtype=torch.int8).view(torch.uint8).view(dt) for p in range(256)]
    P = pool(dt); H = P[:HEADN[dt]]
    if dt.is_complex:
        H = H[torch.randperm(H.numel(), generator=torch.Generator().manual_seed(0))[:400]]
    return list(H)
Ns = [int(x) for x in ("32768 40000 65536".split())]
diffs = collections.defaultdict(list); cases = 0; routes = collections.Counter()
for sdt in DT:
    vals = specials(sdt)
    for ddt in DT:
        numpy_route = (sdt == ddt and sdt in new._NUMPY_SAME) or (sdt, ddt) in new._NUMPY_CASTS
        for x in vals:
            if not bool(valid_mask(x.reshape(1), ddt)[0]): continue
            for n in Ns:
                if n * ddt.itemsize > (256 << 10) and n != 40000: continue
                src = x.reshape(1).expand(n).contiguous() if not x.dtype.is_floating_point or x.dtype.itemsize > 1 else x.reshape(1).view(torch.uint8).expand(n).contiguous().view(x.dtype)
                want, ew, ww = run(lambda: torch.empty(n, dtype=ddt).copy_(src))
                got, eg, wg = run(lambda: new._serial_copy(torch.zeros(n, dtype=ddt), src))
                cases += 1; routes["numpy" if numpy_route else "pieces"] += 1
                if ew != eg or (ew is None and not same(want, got)) or [w for w in wg if w not in ww]:
                    bad = (int_view(want) != int_view(got)); bad = bad.any(-1) if bad.dim() > 1 else bad
                    idx = torch.nonzero(bad).reshape(-1).tolist()
                    xv = x.view(INTV[x.element_size()]).item() if not x.is_complex() else x.item()
                    wv = int_view(want)[idx[0]].tolist() if idx else None; gv = int_view(got)[idx[0]].tolist() if idx else None
                    diffs[(str(sdt)[6:], str(ddt)[6:])].append((n, hex(xv & (2**(8*x.element_size())-1)) if isinstance(xv, int) else xv, len(idx), idx[:3], wv, gv, [w for w in wg if w not in ww]))
print("cases", cases, dict(routes))
for k, v in sorted(diffs.items()):
    print(k, "route", "numpy" if ((k[0]==k[1]) or (getattr(torch,k[0]), getattr(torch,k[1])) in new._NUMPY_CASTS) else "pieces", "n_cases", len(v))
    for e in v[:4]: print("    N=%d src=%s ndiff=%d at %s copy_=%s serial=%s newwarn=%s" % e)
