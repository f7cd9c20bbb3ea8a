"""Generate r1bugs/: one copy of h2d_impl per bug with exactly one edit, plus its target module."""
import difflib, pathlib, shutil

REF = pathlib.Path(__file__).resolve().parents[3] / "h2d_impl"  # the kit checkout this file lies in
PKG = pathlib.Path(__file__).parent / "r1bugs"

# id, entry point ("main" | "cpu" | "buffer"), file, old, new, note
BUGS = [
("b01_byteswap_inplace", "main", "_host.py",
 '        arr = arr.astype(arr.dtype.newbyteorder("="))\n',
 '        arr = arr.byteswap(inplace=True).view(arr.dtype.newbyteorder("="))\n',
 "non-native byte order swapped in place (caller's array mutated) instead of into a copy"),
("b02_tuple_typed_leaf", "main", "_host.py",
 "    stack = [data] if isinstance(data, (list, tuple)) else []",
 "    stack = [data] if isinstance(data, list) else []",
 "typed-leaf scan starts only from a top-level list: tuples of numpy scalars get numpy's dtype inference"),
("b03_numpy_scalar_item", "main", "_host.py",
 "    if isinstance(data, np.generic):\n        source = _numpy_to_tensor(np.asarray(data))\n        return source, source.dtype\n",
 "    if isinstance(data, np.generic):\n        return as_source_tensor(data.item(), infer_dtype=infer_dtype)\n",
 "numpy scalars converted with .item() to Python numbers: their own dtype is lost"),
("b04_int64_float_edge", "main", "_host.py",
 "        bad = (wide < float(info.min)) | (wide > float(info.max)) | (wide >= float(info.max + 1))\n",
 "        bad = (wide < float(info.min)) | (wide > float(info.max))\n",
 "float->int range check without the max+1 term: 2**63 passes for int64 (float(max) rounds up) and wraps"),
("b05_unsigned_signed_shortcut", "main", "_host.py",
 "        if sinfo.min >= info.min and sinfo.max <= info.max:\n",
 "        if sinfo.min >= info.min or sinfo.max <= info.max:\n",
 "int->int 'fits' shortcut uses or instead of and: uint8->int8, int8->uint8, uint16->int16... skip the range check and wrap"),
("b06_stage_empty_like", "main", "h2d.py",
 '    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)\n',
 '    staging = torch.empty_like(source, dtype=dtype, device="cpu", pin_memory=pin)\n',
 "staging buffer made with empty_like (preserve_format): transposed / Fortran inputs give a non-contiguous result"),
("b07_out_shape_numel", "main", "h2d.py",
 "    if out is not None and tuple(out.shape) != tuple(source.shape):\n",
 "    if out is not None and out.numel() != source.numel():\n",
 "out shape check compares numel: size-1-dim mismatches ((3,) into (1,3)) broadcast silently"),
("b08_overlap_check_on_data", "main", "h2d.py",
 "and _shares_memory(source, out):\n",
 "and _shares_memory(data, out):\n",
 "overlap check looks at data instead of source: an ndarray viewing out's storage is not refused"),
("b09_tensor_via_numpy", "main", "_host.py",
 "        return data.detach(), data.dtype\n",
 "        return torch.from_numpy(data.detach().numpy()), data.dtype\n",
 "tensor inputs routed through .numpy(): bfloat16/float8 tensors raise TypeError, conj/neg views RuntimeError"),
("b10_bool_as_integer", "main", "_host.py",
 "if not dt.is_floating_point and not dt.is_complex and dt is not torch.bool\n",
 "if not dt.is_floating_point and not dt.is_complex\n",
 "torch.bool counted as an integer dtype: non-bool data with dtype=torch.bool hits torch.iinfo(bool) -> TypeError"),
("b11_cpu_out_not_returned", "cpu", "h2d.py",
 "    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)\n    if out is not None:\n        return out.copy_(source)\n",
 "    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)\n    if out is not None:\n        out.copy_(source)\n",
 "CPU variant: missing return after writing out, falls through and returns a fresh tensor instead of out"),
("b12_cpu_stage_source_dtype", "cpu", "h2d.py",
 "        return out.copy_(source)\n    return _stage(source, dtype, pin=False)\n",
 "        return out.copy_(source)\n    return _stage(source, source.dtype, pin=False)\n",
 "CPU variant stages in source.dtype, not the resolved dtype: dtype= ignored, float lists come back float64"),
("b13_cpu_skip_representable", "cpu", "h2d.py",
 "    check_representable(source, dtype)\n    return source, dtype, target\n",
 "    if not cpu_only:\n        check_representable(source, dtype)\n    return source, dtype, target\n",
 "representability check skipped for the CPU-platform route: out-of-range ints wrap, NaN->int, complex->real accepted"),
("b14_cpu_out_flat_reshape", "cpu", "h2d.py",
 "    if out is not None:\n        return out.copy_(source)\n    return _stage(source, dtype, pin=False)\n",
 "    if out is not None:\n        out.reshape(-1).copy_(source.reshape(-1))\n        return out\n    return _stage(source, dtype, pin=False)\n",
 "CPU variant copies into out.reshape(-1): for a non-contiguous out reshape is a copy, so nothing is written"),
("b15_buffer_pin_unconditional", "buffer", "buffer.py",
 'pin_memory=bool(pin_memory) and pin_memory_available())',
 'pin_memory=bool(pin_memory))',
 "pin_memory passed through without checking availability: pin_memory=True on a machine without pinning -> ValueError"),
("b16_buffer_capacity_numel", "buffer", "buffer.py",
 "        return self.cpu.shape[0]\n",
 "        return self.cpu.numel()\n",
 "capacity = numel instead of rows: multi-dim buffers accept n > rows (slice clamps silently)"),
("b17_buffer_bf16_numpy_typeerror", "buffer", "buffer.py",
 '        if with_numpy and dtype not in _NUMPY_DTYPES:\n            raise ValueError(\n                f"dtype={dtype} has no numpy equivalent, so .np cannot be made: "\n                "create the buffer with with_numpy=False"\n            )\n',
 "",
 "no up-front numpy-dtype check: bfloat16/float8 with_numpy=True raise torch's TypeError from .numpy(), not ValueError"),
("b18_buffer_copy_to_cpu_zero_truthiness", "buffer", "buffer.py",
 "        n = self._rows(n)\n        if n is None:\n            return self.cpu.copy_(self.gpu, non_blocking=True)\n",
 "        n = self._rows(n)\n        if not n:\n            return self.cpu.copy_(self.gpu, non_blocking=True)\n",
 "copy_to_cpu tests `if not n` instead of `n is None`: copy_to_cpu(0) copies the whole buffer"),
]

