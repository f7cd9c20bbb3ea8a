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


def test_every_target_has_its_checks_on_every_row(bench, record):
    """Issue 24's grid, whatever a run measured: target 1 twice for each of 1, 16, 256, 4,096 elements of each input
    kind; target 2 twice for each busy size from 4 KiB to 256 MiB; target 3 twice for each throughput size from
    4 MiB; target 4 once a cold size; target 5 (or 2) for each pinned layout, with its warm-call bound."""
    got = bench.criteria(record)
    count = {t: sum(c["target"] == t for c in got) for t in range(1, 6)}
    throughput = len(set(bench.THROUGHPUT_SIZES) | {r["bytes"] for r in record["throughput"] if r["bytes"] >= 4 << 20})
    cold = len(set(bench.COLD_SIZES) | {r["bytes"] for r in record["cold"]})
    layouts = len(record["layouts"])
    assert count[1] == 2 * len(bench.HOT_SIZES) * len(bench.HOT_KINDS) == 32
    assert (
        count[2] == 2 * len(bench.BUSY_SIZES) + layouts
    )  # each layout's bound (and its vs-vLLM check where it is one)
    assert count[3] == 2 * throughput == 10 and count[4] == cold == 6 and count[5] == layouts
    assert all(isinstance(c["ok"], bool) for c in got)


def test_what_a_run_did_not_measure_fails_its_check(bench, record):
    """The record of 2026-12-01 has no pinned-tensor kind, no minimal staged call and no like-with-like column: their
    checks are listed and failed ("not measured"), never skipped, and the markdown says so."""
    got = bench.criteria(record)
    missing = [c for c in got if c.get("note") == "not measured"]
    assert missing and not any(c["ok"] for c in missing)
    assert {c["check"] for c in missing} >= {
        "1. n=1 pinned, idle: reference <= 0.9x vllm (us)",
        "1. n=16 tensor, idle: reference <= 1.5x minimal staged call (us)",
        "5. pinned transposed 2048x2048 f32 (.t()): whether vLLM's result is contiguous",
    }
    rows = copy.deepcopy(record)
    rows["criteria"] = got
    text = "\n".join(bench._verdicts(rows))
    assert "| 1. n=1 pinned, idle: reference <= 0.9x vllm (us) | - | - | **not measured** |" in text


def test_a_run_cut_short_fails_the_rows_it_never_reached(bench, record):
    """A run stopped before its cold section (e), and one missing a throughput size: their target-3 and target-4 checks
    are listed and failed ("not measured"), not dropped (a bench cut by its time limit once gave 64 checks, not 70)."""
    rows = copy.deepcopy(record)
    rows["cold"] = []
    rows["throughput"] = [r for r in rows["throughput"] if r["bytes"] != 1 << 30]
    got = bench.criteria(rows)
    missing = {c["check"] for c in got if c.get("note") == "not measured" and c["target"] in (3, 4)}
    assert {f"4. {n:,} B cold, busy: reference <= vllm (ms)" for n in bench.COLD_SIZES} <= missing
    assert "3. 1,073,741,824 B: reference >= vllm (GB/s)" in missing
    assert len(got) == len(bench.criteria(record))


@pytest.mark.parametrize(
    "section, key, name, column, factor, at_least",
    [
        ("small", ("n", 16, "kind", "list"), "1. n=16 list, idle: reference <= 0.9x vllm (us)", "vllm", 0.9, False),
        ("busy", ("bytes", 1 << 20), "2. 1,048,576 B busy: reference <= vllm (ms)", "vllm", 1.0, False),
        ("throughput", ("bytes", 4 << 20), "3. 4,194,304 B: reference >= vllm (GB/s)", "vllm", 1.0, True),
        ("cold", ("bytes", 4 << 10), "4. 4,096 B cold, busy: reference <= vllm (ms)", "vllm", 1.0, False),
    ],
)
def test_a_target_flips_where_its_ratio_crosses_it(bench, record, section, key, name, column, factor, at_least):
    """Each target compares the reference with factor x its column: 1% on the good side meets it, 1% on the other
    side fails it (so the direction and the factor are what docs/performance.md states)."""

    def verdict(scale: float) -> bool:
        rows = copy.deepcopy(record)
        pairs = dict(zip(key[::2], key[1::2]))
        row = next(r for r in rows[section] if all(r[k] == v for k, v in pairs.items()))
        row["reference"] = scale * factor * row[column]
        return next(c for c in bench.criteria(rows) if c["check"] == name)["ok"]

    good, bad = (1.01, 0.99) if at_least else (0.99, 1.01)
    assert (verdict(good), verdict(bad)) == (True, False)


