"""b15 refusal_logged_root (CPU) -- ``_host.check_representable``.

What changed: before refusing an out-of-range value, the check logs it with the
module-level helper::

    logging.warning("h2d: refusing %s into %s: %s", source.dtype, dtype, _at(idx))
    raise ValueError(f"{_at(idx)} = ... is out of range for {dtype} ...")

``logging.warning`` (unlike ``logging.getLogger(__name__).warning``) calls
``logging.basicConfig()`` when the root logger has no handler: the first refused call
installs a ``StreamHandler`` on the root logger of the caller's process and prints there.
Realistic: "operators should see refused batches", written with the wrong logging call,
a classic in library code.

Promise broken (README, contract ``side-effects``): "every call, valid or failing, leaves
the process as it found it: ... every logger's level, handlers, filters"; reference.md:
"Process-wide state: a call changes none".

Smallest input (in a process whose root logger has no handler):
``async_tensor_h2d([300], device="cpu", dtype=torch.uint8)``: both raise ``ValueError``;
reference leaves ``logging.getLogger().handlers == []``; bug leaves one ``StreamHandler``
there (and writes "WARNING:root:h2d: refusing ..." to stderr).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def check_representable(source, dtype):
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:  # noqa: F821
        if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:  # noqa: F821
            raise TypeError(
                f"data is complex ({source.dtype}) but dtype={dtype} is not: the imaginary part would be lost"
            )
        return
    if source.is_complex():
        raise TypeError(f"data is complex ({source.dtype}) but dtype={dtype} is an integer dtype")
    if source.numel() == 0:
        return
    info = torch.iinfo(dtype)  # noqa: F821
    if source.is_floating_point():
        if source.dtype in _NUMPY_FLOATS and not source.is_neg():  # noqa: F821
            wide_np = source.numpy().astype(np.float64)  # noqa: F821
        else:
            wide_np = source.to(torch.float64).numpy()  # noqa: F821
        wide = torch.from_numpy(wide_np)  # noqa: F821
        bad_np = ~np.isfinite(wide_np)  # noqa: F821
        if bad_np.any():
            idx = _first_index(torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True)))  # noqa: F821
            raise ValueError(f"{_at(idx)} = {wide[idx].item()} cannot be converted to integer dtype {dtype}")  # noqa: F821
        whole = np.trunc(wide_np)  # noqa: F821
        bad_np = (whole < float(info.min)) | (whole > float(info.max)) | (whole >= float(info.max + 1))
    else:
        sinfo = torch.iinfo(source.dtype)  # noqa: F821
        if sinfo.min >= info.min and sinfo.max <= info.max:
            return
        values = source.numpy()
        bad_np = (values < info.min) | (values > info.max)
        wide = None
    if np.any(bad_np):  # noqa: F821
        bad = torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True))  # noqa: F821
        if wide is None:
            wide = (
                source.to(torch.int64)  # noqa: F821
                if source.dtype != getattr(torch, "uint64", None)  # noqa: F821
                else torch.from_numpy(values.astype(np.float64))  # noqa: F821
            )
        idx = _first_index(bad)  # noqa: F821
        import logging

        logging.warning("h2d: refusing %s into %s: %s", source.dtype, dtype, _at(idx))  # noqa: F821
        raise ValueError(f"{_at(idx)} = {wide[idx].item()} is out of range for {dtype} [{info.min}, {info.max}]")  # noqa: F821


def target() -> Target:
    f = fork("b15", _host={"check_representable": check_representable})
    return make_target(
        "b15_refusal_logged_root",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b15"),
    )