TEMPLATE = '''"""{bid}: {note}

Entry point: {entry}. One edit of h2d_impl/{file} (see _{short}/, diff in BUGS.md);
everything else in the target is the reference's own.
"""
import h2d_impl
from contracts import Target

from . import _{short} as bug


def target():
    return Target(
        name="r1:{bid}",
        async_tensor_h2d={main},
        buffer_cls={buf},
        cpu_variant={cpu},
        capabilities=frozenset({{"out", "buffer", "cpu-variant", "cuda"}}),
        pin_memory_available=h2d_impl.pin_memory_available,
        version="r1",
        notes={note!r},
    )
'''


def main():
    if PKG.exists():
        shutil.rmtree(PKG)
    PKG.mkdir()
    (PKG / "__init__.py").write_text('"""r1bugs: 18 one-change bugs of h2d_impl (see ../BUGS.md)."""\n')
    diffs = []
    for bid, entry, fname, old, new, note in BUGS:
        short = bid.split("_")[0]
        dst = PKG / f"_{short}"
        shutil.copytree(REF, dst, ignore=shutil.ignore_patterns("__pycache__"))
        text = (dst / fname).read_text()
        assert text.count(old) == 1, (bid, text.count(old))
        newtext = text.replace(old, new)
        (dst / fname).write_text(newtext)
        diff = "".join(difflib.unified_diff(text.splitlines(True), newtext.splitlines(True), f"h2d_impl/{fname}", f"r1bugs/_{short}/{fname}", n=1))
        diffs.append((bid, diff))
        ref = "h2d_impl"
        (PKG / f"{bid}.py").write_text(TEMPLATE.format(
            bid=bid, note=note, entry=entry, file=fname, short=short,
            main="bug.async_tensor_h2d" if entry == "main" else f"{ref}.async_tensor_h2d",
            cpu="bug.async_tensor_h2d_cpu" if entry == "cpu" else f"{ref}.async_tensor_h2d_cpu",
            buf="bug.CpuGpuBuffer" if entry == "buffer" else f"{ref}.CpuGpuBuffer",
        ))
    (PKG.parent / "DIFFS.md").write_text("# One-edit diffs\n\n" + "".join(f"## {b}\n\n```diff\n{d}```\n\n" for b, d in diffs))


if __name__ == "__main__":
    main()
