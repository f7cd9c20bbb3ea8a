"""Exhaustive-ish table: _serial_copy vs copy_ for every supported dtype pair, edge values, many layouts."""
exec(open("/tmp/review_serial/load.py").read())
import torch, numpy as np, warnings, itertools, sys, collections
from h2d_impl._host import check_representable, SUPPORTED_DTYPES, _INTEGER_DTYPES
rng = np.random.default_rng(1234)
DT = sorted(SUPPORTED_DTYPES, key=str)
INTV = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}

def float_edges64():
    e = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.7, 1/3, -1/3, 0.999999, 255.0, 255.5, 256.0, 127.0, 127.9, 128.0, -128.0, -128.9, -129.0,
         32767.0, 32767.5, 32768.0, -32768.0, -32769.0, 65535.0, 65535.9, 65536.0, 2.0**31 - 1, 2.0**31 - 0.5, 2.0**31, -2.0**31, -2.0**31 - 1, 2.0**32 - 1, 2.0**32,
         2.0**53, 2.0**53 + 1, 2.0**63, -2.0**63, 2.0**63 - 1024, 2.0**64, 2.0**64 - 2048, 1e300, -1e300, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-310, 1e-45, 1.4e-45, 1.17549435e-38, 1e-40,
         3.4028234663852886e38, 3.4028235677973366e38, 65504.0, 65519.99, 65520.0, 65536.0 * 2, 6.0e-8, 5.96e-8, 2.98e-8, 1 + 2**-11, 1 + 2**-11 + 2**-40, 1 + 2**-8, 1 + 2**-8 + 2**-30, 1 + 2**-24, 1 + 2**-24 + 2**-50,
         448.0, 464.0, 57344.0, 61440.0, 240.0, 2.0**127, 2.0**-127, 2.0**-149, 2.0**-133, float("inf"), float("-inf"), float("nan"), -float("nan")]
    return np.array(e, dtype=np.float64)

HEADN = {}
def pool(dt):
    """Source values of dtype dt (a tensor) covering edge cases."""
    if dt == torch.bool:
        return torch.tensor([False, True] * 50)
    if dt in (torch.float16, torch.bfloat16):
        return torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(dt)  # all bit patterns
    if dt.is_floating_point and dt.itemsize == 1:
        return torch.arange(256, dtype=torch.int32).to(torch.uint8).view(dt)
    if dt == torch.float32:
        e = torch.from_numpy(float_edges64()).to(torch.float32)
        bits = torch.from_numpy(rng.integers(-2**31, 2**31, 20000, dtype=np.int64).astype(np.int32)).view(torch.float32)
        special = torch.tensor([0x7F800001, 0x7FC00001, 0x7FBFFFFF, -0x00000001, -0x00400001, 0x00000001, 0x007FFFFF, -0x7F800000], dtype=torch.int64).to(torch.int32).view(torch.float32)
        rnd = torch.from_numpy(np.concatenate([rng.uniform(-300, 300, 3000), rng.uniform(-2**33, 2**33, 3000), rng.uniform(0, 2**65, 2000), rng.standard_normal(2000) * 1e-39])).to(torch.float32)
        HEADN[dt] = len(e) + len(special)
        return torch.cat([e, special, bits, rnd])
    if dt == torch.float64:
        e = torch.from_numpy(float_edges64())
        bits = torch.from_numpy(rng.integers(-2**63, 2**63 - 1, 20000, dtype=np.int64)).view(torch.float64)
        special = torch.tensor([0x7FF0000000000001, 0x7FF8000000000001, 0x7FF7FFFFFFFFFFFF, -1, 1, 0x000FFFFFFFFFFFFF], dtype=torch.int64).view(torch.float64)
        # float64 values whose float16/bfloat16/float32 rounding differs directly vs through float32
        ties = torch.tensor([1 + 2**-11 + 2**-40, 1 + 2**-8 + 2**-30, 1 + 2**-24 + 2**-50, 65504 + 16 - 2**-30, 2**-24 * (1 + 2**-30), 2**-25 * (1 + 2**-30), 3 * 2**-26 * (1 + 2**-30)], dtype=torch.float64)
        rnd = torch.from_numpy(np.concatenate([rng.uniform(-300, 300, 3000), rng.uniform(-2**33, 2**33, 3000), rng.uniform(0, 2**65, 2000), rng.uniform(-2**64, 2**64, 2000), rng.standard_normal(2000) * 1e-310]))
        HEADN[dt] = len(e) + len(special) + 2 * len(ties)
        return torch.cat([e, special, ties, -ties, bits, rnd])
    if dt.is_complex:
        fd = torch.float32 if dt == torch.complex64 else torch.float64
        re = pool(fd); im = pool(fd)[torch.randperm(len(pool(fd)), generator=torch.Generator().manual_seed(5))]
        small = torch.from_numpy(float_edges64()).to(fd)
        a, b = torch.meshgrid(small, small, indexing="ij")
        HEADN[dt] = a.numel()
        return torch.cat([torch.complex(a.reshape(-1), b.reshape(-1)), torch.complex(re, im)])
    # integers
    info = torch.iinfo(dt)
    vals = {0, 1, info.min, info.max, info.min + 1, info.max - 1}
    for k in range(0, 64):
        for base in (2**k, -(2**k)):
            for d in (-1, 0, 1):
                v = base + d
                if info.min <= v <= info.max:
                    vals.add(v)
    for v in [2**60 + 2**36 + 1, 2**60 + 2**36, 2**53 + 1, 2**54 + 3, 2**63 + 2**39 + 1, 2**63 + 2**39, 2**64 - 2**39 - 1, 2**24 + 1, 2**25 + 3, 2**31 + 2**7 + 1, -(2**60 + 2**36 + 1), 16777217, 2**62 + 2**38 + 2**10]:
        if info.min <= v <= info.max:
            vals.add(v)
    npdt = torch.empty(0, dtype=dt).numpy().dtype
    rnd = rng.integers(info.min, info.max, 20000, dtype=npdt, endpoint=True)
    HEADN[dt] = len(vals)
    return torch.from_numpy(np.concatenate([np.array(sorted(vals), dtype=object).astype(npdt), rnd]))

