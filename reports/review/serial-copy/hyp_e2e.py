"""Hypothesis: async_tensor_h2d(..., device="cpu"[, out=]) and async_tensor_h2d_cpu, old (HEAD~1) vs new (HEAD).
Compares bytes of the result/out, exception type+message, warnings, `result is out`. Classifies differences."""
import sys, collections, math
NEX = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
sys.argv = [sys.argv[0], "40000", "__none__"]
exec(open("/tmp/review_serial/table.py").read())
from hypothesis import given, settings, strategies as st, HealthCheck, seed
POOLS = {d: pool(d) for d in DT}
HEADS = {d: POOLS[d][:HEADN.get(d, HEAD.get(d, 0))] if HEADN.get(d, HEAD.get(d, 0)) else POOLS[d] for d in DT}
stats = collections.Counter(); diffs = collections.defaultdict(list)

def nan_only(a, b):
    """True if every differing element is NaN in both results (bit-pattern-only difference)."""
    a = a.resolve_conj().resolve_neg(); b = b.resolve_conj().resolve_neg()
    if a.is_complex():
        a = torch.view_as_real(a); b = torch.view_as_real(b)
    if not a.dtype.is_floating_point: return False
    ia, ib = int_view(a), int_view(b)
    d = ia != ib
    fa = a.to(torch.float32) if a.dtype.itemsize == 1 else a
    fb = b.to(torch.float32) if b.dtype.itemsize == 1 else b
    return bool((fa.isnan() & fb.isnan())[d].all())

@st.composite
def case(draw):
    sdt = draw(st.sampled_from(DT)); ddt = draw(st.sampled_from(DT))
    P = draw(st.sampled_from([POOLS[sdt], HEADS[sdt]]))
    V = P[valid_mask(P, ddt)]
    if V.numel() == 0:
        V = P[:1]  # invalid on purpose: exceptions are compared too
    ndim = draw(st.integers(1, 4))
    target = draw(st.sampled_from([32767, 32768, 32769, 40000, 65536, 100000, 131072, 16384]))
    dims = [1] * ndim
    # split target roughly across dims
    rest = target
    for i in range(ndim - 1):
        f = draw(st.sampled_from([1, 2, 3, 5, 7, 16, 60, 200]))
        dims[i] = f; rest = max(1, rest // f)
    dims[-1] = rest
    dims = draw(st.permutations(dims))
    n = math.prod(dims)
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**31)))
    idx = torch.randint(0, V.numel(), (n,), generator=g)
    flat = V[idx]
    kind = draw(st.sampled_from(["tensor", "numpy", "tensor_negview", "tensor_conj", "list"] if n <= 70000 else ["tensor", "numpy", "tensor_negview", "tensor_conj"]))
    perm = draw(st.permutations(range(ndim)))
    step = draw(st.sampled_from([1, 1, 2]))
    expand_dim = draw(st.sampled_from([None, None, 0]))
    out_kind = draw(st.sampled_from(["none", "none", "contig", "perm", "sliced", "conj_imag", "conj"]))
    out_perm = draw(st.permutations(range(ndim)))
    api = draw(st.sampled_from(["h2d", "h2d_cpu"]))
    return sdt, ddt, dims, flat, kind, perm, step, expand_dim, out_kind, out_perm, api

def build_src(sdt, dims, flat, kind, perm, step, expand_dim):
    base_shape = [dims[p] for p in perm]
    t = flat.reshape(base_shape)
    # place into a wider buffer along last dim with step
    if step > 1:
        w = torch.zeros((*base_shape[:-1], base_shape[-1] * step), dtype=sdt)
        w[..., ::step] = t
        t = w[..., ::step]
    inv = [perm.index(i) for i in range(len(perm))]
    t = t.permute(*inv)
    if expand_dim is not None and t.shape[0] > 1:
        t = t[:1].expand(t.shape)
    if kind == "numpy":
        if sdt not in new._NUMPY_SAME:
            return t  # no numpy dtype: use the tensor
        a = t.numpy()
        return a[::-1] if a.ndim and a.shape[0] > 1 and step == 1 else a
    if kind == "tensor_negview" and sdt in (torch.float32, torch.float64):
        cd = torch.complex64 if sdt == torch.float32 else torch.complex128
        z = torch.zeros(t.shape, dtype=cd); z.imag.copy_(-t)
        return z.conj().imag   # neg-bit view whose values equal t
    if kind == "tensor_conj" and sdt.is_complex:
        return t.conj().conj_physical().conj() if False else t.conj_physical().conj()
    if kind == "list" and sdt in (torch.bool, torch.int64, torch.float64, torch.complex128):
        return t.tolist()
    return t

