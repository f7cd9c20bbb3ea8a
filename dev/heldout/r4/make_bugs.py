"""Build r4bugs/: one copy of /work/main/h2d_impl per bug, with exactly one textual edit."""
from __future__ import annotations

import shutil
from pathlib import Path

REF = Path("/work/main/h2d_impl")
HERE = Path(__file__).resolve().parent
PKG = HERE / "r4bugs"

# (id, shortname, entry point, file, old, new)
BUGS: list[tuple[str, str, str, str, str, str]] = [
    # ---------------- async_tensor_h2d (main) ----------------
    ("b01", "dtype_mismatch_valueerror", "main", "h2d.py",
     'raise TypeError(f"dtype={dtype} disagrees with out.dtype',
     'raise ValueError(f"dtype={dtype} disagrees with out.dtype'),
    ("b02", "shape_check_by_numel", "main", "h2d.py",
     "if out is not None and tuple(out.shape) != tuple(source.shape):",
     "if out is not None and out.numel() != source.numel():"),
    ("b03", "overlap_check_strict", "main", "h2d.py",
     "        if stride <= reach:\n            return True",
     "        if stride < reach:\n            return True"),
    ("b04", "byte_span_off_by_one", "main", "h2d.py",
     "    return lo, hi + t.element_size()",
     "    return lo, hi"),
    ("b05", "int64_upper_bound_dropped", "main", "_host.py",
     "bad = (wide < float(info.min)) | (wide > float(info.max)) | (wide >= float(info.max + 1))",
     "bad = (wide < float(info.min)) | (wide > float(info.max))"),
    ("b06", "int_narrowing_min_dropped", "main", "_host.py",
     "if sinfo.min >= info.min and sinfo.max <= info.max:",
     "if sinfo.max <= info.max:"),
    ("b07", "float_lower_bound_inclusive", "main", "_host.py",
     "bad = (wide < float(info.min))",
     "bad = (wide <= float(info.min))"),
    ("b08", "ascontiguousarray_negative_stride", "main", "_host.py",
     'arr = np.array(arr, order="C", copy=True)',
     "arr = np.ascontiguousarray(arr)"),
    ("b09", "byteorder_view_not_astype", "main", "_host.py",
     'arr = arr.astype(arr.dtype.newbyteorder("="))',
     'arr = arr.view(arr.dtype.newbyteorder("="))'),
    ("b10", "byteswap_in_place", "main", "_host.py",
     'arr = arr.astype(arr.dtype.newbyteorder("="))',
     'arr = arr.byteswap(inplace=True).view(arr.dtype.newbyteorder("="))'),
    ("b11", "tensor_not_detached", "main", "_host.py",
     "return data.detach(), data.dtype",
     "return data, data.dtype"),
    ("b12", "float_default_hardcoded", "main", "_host.py",
     "own = torch.get_default_dtype()",
     "own = torch.float32"),
    # ---------------- async_tensor_h2d_cpu (cpu) ----------------
    ("b13", "cpu_result_aliases_data", "cpu", "h2d.py",
     "        return out.copy_(source)\n    return _stage(source, dtype, pin=False)",
     "        return out.copy_(source)\n    return source.to(dtype)"),
    ("b14", "cpu_out_not_returned", "cpu", "h2d.py",
     "        return out.copy_(source)\n    return _stage(source, dtype, pin=False)",
     "        out.copy_(source)\n    return _stage(source, dtype, pin=False)"),
    ("b15", "cpu_dtype_shadowed", "cpu", "h2d.py",
     "source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)",
     "source, _, _ = _prepare(data, device, dtype, out, cpu_only=True)"),
    ("b16", "cpu_copy_keeps_strides", "cpu", "h2d.py",
     "\n    return _stage(source, dtype, pin=False)",
     "\n    return source.to(dtype, copy=True)"),
    # ---------------- CpuGpuBuffer (buffer) ----------------
    ("b17", "rows_capacity_exclusive", "buffer", "buffer.py",
     "if not 0 <= n <= self.capacity:",
     "if not 0 <= n < self.capacity:"),
    ("b18", "copy_to_gpu_all_rows", "buffer", "buffer.py",
     "return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)",
     "return self.gpu.copy_(self.cpu, non_blocking=True)[:n]"),
    ("b19", "copy_to_cpu_direction_swapped", "buffer", "buffer.py",
     "return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)",
     "return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)"),
    ("b20", "np_is_a_copy", "buffer", "buffer.py",
     "self._np = self.cpu.numpy() if with_numpy else None",
     "self._np = self.cpu.numpy().copy() if with_numpy else None"),
    ("b21", "pin_without_availability", "buffer", "buffer.py",
     "pin_memory=bool(pin_memory) and pin_memory_available())",
     "pin_memory=bool(pin_memory))"),
    ("b22", "rows_negative_allowed", "buffer", "buffer.py",
     "if not 0 <= n <= self.capacity:",
     "if not n <= self.capacity:"),
]

TEMPLATE = '''from h2d_contracts import h2d_impl
from h2d_contracts.contracts import Target
from . import _{bid} as _bug


def target() -> Target:
    return Target(
        name="r4:{bid}_{short}",
        async_tensor_h2d={main},
        buffer_cls={buf},
        cpu_variant={cpu},
        capabilities=frozenset({{"out", "buffer", "cpu-variant", "cuda"}}),
        pin_memory_available=h2d_impl.pin_memory_available,
        version=h2d_impl.__version__,
        notes={notes!r},
    )
'''


def build() -> None:
    if PKG.exists():
        shutil.rmtree(PKG)
    PKG.mkdir()
    (PKG / "__init__.py").write_text("")
    ids = [b[0] for b in BUGS]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for bid, short, entry, fname, old, new in BUGS:
        assert entry in ("main", "cpu", "buffer"), entry
        assert old != new
        dst = PKG / f"_{bid}"
        dst.mkdir()
        for src in REF.glob("*.py"):
            shutil.copy(src, dst / src.name)
        (dst / "py.typed").touch()
        path = dst / fname
        text = path.read_text()
        count = text.count(old)
        assert count == 1, f"{bid}: old string occurs {count} times in {fname}"
        path.write_text(text.replace(old, new))
        (PKG / f"{bid}_{short}.py").write_text(TEMPLATE.format(
            bid=bid,
            short=short,
            main="_bug.async_tensor_h2d" if entry == "main" else "h2d_impl.async_tensor_h2d",
            buf="_bug.CpuGpuBuffer" if entry == "buffer" else "h2d_impl.CpuGpuBuffer",
            cpu="_bug.async_tensor_h2d_cpu" if entry == "cpu" else "h2d_impl.async_tensor_h2d_cpu",
            notes=f"one edit in {fname}: {old!r} -> {new!r}",
        ))
    print(f"built {len(BUGS)} bugs in {PKG}")


if __name__ == "__main__":
    build()