def valid_mask(src, dst):
    if src.is_complex() and not dst.is_complex and dst != torch.bool:
        return torch.zeros(src.shape, dtype=torch.bool)
    if dst not in _INTEGER_DTYPES or src.dtype == dst or src.dtype == torch.bool:
        return torch.ones(src.shape, dtype=torch.bool)
    if src.is_complex():
        return torch.zeros(src.shape, dtype=torch.bool)
    info = torch.iinfo(dst)
    if src.is_floating_point():
        w = src.to(torch.float64)
        return torch.isfinite(w) & (w >= float(info.min)) & (w <= float(info.max)) & (w < float(info.max + 1))
    a = src.numpy().astype(object) if False else src.numpy()
    return torch.from_numpy(np.array((a >= info.min) & (a <= info.max)))

def int_view(t):
    t = t.resolve_conj().resolve_neg()
    if t.is_complex():
        t = torch.view_as_real(t)
    return t.view(INTV[t.element_size()])

def nan_only(a, b):
    a = a.resolve_conj().resolve_neg(); b = b.resolve_conj().resolve_neg()
    if a.is_complex():
        a = torch.view_as_real(a); b = torch.view_as_real(b)
    if not a.dtype.is_floating_point: return False
    d = int_view(a) != int_view(b)
    fa = a.to(torch.float32) if a.dtype.itemsize == 1 else a
    fb = b.to(torch.float32) if b.dtype.itemsize == 1 else b
    return bool((fa.isnan() & fb.isnan())[d].all())

