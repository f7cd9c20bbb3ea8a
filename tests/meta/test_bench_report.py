"""The bench's report code (bench/bench_report.py) on a recorded H200 run, on any machine.

The bench itself needs a GPU, so CI never runs it; its verdicts (the checks of
docs/performance.md) and its tables are plain functions of the measured rows. Here they are
recomputed from the rows of the committed H200 record (docs/records/bench/) and compared with
the verdicts that run wrote, so a change to a check's bound or direction shows up as a
failing test, not as a quietly greener record.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from pathlib import Path

import pytest

from h2d_contracts import CHECKOUT

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "bench_report.py"
RECORD = ROOT / "docs" / "records" / "bench" / "h200-bench.json"
RECORD_MD = RECORD.with_suffix(".md")

pytestmark = pytest.mark.skipif(
    not CHECKOUT,
    reason="the bench and its records live in the kit's checkout, not in the installed package",
)


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_report_under_test", BENCH)
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
    met, total = map(int, re.search(r"(\d+) of (\d+) checks met", RECORD_MD.read_text()).groups())
    assert (sum(c["ok"] for c in got), len(got)) == (met, total)  # the counts the record's markdown reports


def test_a_changed_row_changes_its_verdict(bench, record):
    """The check can fail: 4 MiB throughput (35.6 GB/s, limit 44.7) pushed over its limit flips to met."""
    rows = copy.deepcopy(record)
    row = next(r for r in rows["throughput"] if r["bytes"] == 4 << 20)
    name = f"(c) {row['bytes']:,} B: reference >= 85% of pinned DMA (GB/s)"
    before = next(c for c in bench.criteria(rows) if c["check"] == name)
    row["reference"] = 0.86 * row["pinned_dma_limit"]
    after = next(c for c in bench.criteria(rows) if c["check"] == name)
    assert (before["ok"], after["ok"]) == (False, True)


def test_markdown_has_every_section_and_the_host_copy_column(bench, record, tmp_path):
    out = tmp_path / "results.md"
    bench.write_markdown(record, str(out))
    text = out.read_text()
    recorded = RECORD_MD.read_text().splitlines()
    for heading in [line for line in recorded if line.startswith("## ")]:
        assert heading in text  # every section the record's markdown has, its count of checks met included
    assert "| bytes | limit | host copy |" in text
    row_64mib = next(line for line in recorded if line.startswith("| 67,108,864 | 55.2 |"))
    assert row_64mib in text  # the throughput row, regenerated from the rows
