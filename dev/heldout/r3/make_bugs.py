"""(Re)create the package r3bugs/: one copy of /work/main/h2d_impl per bug with exactly one textual edit.

Run: PYTHONPATH=/work/main /work/main/.venv/bin/python /work/power/r3/make_bugs.py
"""
from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
PKG = HERE / "r3bugs"
REF = Path(__file__).resolve().parents[3] / "h2d_impl"  # the kit checkout this file lies in

# (id, shortname, entry point, file, old, new)
#   entry point: "main" (async_tensor_h2d), "cpu" (async_tensor_h2d_cpu), "buffer" (CpuGpuBuffer)
BUGS = [
    # ---------------- main function (async_tensor_h2d) ----------------
    ("b01", "size1_negstride_ascontig", "main", "_host.py",
     'arr = np.array(arr, order="C", copy=True)',
     'arr = np.ascontiguousarray(arr)'),
    ("b02", "byteorder_view_not_swap", "main", "_host.py",
     'arr = arr.astype(arr.dtype.newbyteorder("="))',
     'arr = arr.view(arr.dtype.newbyteorder("="))'),
    ("b03", "byteswap_callers_array", "main", "_host.py",
     'arr = arr.astype(arr.dtype.newbyteorder("="))',
     'arr = arr.byteswap(inplace=True).view(arr.dtype.newbyteorder("="))'),
    ("b04", "float_list_hardcoded_f32", "main", "_host.py",
     'own = torch.get_default_dtype()',
     'own = torch.float32'),
    ("b05", "numpy_scalar_leaf_ignored", "main", "_host.py",
     'elif isinstance(item, (np.generic, np.ndarray, torch.Tensor)):',
     'elif isinstance(item, (np.ndarray, torch.Tensor)):'),
    ("b06", "int64_max_plus1_accepted", "main", "_host.py",
     ' | (wide >= float(info.max + 1))',
     ''),
    ("b07", "signed_to_unsigned_no_min", "main", "_host.py",
     'if sinfo.min >= info.min and sinfo.max <= info.max:',
     'if sinfo.max <= info.max:'),
    ("b08", "out_shape_by_numel", "main", "h2d.py",
     'if out is not None and tuple(out.shape) != tuple(source.shape):',
     'if out is not None and out.numel() != source.numel():'),
    ("b09", "byte_span_drops_last_elem", "main", "h2d.py",
     'return lo, hi + t.element_size()',
     'return lo, hi'),
    ("b10", "cpu0_rejected", "main", "h2d.py",
     'if dev.index not in (None, 0):',
     'if dev.index is not None:'),
    ("b11", "stage_empty_like_strides", "main", "h2d.py",
     'staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)\n    staging.copy_(source)\n    return staging',
     'staging = torch.empty_like(source, dtype=dtype, device="cpu", pin_memory=pin)\n    staging.copy_(source)\n    return staging'),
    ("b12", "tensor_not_detached", "main", "_host.py",
     'return data.detach(), data.dtype',
     'return data, data.dtype'),
    ("b13", "numpy_scalar_atleast_1d", "main", "_host.py",
     'source = _numpy_to_tensor(np.asarray(data))',
     'source = _numpy_to_tensor(np.atleast_1d(data))'),
    # ---------------- CPU-platform variant (async_tensor_h2d_cpu) ----------------
    ("b14", "cpu_variant_aliases", "cpu", "h2d.py",
     'out.copy_(source)\n    return _stage(source, dtype, pin=False)',
     'out.copy_(source)\n    return source.to(dtype)'),
    ("b15", "cpu_variant_strided_out_skipped", "cpu", "h2d.py",
     '    if out is not None:\n        return out.copy_(source)\n    return _stage(source, dtype, pin=False)',
     '    if out is not None and out.is_contiguous():\n        return out.copy_(source)\n    return _stage(source, dtype, pin=False)'),
    ("b16", "cpu_variant_resolved_dtype_dropped", "cpu", "h2d.py",
     'source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)',
     'source, _, _ = _prepare(data, device, dtype, out, cpu_only=True)'),
    ("b17", "cpu_variant_source_dtype", "cpu", "h2d.py",
     'out.copy_(source)\n    return _stage(source, dtype, pin=False)',
     'out.copy_(source)\n    return _stage(source, source.dtype, pin=False)'),
    # ---------------- CpuGpuBuffer ----------------
    ("b18", "buffer_n_eq_capacity_rejected", "buffer", "buffer.py",
     'if not 0 <= n <= self.capacity:',
     'if not 0 <= n < self.capacity:'),
    ("b19", "buffer_copy_to_cpu_none_reversed", "buffer", "buffer.py",
     'return self.cpu.copy_(self.gpu, non_blocking=True)',
     'return self.gpu.copy_(self.cpu, non_blocking=True)'),
    ("b20", "buffer_np_is_copy", "buffer", "buffer.py",
     'self._np = self.cpu.numpy() if with_numpy else None',
     'self._np = self.cpu.numpy().copy() if with_numpy else None'),
    ("b21", "buffer_capacity_numel", "buffer", "buffer.py",
     'return self.cpu.shape[0]',
     'return self.cpu.numel()'),
    ("b22", "buffer_pin_no_fallback", "buffer", "buffer.py",
     'pin_memory=bool(pin_memory) and pin_memory_available()',
     'pin_memory=bool(pin_memory)'),
]

