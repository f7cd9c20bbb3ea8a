"""Run as_source_tensor on many inputs; print a digest per input. PYTHONPATH selects old/new."""
import sys, struct, warnings, enum, fractions, decimal, pickle
import numpy as np, torch
from h2d_impl import _host

def nanp(bits): return struct.unpack('<d', struct.pack('<Q', bits))[0]
class MyInt(int): pass
class MyFloat(float): pass
class E(enum.IntEnum): A = 1
class L(list): pass

def inputs():
    yield 'ints', [1, 2, 3]
    yield 'tuple ints', (1, 2, 3)
    yield 'one int', [0]
    yield 'int64 max', [2**63 - 1, -2**63]
    yield 'uint64', [2**63]
    yield 'uint64 max', [2**64 - 1, 0]
    yield 'over uint64', [2**64]
    yield 'neg over', [-2**63 - 1]
    yield 'neg+big', [-1, 2**63]
    yield 'huge', [2**1000]
    yield 'huge neg', [-(2**1000)]
    yield 'floats', [0.5, -0.0, float('inf'), float('-inf')]
    yield 'nan payload', [nanp(0x7ff8000000000001), nanp(0xfff0000000000001), nanp(0x7ff0000000dead00)]
    yield 'neg zero', [-0.0]
    yield 'big float', [1e300, 9.3e18]
    yield 'bools', [True, False]
    yield 'bool tuple', (True,)
    yield 'int subclass', [MyInt(3), MyInt(4)]
    yield 'intenum', [E.A, E.A]
    yield 'float subclass', [MyFloat(1.5)]
    yield 'list subclass', L([1, 2])
    yield 'mixed int bool', [1, True]
    yield 'mixed int float', [1, 2.5]
    yield 'complex', [1j, 2j]
    yield 'empty', []
    yield 'empty tuple', ()
    yield 'nested', [[1, 2], [3, 4]]
    yield 'nested empty', [[]]
    yield 'str', ['a']
    yield 'None', [None]
    yield 'np scalars', [np.int32(1), np.int32(2)]
    yield 'np float32 scalars', [np.float32(1.5)]
    yield 'fraction', [fractions.Fraction(1, 2)]
    yield 'decimal', [decimal.Decimal('1.5')]
    yield 'bool scalar', True
    yield 'int scalar', 5
    yield 'float scalar', 0.5
    yield 'big int scalar', 2**63
    yield 'bytes', [b'a']
    # numpy arrays
    for dt in [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.longlong, np.ulonglong,
               np.intp, np.uintp, np.float16, np.float32, np.float64, np.longdouble, np.complex64, np.complex128, np.clongdouble,
               '>i4', '>f8', '<i2', '>u8', '>c16', '|b1', 'M8[s]', 'm8[s]', 'U1', 'S1', 'O', 'V8']:
        try:
            a = np.zeros(4, dtype=dt) if np.dtype(dt).kind not in 'OUSV' else np.zeros(4, dtype=dt)
            if np.dtype(dt).kind in 'iufc':
                a[:] = np.arange(4).astype(dt) if np.dtype(dt).kind != 'c' else np.arange(4)
        except Exception as e:
            continue
        yield f'arr {np.dtype(dt)}', a
        yield f'arr0d {np.dtype(dt)}', a[0:1].reshape(())
        yield f'arr0 {np.dtype(dt)}', a[:0]
        b = a.copy(); b.flags.writeable = False
        yield f'ro {np.dtype(dt)}', b
        yield f'rev {np.dtype(dt)}', a[::-1]
        yield f'step {np.dtype(dt)}', a[::2]
        yield f'2d {np.dtype(dt)}', a.reshape(2, 2)
        yield f'view sub {np.dtype(dt)}', a[1:3]
    buf = bytearray(17)
    yield 'unaligned i8', np.frombuffer(buf, dtype=np.int64, offset=1, count=2)
    yield 'unaligned i8 ro', np.frombuffer(bytes(17), dtype=np.int64, offset=1, count=2)
    yield 'ascontig field', np.zeros(3, dtype=[('a', 'i4'), ('b', 'i4')])['a']
    yield 'size1 neg stride', np.flip(np.array([7]))
    yield 'size0 neg stride', np.zeros(0)[::-1]
    yield 'stride0 writeable', np.lib.stride_tricks.as_strided(np.zeros(1), shape=(3,), strides=(0,))
    yield 'stride0 size1', np.lib.stride_tricks.as_strided(np.zeros(1), shape=(1,), strides=(0,))
    yield 'broadcast', np.broadcast_to(np.arange(3), (3,))
    yield 'matrix', np.matrix([[1, 2]])
    yield 'masked', np.ma.array([1, 2, 3], mask=[0, 1, 0])
    yield 'memmap-like subclass', np.arange(3).view(type('Sub', (np.ndarray,), {}))
    yield 'metadata dtype', np.zeros(3, dtype=np.dtype('i8', metadata={'x': 1}))
    yield 'np scalar int64', np.int64(3)
    yield 'np scalar longlong', np.longlong(3)
    yield 'np scalar >i4', np.array(3, dtype='>i4')[()]
    yield 'np bool scalar', np.bool_(True)
    yield 'view as other dtype', np.arange(4, dtype=np.int64).view(np.float64)
    yield 'uint8 of int view', np.arange(2, dtype=np.int32).view(np.uint8)
    yield 'nonnative 1 byte', np.zeros(3, dtype='>u1')
    yield 'nonnative bool', np.zeros(3, dtype='>?')

def digest(fn):
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            src, own = fn()
        shares = None
        return ('ok', str(src.dtype), tuple(src.shape), tuple(src.stride()), src.contiguous().numpy().tobytes().hex() if src.numel() else '', str(own), len(w))
    except Exception as e:
        return ('exc', type(e).__name__)

res = {}
for default in (torch.float32, torch.float64):
    torch.set_default_dtype(default)
    for name, data in inputs():
        for infer in (True, False):
            res[(str(default), name, infer)] = digest(lambda: _host.as_source_tensor(data, infer_dtype=infer))
torch.set_default_dtype(torch.float32)
pickle.dump(res, open(sys.argv[1], 'wb'))
print(len(res), 'cases')