def same(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(int_view(a), int_view(b))

def _flip(v):
    return v.flip(0) if v.is_complex() else v.view(INTV[v.element_size()]).flip(0).view(v.dtype)

def layouts_src(v):
    """(name, src tensor) with numel >= grain built from 1-D values v (len N)."""
    N = v.numel()
    out = [("contig", v)]
    wide = torch.zeros(2 * N, dtype=v.dtype); wide[::2] = v; out.append(("stride2", wide[::2]))
    r = 200; c = N // r; m = v[: r * c]
    out.append(("2d", m.reshape(r, c)))
    out.append(("2d_T", m.reshape(c, r).t()))
    out.append(("2d_T_contigT", m.reshape(r, c).t().contiguous().t()))
    big = torch.zeros(r, c + 7, dtype=v.dtype); big[:, :c] = m.reshape(r, c); out.append(("colslice", big[:, :c]))
    out.append(("expand", m.reshape(r, c)[:, :1].expand(r, c)))
    out.append(("expand_row", m.reshape(r, c)[:1].expand(r, c)))
    k = (N // 60) * 60; out.append(("3d_perm", v[:k].reshape(3, 4, k // 12).permute(2, 0, 1)))
    out.append(("size1", v.reshape(1, N, 1)))
    out.append(("rows_gt_grain", torch.cat([v, _flip(v)]).reshape(2, N)))
    out.append(("rows_gt_grain_T", torch.cat([v, _flip(v)]).reshape(N, 2).t()))
    out.append(("4d", v[: (N // 96) * 96].reshape(2, 3, 16, -1)))
    if v.is_complex():
        out.append(("conj", v.conj().conj_physical().conj()))  # conj bit set, values = v
        out.append(("neg_conj", (-v).conj()))
        out.append(("neg", torch._neg_view(v)))
    elif v.dtype.is_floating_point or (v.dtype.is_signed if hasattr(v.dtype, 'is_signed') else False):
        try:
            out.append(("neg", torch._neg_view(v)))
        except Exception:
            pass
    return out

def dst_layouts(shape, dt):
    yield "fresh", lambda: torch.zeros(shape, dtype=dt)
    if len(shape) >= 2:
        yield "dst_T", lambda: torch.zeros(tuple(reversed(shape)), dtype=dt).permute(*reversed(range(len(shape))))
    yield "dst_strided", lambda: torch.zeros((*shape[:-1], shape[-1] * 2), dtype=dt)[..., ::2]
    if dt.is_floating_point and dt.itemsize >= 2:
        yield "dst_neg_real", lambda: torch._neg_view(torch.zeros(shape, dtype=dt))
    if dt in (torch.float32, torch.float64):
        cd = torch.complex64 if dt == torch.float32 else torch.complex128
        yield "dst_conj_imag", lambda: torch.zeros(shape, dtype=cd).conj().imag
    if dt.is_complex:
        yield "dst_conj", lambda: torch.zeros(shape, dtype=dt).conj()
        yield "dst_neg", lambda: torch._neg_view(torch.zeros(shape, dtype=dt))

def run(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn(); e = None
        except Exception as ex:
            r = None; e = f"{type(ex).__name__}: {str(ex)[:80]}"
    return r, e, sorted({f"{x.category.__name__}: {str(x.message)[:70]}" for x in w})

_fe = len(float_edges64())
HEAD = {torch.float32: _fe, torch.float64: _fe, torch.complex64: 0, torch.complex128: 0, torch.bool: 100}
for _d in DT:
    if _d in (torch.float16, torch.bfloat16) or (_d.is_floating_point and _d.itemsize == 1):
        HEAD[_d] = 10**6  # all patterns
    elif not _d.is_floating_point and not _d.is_complex and _d != torch.bool:
        HEAD[_d] = 400
N = int(sys.argv[1]) if len(sys.argv) > 1 else 40000
only = sys.argv[2:] 
cases = 0; diffs = {}
for sdt in DT:
    if only and str(sdt) not in only: continue
    P = pool(sdt)
    for ddt in DT:
        mask = valid_mask(P, ddt)
        V = P[mask]
        if V.numel() == 0:
            continue
        # sanity: check_representable accepts V; rejected values are rejected
        check_representable(V, ddt)
        rej = P[~mask][:50]
        for x in rej:
            try:
                check_representable(x.reshape(1), ddt); print("VALIDITY RULE MISMATCH", sdt, ddt, x); 
            except (TypeError, ValueError):
                pass
        reps = -(-N // V.numel())
        g = torch.Generator().manual_seed(hash((str(sdt), str(ddt))) % 2**31)
        v = V.repeat(reps)[:N]
        v = v[torch.randperm(N, generator=g)]
        if V.numel() <= N:  # make sure every value appears
            v[: V.numel()] = V
        H = P[:HEADN.get(sdt, HEAD.get(sdt, 0))]; H = H[valid_mask(H, ddt)]
        vsets = [("mix", v)]
        if H.numel():
            vd = H.repeat(-(-N // H.numel()))[:N]
            vsets.append(("dense", vd[torch.randperm(N, generator=g)]))
        for (vname, vv), (lname, src) in ((a, b) for a in vsets for b in layouts_src(a[1])):
            lname = vname + ":" + lname
            for dname, mk in dst_layouts(tuple(src.shape), ddt):
                if src.is_neg() and ddt.is_floating_point is False and not ddt.is_complex and ddt != torch.bool and False:
                    pass
                want, ew, ww = run(lambda: mk().copy_(src))
                got, eg, wg = run(lambda: new._serial_copy(mk(), src))
                cases += 1
                key = (str(sdt), str(ddt))
                ok = (ew == eg) and (ew is not None or same(want, got)) and (ww == wg or (not [w for w in wg if w not in ww]))
                if not ok:
                    nd = None
                    if want is not None and got is not None and want.shape == got.shape:
                        nd = int((int_view(want) != int_view(got)).reshape(want.shape[0] if want.dim() else 1, -1).sum())
                    cls = "warn" if ew == eg and (ew is not None or same(want, got)) else ("exc" if ew != eg else ("nan" if nan_only(want, got) else "VALUE"))
                    pub = not ((lname.endswith(":neg") and sdt not in (torch.float32, torch.float64)) or dname == "dst_neg" or (dname == "dst_neg_real" and ddt not in (torch.float32, torch.float64)) or lname.endswith("neg_conj"))
                    diffs.setdefault(key, []).append((cls, "public" if pub else "private-neg", lname, dname, ew, eg, ww, wg, nd))
print("cases", cases)
summary = collections.Counter()
for k, v in diffs.items():
    for e in v: summary[(e[0], e[1])] += 1
print("summary (class, reachability) -> cases:", dict(summary))
for k, v in diffs.items():
    pubv = [e for e in v if e[1] == "public"]
    print(k, len(v), "public:", len(pubv), pubv[:4])
