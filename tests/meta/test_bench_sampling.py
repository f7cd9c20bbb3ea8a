"""The bench's interleaving of patterns (bench/h2d_bench.py ``round_order``, ``rotated_medians``), on any machine.

The bench needs a GPU to measure, but the order in which it samples its patterns is plain Python: every pattern
must be sampled once per round, each must come first in some round (no pattern always sampled right after a row's
set-up), and each must follow more than one other pattern (a fixed predecessor biased section (b) on an H100:
docs/performance.md).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from h2d_contracts import CHECKOUT

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not CHECKOUT,
    reason="the bench lives in the kit's checkout, not in the installed package",
)


@pytest.fixture(scope="module")
def h2d_bench():
    sys.path.insert(0, str(ROOT / "bench"))  # h2d_bench imports bench_report as the script would
    try:
        spec = importlib.util.spec_from_file_location("h2d_bench_under_test", ROOT / "bench" / "h2d_bench.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return module


@pytest.mark.parametrize("n", [2, 3, 6, 7])
def test_every_round_samples_each_pattern_once_with_varied_neighbours(h2d_bench, n):
    names = [f"p{i}" for i in range(n)]
    rounds = [h2d_bench.round_order(names, r) for r in range(max(7, n))]
    for order in rounds:
        assert sorted(order) == sorted(names), order
    assert {order[0] for order in rounds} == set(names)  # each pattern first in some round
    if n >= 3:
        for name in names:
            before = {order[order.index(name) - 1] for order in rounds if order.index(name) > 0}
            assert len(before) >= 2, (name, rounds)


def test_rotated_medians_samples_in_round_order(h2d_bench):
    names = ["reference", "naive", "pin_memory", "alloc_pinned", "vllm", "buffer_floor"]
    seen: list[str] = []
    values = {name: float(i) for i, name in enumerate(names)}

    def sample(call):
        return call()

    calls = {name: (lambda name=name: (seen.append(name), values[name])[1]) for name in names}
    out = h2d_bench.rotated_medians(calls, 7, sample)
    assert seen == [name for r in range(7) for name in h2d_bench.round_order(names, r)]
    assert {name: out[name] for name in names} == values
    assert out["spread"]["vllm"] == [4.0, 4.0, 4.0]