def test_the_throughput_floor_is_the_lower_of_dma_and_host_copy(bench, record):
    """Target 3's floor: 85% of min(pinned DMA, host copy) of the same row, whichever is lower."""
    rows = copy.deepcopy(record)
    row = next(r for r in rows["throughput"] if r["bytes"] == 4 << 20)
    name = "3. 4,194,304 B: reference >= 85% of min(pinned DMA, host copy) (GB/s)"
    for dma, host in ((50.0, 30.0), (30.0, 50.0)):
        row["pinned_dma_limit"], row["host_copy_rate"] = dma, host
        row["reference"] = 0.86 * 30.0
        assert next(c for c in bench.criteria(rows) if c["check"] == name)["ok"]
        row["reference"] = 0.84 * 30.0
        assert not next(c for c in bench.criteria(rows) if c["check"] == name)["ok"]


def test_like_with_like_compares_with_vllm_made_contiguous(bench, record):
    """Target 5: where vLLM's result is not contiguous, the reference is judged against 1.1x vLLM + .contiguous()."""
    rows = copy.deepcopy(record)
    row = rows["layouts"][0]
    row.update(vllm_result_contiguous=False, vllm_contiguous_idle_us=10.0, vllm_contiguous_busy_ms=0.2)
    row.update(reference_idle_us=10.9, reference_busy_ms=0.23)
    got = {c["check"]: c["ok"] for c in bench.criteria(rows) if c["check"].startswith(f"5. {row['layout']},")}
    assert got == {
        f"5. {row['layout']}, idle: reference <= 1.1x vllm + .contiguous() (us)": True,
        f"5. {row['layout']}, busy: reference <= 1.1x vllm + .contiguous() (ms)": False,
    }


def test_markdown_has_every_section_and_the_host_copy_column(bench, record, tmp_path):
    out = tmp_path / "results.md"
    rows = copy.deepcopy(record)
    rows["criteria"] = bench.criteria(rows)
    bench.write_markdown(rows, str(out))
    text = out.read_text()
    for section in ("## (a)", "## (b)", "## (c)", "## (d)", "## (e)", "## Ratio reference / vLLM"):
        assert f"\n{section}" in text
    met = sum(c["ok"] for c in rows["criteria"])
    assert f"## Targets (docs/performance.md): {met} of {len(rows['criteria'])} checks met" in text
    assert "| bytes | limit | host copy | fresh DMA | at once: host / DMA; pipeline limit | calls |" in text
    recorded = RECORD_MD.read_text().splitlines()
    row_64mib = next(line for line in recorded if line.startswith("| 67,108,864 | 55.2 |"))
    cells = row_64mib.split(" | ")
    # the throughput row, regenerated from the rows; that run measured neither the fresh DMA nor the two at once, nor
    # kept the calls
    assert " | ".join([*cells[:3], "-", "-", "-", *cells[3:]]) in text


def test_a_pinned_row_is_out_of_reach_only_below_its_measured_floor(bench, record):
    """Target 1 against 0.9x vLLM for a pinned tensor: failed either way, and out of reach only where the least a
    correct zero-copy call does (``pinned_check_floor``: is_pinned() then .to, same run) already exceeds the bound."""
    name = "1. n=16 pinned, idle: reference <= 0.9x vllm (us)"

    def check(floor: float, ref: float) -> dict:
        rows = copy.deepcopy(record)
        rows["small"].append({"n": 16, "kind": "pinned", "vllm": 10.0, "reference": ref, "pinned_check_floor": floor})
        return next(c for c in bench.criteria(rows) if c["check"] == name)

    above, below, met = check(9.5, 10.5), check(8.5, 10.5), check(8.5, 8.9)
    assert not above["ok"] and above["out_of_reach"] == "is_pinned() + .to() alone take 9.50"
    assert not below["ok"] and "out_of_reach" not in below
    assert met["ok"] and "out_of_reach" not in met


def test_the_pipeline_limit_is_the_best_schedule_of_a_host_copy_and_a_dma(bench):
    """Per GB, the two at once for O seconds and the rest of each alone: the least time over O is at O = 0 (one after
    the other) or at O = 1 / (the faster rate at once); the limit is 1 over it."""
    row = {"host_copy_rate": 51.6, "pinned_dma_limit": 54.5, "concurrent_host_gbps": 38.8, "concurrent_dma_gbps": 45.2}
    overlap = 1 / 45.2  # the DMA, faster at once, ends first; the host copy's rest runs alone
    assert bench.pipeline_limit(row) == pytest.approx(1 / (overlap + (1 - overlap * 38.8) / 51.6))
    row.update(concurrent_host_gbps=10.0, concurrent_dma_gbps=10.0)  # overlap worse than none: one after the other
    assert bench.pipeline_limit(row) == pytest.approx(1 / (1 / 51.6 + 1 / 54.5))
    assert bench.pipeline_limit({"host_copy_rate": 51.6}) is None


