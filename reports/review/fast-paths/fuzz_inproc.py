"""In-process: new fast paths vs the same module with fast paths disabled (== old general route; only additions in the diff)."""
import random, struct, warnings, sys
import numpy as np, torch
from h2d_impl import _host
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)

def run(data, infer, fast):
    saved = (_host._flat_list, _host._VIEWABLE_CHARS)
    if not fast:
        _host._flat_list = lambda d: None; _host._VIEWABLE_CHARS = frozenset()
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            s, own = _host.as_source_tensor(data, infer_dtype=infer)
        return ('ok', s.dtype, tuple(s.shape), s.stride(), s.contiguous().numpy().tobytes(), own, len(w),
                isinstance(data, np.ndarray) and s.data_ptr() == data.ctypes.data)
    except Exception as e:
        return ('exc', type(e).__name__)
    finally:
        _host._flat_list, _host._VIEWABLE_CHARS = saved

def rint():
    r = rng.random()
    if r < .6: return rng.randint(-100, 100)
    if r < .8: return rng.choice([2**63-1, -2**63, 2**63, 2**64-1, 2**64, -2**63-1, 2**31, -2**31-1, 2**100])
    return rng.randint(-2**64, 2**64)
def rfloat():
    r = rng.random()
    if r < .5: return rng.uniform(-1e3, 1e3)
    if r < .7: return rng.choice([0.0, -0.0, float('inf'), -float('inf'), float('nan'), 1e308, 5e-324, 9.223372036854775808e18, -9.3e18])
    return struct.unpack('<d', struct.pack('<Q', rng.getrandbits(64)))[0]
def rlist():
    k = rng.choice(['int', 'float', 'bool', 'mix'])
    n = rng.choice([0, 1, 2, 3, 5, 16, 40])
    if k == 'int': xs = [rint() for _ in range(n)]
    elif k == 'float': xs = [rfloat() for _ in range(n)]
    elif k == 'bool': xs = [rng.random() < .5 for _ in range(n)]
    else: xs = [rng.choice([rint, rfloat, lambda: rng.random() < .5])() for _ in range(n)]
    return xs if rng.random() < .5 else tuple(xs)
DT = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.longlong, np.ulonglong,
      np.float16, np.float32, np.float64, np.complex64, np.complex128, '>i4', '>f8', '>u2', '>c8', '<i8', np.longdouble]
def rarr():
    dt = np.dtype(rng.choice(DT))
    shape = rng.choice([(), (0,), (1,), (5,), (2, 3), (0, 2), (1, 1)])
    raw = np.frombuffer(bytes(rng.getrandbits(8) for _ in range(max(1, int(np.prod(shape)) * 2 + 1) * dt.itemsize)), dtype=np.uint8)
    base = np.empty(int(np.prod(shape)) * 2 + 1, dtype=dt)
    base.view(np.uint8)[:] = raw[:base.nbytes]
    if dt.kind == 'b': base = base.view(np.uint8).astype(bool).astype(dt) if dt.itemsize == 1 else base
    how = rng.choice(['as is', 'reversed', 'strided', 'read-only', 'offset', 'view-other'])
    a = base[:int(np.prod(shape))].reshape(shape)
    if how == 'reversed' and a.ndim: a = a[::-1]
    elif how == 'strided': a = base[::2][:int(np.prod(shape))].reshape(shape)
    elif how == 'read-only': a = a.copy(); a.flags.writeable = False
    elif how == 'offset': a = base[1:1 + int(np.prod(shape))].reshape(shape)
    return a

torch.set_default_dtype(torch.float32)
diffs = 0
for i in range(int(sys.argv[2]) if len(sys.argv) > 2 else 4000):
    if i % 2 == 0: torch.set_default_dtype(rng.choice([torch.float32, torch.float64]))
    data = rlist() if rng.random() < .5 else rarr()
    for infer in (True, False):
        a, b = run(data, infer, True), run(data, infer, False)
        if a != b:
            diffs += 1
            if diffs < 10: print('DIFF', repr(data)[:200], infer, '\n fast', a[:4], a[5:], '\n gen ', b[:4], b[5:])
print('diffs', diffs)