def build_out(ddt, shape, out_kind, out_perm):
    if out_kind == "none": return None
    if out_kind == "contig": return torch.full(shape, 0, dtype=ddt) if ddt.itemsize > 1 or not ddt.is_floating_point else torch.zeros(shape, dtype=torch.uint8).view(ddt)
    z = lambda s: torch.zeros(s, dtype=torch.uint8).view(ddt) if (ddt.is_floating_point and ddt.itemsize == 1) else torch.zeros(s, dtype=ddt)
    if out_kind == "perm":
        ps = [shape[p] for p in out_perm]; inv = [out_perm.index(i) for i in range(len(out_perm))]
        return z(ps).permute(*inv)
    if out_kind == "sliced":
        return z((*shape[:-1], shape[-1] * 2))[..., 1::2]
    if out_kind == "conj_imag" and ddt in (torch.float32, torch.float64):
        cd = torch.complex64 if ddt == torch.float32 else torch.complex128
        return torch.zeros(shape, dtype=cd).conj().imag
    if out_kind == "conj" and ddt.is_complex:
        return z(shape).conj()
    return z(shape)

def call(m, api, data, ddt, out):
    fn = m.async_tensor_h2d if api == "h2d" else m.async_tensor_h2d_cpu
    def f():
        if out is None: return fn(data, device="cpu", dtype=ddt)
        return fn(data, out=out)
    return run(f)

@settings(max_examples=NEX, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@seed(20261201)
@given(case())
def prop(c):
    sdt, ddt, dims, flat, kind, perm, step, expand_dim, out_kind, out_perm, api = c
    data = build_src(sdt, dims, flat, kind, perm, step, expand_dim)
    shape = tuple(dims)
    o1 = build_out(ddt, shape, out_kind, out_perm); o2 = build_out(ddt, shape, out_kind, out_perm)
    r1, e1, w1 = call(old, api, data, ddt, o1)
    r2, e2, w2 = call(new, api, data, ddt, o2)
    stats["cases"] += 1
    dbytes = math.prod(shape) * ddt.itemsize
    route = "numpy" if ((sdt == ddt and sdt in new._NUMPY_SAME) or (sdt, ddt) in new._NUMPY_CASTS) else "pieces"
    inrange = math.prod(shape) >= 32768 and dbytes <= (256 << 10)
    stats["in_new_route" if inrange else "copy_route"] += 1
    stats["raised" if e1 else "ok"] += 1
    key = None
    if e1 != e2: key = "exception"
    elif e1 is None:
        if (r1 is o1) != (r2 is o2): key = "identity"
        elif not same(r1, r2):
            key = "NaN bits only" if nan_only(r1, r2) else "VALUES"
        elif sorted(w1) != sorted(w2): key = "warnings"
        elif o1 is not None and o1._version != o2._version and (o1._version == 0) != (o2._version == 0): key = "version"
    if key:
        d = f"{str(sdt)[6:]}->{str(ddt)[6:]} shape={shape} kind={kind} perm={perm} step={step} exp={expand_dim} out={out_kind} api={api} route={route if inrange else 'copy_'} e={e1}|{e2} w={w1}|{w2}"
        diffs[key].append(d)

prop()
print(dict(stats))
for k, v in diffs.items():
    print(f"== {k}: {len(v)}")
    for d in v[:12]: print("   ", d)