def test_a_throughput_row_is_out_of_reach_only_below_its_pipeline_limit(bench, record):
    """Target 3's floor (85% of min(DMA, host copy), each alone): out of reach only where neither the pipeline limit
    at the run's four rates nor the best round of any pattern reaches it; never counted as met."""
    name = "3. 1,073,741,824 B: reference >= 85% of min(pinned DMA, host copy) (GB/s)"

    def check(ref: float, best: float, **rates: float) -> dict:
        rows = copy.deepcopy(record)
        row = next(r for r in rows["throughput"] if r["bytes"] == 1 << 30)
        row.update(pinned_dma_limit=54.5, host_copy_rate=51.6, reference=ref, **rates)
        row["spread"] = {"reference": [ref, ref, ref], "vllm": [best - 5, best - 1, best]}
        return next(c for c in bench.criteria(rows) if c["check"] == name)

    at_once = {"concurrent_host_gbps": 38.8, "concurrent_dma_gbps": 45.2}
    model = bench.pipeline_limit({"host_copy_rate": 51.6, "pinned_dma_limit": 54.5, **at_once})
    assert 40.0 < model < 40.5
    assert "out_of_reach" not in check(31.0, 41.7)  # no rates at once measured: a plain failure
    low = check(31.0, 41.7, **at_once)  # 85% of 51.6 is 43.86, above both the model and 41.7
    assert not low["ok"] and low["out_of_reach"] == (
        "the best round of any pattern 41.70 and a staged pipeline at this run's rates reach at most 41.70"
    )
    above = check(31.0, 38.0, **at_once)  # the model above the best round: the limit is the model's
    assert above["out_of_reach"].endswith(
        f"of any pattern 38.00 and a staged pipeline at this run's rates reach at most {model:.2f}"
    )
    assert "out_of_reach" not in check(31.0, 44.0, **at_once)  # a round reached the floor: reachable
    fast = {"concurrent_host_gbps": 50.0, "concurrent_dma_gbps": 54.0}
    assert "out_of_reach" not in check(31.0, 41.7, **fast)  # the model reaches it: reachable, so failed
    assert check(44.0, 44.0, **at_once)["ok"]
    rows = copy.deepcopy(record)
    rows["criteria"] = [low, *bench.criteria(record)]
    text = "\n".join(bench._verdicts(rows))
    assert "1 of the others out of reach on this hardware" in text
    assert f"| {name} | 31.00 | 43.86 | **no**, out of reach: the best round of any pattern 41.70 and a staged" in text


def _hot_row_at(record: dict, scale: float) -> dict:
    """``record`` with its reference on the 16-element list at ``scale`` x vLLM's 0.9x bound (target 1)."""
    rows = copy.deepcopy(record)
    row = next(r for r in rows["small"] if r["n"] == 16 and r["kind"] == "list")
    row["reference"] = scale * 0.9 * row["vllm"]
    return rows


def test_agreement_counts_each_checks_verdicts_over_runs(bench, record):
    """``agreement`` over runs: a run against itself splits nothing; two runs whose reference is 1% under and 1% over
    vLLM's 0.9x bound on one hot-path row split exactly that check (met 1 of 2), with both runs' values."""
    name = "1. n=16 list, idle: reference <= 0.9x vllm (us)"
    faster, slower = _hot_row_at(record, 0.99), _hot_row_at(record, 1.01)
    same = bench.agreement([faster, copy.deepcopy(faster)])
    assert len(same) == len(bench.criteria(record))
    assert all(r["runs"] == 2 and r["met"] in (0, 2) for r in same)
    got = {r["check"]: r for r in bench.agreement([faster, slower])}
    ref = [
        next(r for r in run["small"] if r["n"] == 16 and r["kind"] == "list")["reference"] for run in (faster, slower)
    ]
    assert got[name]["met"] == 1 and got[name]["values"] == ref
    assert [c for c, r in got.items() if r["met"] != next(s for s in same if s["check"] == c)["met"]] == [name]


def test_agreement_refuses_no_runs_and_runs_of_other_grids(bench, record):
    with pytest.raises(ValueError, match="runs"):
        bench.agreement([])
    shorter = copy.deepcopy(record)
    shorter["layouts"] = shorter["layouts"][:-1]
    with pytest.raises(ValueError, match=r"runs\[1\]"):
        bench.agreement([record, shorter])


def test_the_report_command_prints_counts_per_run_and_over_runs(bench, record, tmp_path, capsys):
    """``python bench/bench_report.py RUN.json ...``: one line per run, then met in every run / in none / split."""
    runs = [_hot_row_at(record, 0.99), _hot_row_at(record, 1.01)]
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path, run in zip(paths, runs):
        path.write_text(json.dumps(run))
    assert bench.main([str(p) for p in paths]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = bench.agreement(runs)
    every, none = sum(r["met"] == 2 for r in rows), sum(r["met"] == 0 for r in rows)
    assert out[0].startswith(f"{paths[0]}: {sum(c['ok'] for c in bench.criteria(runs[0]))} of {len(rows)} met")
    assert out[2] == f"over 2 runs: {every} met in every run, {none} in none, 1 split"
    assert any(line.startswith("  met 1 of 2: 1. n=16 list, idle") for line in out[3:])