TEMPLATE = '''import h2d_impl
from contracts import Target
from . import _{bid} as _bug


def target() -> Target:
    return Target(
        name="r3:{bid}_{short}",
        async_tensor_h2d={main},
        buffer_cls={buf},
        cpu_variant={cpu},
        capabilities=frozenset({{"out", "buffer", "cpu-variant", "cuda"}}),
        pin_memory_available=h2d_impl.pin_memory_available,
        version=h2d_impl.__version__,
        notes={notes!r},
    )
'''


def main() -> None:
    if PKG.exists():
        shutil.rmtree(PKG)
    PKG.mkdir()
    (PKG / "__init__.py").write_text('"""Round-3 independent bugs in h2d_impl: one edit each (see ../BUGS.md)."""\n')
    for bid, short, entry, fname, old, new in BUGS:
        dst = PKG / f"_{bid}"
        shutil.copytree(REF, dst, ignore=shutil.ignore_patterns("__pycache__"))
        path = dst / fname
        text = path.read_text()
        count = text.count(old)
        assert count == 1, f"{bid}: old string occurs {count} times in {fname}"
        path.write_text(text.replace(old, new, 1))
        notes = f"one edit in {fname}: {old!r} -> {new!r}"
        (PKG / f"{bid}_{short}.py").write_text(TEMPLATE.format(
            bid=bid, short=short, notes=notes,
            main="_bug.async_tensor_h2d" if entry == "main" else "h2d_impl.async_tensor_h2d",
            buf="_bug.CpuGpuBuffer" if entry == "buffer" else "h2d_impl.CpuGpuBuffer",
            cpu="_bug.async_tensor_h2d_cpu" if entry == "cpu" else "h2d_impl.async_tensor_h2d_cpu",
        ))
    # every copy and target module must import
    import importlib
    import sys
    sys.path.insert(0, str(HERE))
    for bid, short, *_ in BUGS:
        mod = importlib.import_module(f"r3bugs.{bid}_{short}")
        t = mod.target()
        assert t.name == f"r3:{bid}_{short}", t.name
        copy = importlib.import_module(f"r3bugs._{bid}")
        assert copy.async_tensor_h2d.__module__ == f"r3bugs._{bid}.h2d", copy.async_tensor_h2d.__module__
    print(f"created {len(BUGS)} bugs in {PKG}")


if __name__ == "__main__":
    main()
