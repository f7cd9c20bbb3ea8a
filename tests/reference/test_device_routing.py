"""The reference's device resolution and routing, on a CPU-only machine with CUDA's device count faked.

``_resolve_device`` (explicit indices, invisible ones refused, bare ``cuda`` following the
current device) and the routing of host and CUDA targets between the host path and
``_to_device``, with ``torch.cuda.device_count`` patched to two visible GPUs: the device
half of the reference runs nowhere else in the CPU suite (test_trace.py has its staging).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import h2d as R

CPU = torch.device("cpu")


# --------------------------------------------------------------------------- device resolution


@pytest.fixture(autouse=True)
def _fresh_cuda_count():
    """R._cuda_device_count reads CUDA's visibility once per process (and R._RESOLVED keeps resolved
    spellings): the tests below pretend other visibilities with monkeypatch, so forget both around each test."""
    R._cuda_device_count.cache_clear()
    R._RESOLVED.clear()
    yield
    R._cuda_device_count.cache_clear()
    R._RESOLVED.clear()


@pytest.fixture
def two_visible_gpus(monkeypatch):
    """Pretend two CUDA devices are visible, device 1 current (``_resolve_device`` only builds torch.device objects)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    made_current: list = []

    class _Current(contextlib.AbstractContextManager):
        """Records which device a call made current (torch.cuda.device needs a CUDA build)."""

        def __init__(self, device):
            made_current.append(torch.device(device))

        def __exit__(self, *exc):
            return None

    monkeypatch.setattr(torch.cuda, "device", _Current)
    return made_current


@pytest.mark.parametrize(
    "device, expected",
    [
        ("cuda", torch.device("cuda", 1)),
        (torch.device("cuda"), torch.device("cuda", 1)),
        ("cuda:0", torch.device("cuda", 0)),
        ("cuda:1", torch.device("cuda", 1)),
        (0, torch.device("cuda", 0)),
        (np.int64(1), torch.device("cuda", 1)),
        ("cpu", CPU),
    ],
    ids=str,
)
def test_resolve_device_gives_an_explicit_index(two_visible_gpus, device, expected):
    """A bare "cuda" means the current device; an index is kept; the result always carries it."""
    got = R._resolve_device(device)
    assert got == expected and got.index == expected.index, (device, got)


@pytest.mark.parametrize("device", ["cuda:2", 2, torch.device("cuda", 5)], ids=str)
def test_resolve_device_rejects_invisible_indices(two_visible_gpus, device):
    with pytest.raises(ValueError, match=r"^device=cuda:\d but only 2 CUDA device\(s\) are visible$"):
        R._resolve_device(device)


def test_resolve_device_bare_cuda_follows_the_current_device(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    assert R._resolve_device("cuda") == torch.device("cuda", 0)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 3)  # a current device that is not visible
    with pytest.raises(ValueError, match=r"^device=cuda but only 1 CUDA device\(s\) are visible$"):
        R._resolve_device("cuda")


# --------------------------------------------------------------------------- routing by target


def test_routing_host_and_cuda_targets(two_visible_gpus, monkeypatch):
    """Host targets get a fresh host copy; CUDA targets go to the device path with the pinning of this process.

    ``_to_device`` is replaced by a spy (no CUDA here to copy to); the chunk size reaches
    it only where pinned memory exists (chunking pageable blocks would gain nothing).
    """
    seen = []

    def spy(data, source, dtype, target, out, *, pin, min_block, small_max):
        seen.append((target, pin, min_block, small_max, dtype, out))
        calls.append((data, source, out))
        return "device-path"

    calls: list = []

    monkeypatch.setattr(R, "_to_device", spy)
    for pinned in (False, True):
        monkeypatch.setattr(R, "pin_memory_available", lambda pinned=pinned: pinned)
        seen.clear()
        data = [1, 2, 3]
        host = R._async_h2d(data, "cpu", None, None, min_block=8)
        assert isinstance(host, torch.Tensor) and host.tolist() == data and not seen
        assert R._async_h2d(data, "cuda", torch.int16, None, min_block=8, small_max=5) == "device-path"
        assert seen == [(torch.device("cuda", 1), pinned, 8, 5, torch.int16, None)], seen
        assert two_visible_gpus == [], two_visible_gpus  # the current device: no switch
        seen.clear()
        assert h2d_impl.async_tensor_h2d(data, "cuda:0") == "device-path"
        # cuda:0 is not current: the call made it current (pinned staging through cuda:0's context, not cuda:1's)
        assert two_visible_gpus[-1] == torch.device("cuda", 0)
        assert h2d_impl.async_tensor_h2d_pipelined(data, "cuda:0") == "device-path"
        assert two_visible_gpus == [torch.device("cuda", 0)] * 2, two_visible_gpus
        two_visible_gpus.clear()
        assert [s[2] for s in seen] == [R._staging.MIN_BLOCK_BYTES] * 2, seen
        assert [s[3] for s in seen] == [R._staging.SMALL_MAX_BYTES] * 2 and all(s[1] is pinned for s in seen), seen

    # data, its validated host tensor and out reach the device path as they are (an out
    # on a CUDA device cannot exist here: validation is stubbed to say it is on cuda:0).
    calls.clear()
    arr = np.arange(3, dtype=np.int32)
    host_view = torch.from_numpy(arr)
    out_stub = torch.zeros(3, dtype=torch.int32)
    monkeypatch.setattr(R, "_prepare", lambda *args, cpu_only: (host_view, torch.int32, torch.device("cuda", 0)))
    assert R._async_h2d(arr, None, None, out_stub) == "device-path"
    assert len(calls) == 1 and calls[0][0] is arr and calls[0][1] is host_view and calls[0][2] is out_stub, calls


def test_cpu_variant_rejects_cuda_targets_that_exist(two_visible_gpus):
    """The CPU-platform variant refuses a CUDA target even where one is visible."""
    with pytest.raises(ValueError, match=r"^the CPU-platform variant only targets host memory, got device=cuda:1$"):
        h2d_impl.async_tensor_h2d_cpu([1, 2], "cuda")
    source, dtype, target = R._prepare([1, 2], "cuda:0", None, None, cpu_only=False)
    assert target == torch.device("cuda", 0) and dtype == torch.int64 and source.tolist() == [1, 2]
