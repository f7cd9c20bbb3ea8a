"""The bench's report code (bench/h2d_bench.py) on a recorded H200 run, on any machine.

The bench itself needs a GPU, so CI never runs it; its verdicts (issue 12's item-1 checks)
and its tables are plain functions of the measured rows. Here they are recomputed from the
rows of a committed record and compared with the verdicts that run wrote, so a change to
a check's bound or direction shows up as a failing test, not as a quietly greener record.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

import pytest

from h2d_contracts import CHECKOUT

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "h2d_bench.py"
RECORD = ROOT / "reports" / "bench" / "2026-12-01_h200_8cdcd4f" / "results.json"

pytestmark = pytest.mark.skipif(
    not (CHECKOUT and BENCH.is_file() and RECORD.is_file()),
    reason="the bench and its records live in the kit's checkout, not in the installed package",
)


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("h2d_bench_under_test", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(RECORD.read_text())


def test_criteria_recomputed_from_the_rows_match_the_recorded_verdicts(bench, record):
    got = bench.criteria(record)
    want = record["criteria"]
    assert [c["check"] for c in got] == [c["check"] for c in want]
    for g, w in zip(got, want):
        assert (g["ok"], g["value"], g["limit"]) == (w["ok"], w["value"], w["limit"]), g["check"]
    assert sum(c["ok"] for c in got) == 23 and len(got) == 61  # the counts results.md reports


def test_a_changed_row_changes_its_verdict(bench, record):
    """The check can fail: 64 MiB throughput (46.3 GB/s, limit 46.75) pushed over its limit flips to met."""
    rows = copy.deepcopy(record)
    row = next(r for r in rows["throughput"] if r["bytes"] == 64 << 20)
    name = f"(c) {row['bytes']:,} B: reference >= 85% of pinned DMA (GB/s)"
    before = next(c for c in bench.criteria(rows) if c["check"] == name)
    row["reference"] = 0.86 * row["pinned_dma_limit"]
    after = next(c for c in bench.criteria(rows) if c["check"] == name)
    assert (before["ok"], after["ok"]) == (False, True)


def test_markdown_has_every_section_and_the_host_copy_column(bench, record, tmp_path):
    out = tmp_path / "results.md"
    bench.write_markdown(record, str(out))
    text = out.read_text()
    for heading in ("## (a)", "## (b)", "## (c)", "## (d)", "## (e)", "## Ratio reference / vLLM", "## Issue 12, item 1: 23 of 61 checks met"):
        assert heading in text
    assert "| bytes | limit | host copy |" in text
    assert "| 67,108,864 | 55.0 | 79.2 | 46.3 (84%) |" in text
