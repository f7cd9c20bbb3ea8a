"""The bench's verdicts and report: pure functions of the measured rows (results.json), no GPU needed.

``criteria`` checks the rows against the performance criteria (docs/performance.md),
``write_markdown`` writes results.md and ``plot`` h2d_bench.png. Apart from the
measurement (``h2d_bench.py``) so that a recorded run's verdicts and tables can be
recomputed on any machine (tests/meta/test_bench_report.py).
"""

from __future__ import annotations

from typing import Any

__all__ = ["agreement", "criteria", "plot", "write_markdown"]


#: The targets' grid (issue 24): the hot path's sizes and input kinds, the busy rows' sizes, and the throughput and
#: cold rows from which the floors apply.
HOT_SIZES = (1, 16, 256, 4096)
HOT_KINDS = ("list", "ndarray", "tensor", "pinned")
BUSY_SIZES = (4 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20)
THROUGHPUT_FROM = 4 << 20
THROUGHPUT_SIZES = (4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30)
COLD_SIZES = (4 << 10, 1 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30)
#: Target numbers: hot path at most 0.9x vLLM and 1.5x the minimal staged call; throughput at least 85% of
#: min(pinned DMA, host copy); like with like at most 1.1x vLLM plus what its user adds.
HOT_VS_VLLM, HOT_VS_FLOOR, FLOOR_SHARE, LIKE_WITH_LIKE = 0.9, 1.5, 0.85, 1.1


def _check(
    target: int, check: str, value: float | None, limit: float | None, *, at_least: bool = False
) -> dict[str, Any]:
    """One verdict row of target ``target`` (1-5): ``value <= limit`` (host time), or ``value >= limit`` with
    ``at_least`` (throughput). A value or limit this run did not measure (None) is a failed check, not a skipped one:
    a verdict cannot pass by what a run left out."""
    if value is None or limit is None:
        return {"target": target, "check": check, "value": value, "limit": limit, "ok": False, "note": "not measured"}
    ok = value >= limit if at_least else value <= limit
    return {"target": target, "check": check, "value": value, "limit": limit, "ok": ok}


def _out_of_reach(check: dict[str, Any], measured: float | None, why: str, *, at_least: bool = False) -> dict[str, Any]:
    """Mark a failed ``check`` out of reach where a limit of this hardware measured in the same run (``measured``: the
    most any pattern can do, for ``at_least`` checks, else the least) lies on the wrong side of its bound: the row is
    still failed, never counted as met, and says why with the figure (issue 33: "or shows for a row a measured limit of
    this hardware that makes it impossible")."""
    if check["ok"] or measured is None or check["limit"] is None:
        return check
    if (measured < check["limit"]) if at_least else (measured > check["limit"]):
        check["out_of_reach"] = f"{why} {measured:.2f}"
    return check


def pipeline_limit(row: dict) -> float | None:
    """The most a staged pattern can sustain on a throughput row (GB/s), from four rates of the same run, or None.

    Per byte a staged pattern does one host copy (``host_copy_rate`` alone, ``concurrent_host_gbps`` while a DMA
    runs) and one DMA (``pinned_dma_limit`` alone, ``concurrent_dma_gbps`` while a host copy runs). Over any
    schedule, with ``O`` seconds per GB of the two at once and the rest of each alone, the time per GB is
    ``O + (1 - O h_c) / h_a + (1 - O d_c) / d_a``; linear in ``O``, it is least at ``O = 0`` (one after the other)
    or at ``O = min(1 / h_c, 1 / d_c)`` (overlapped until the faster ends, the slower finishing alone). The limit is
    1 over that least time: no schedule of those two steps runs faster at these rates.
    """
    rates = [
        _get(row, k) for k in ("host_copy_rate", "pinned_dma_limit", "concurrent_host_gbps", "concurrent_dma_gbps")
    ]
    if any(r is None or r <= 0 for r in rates):
        return None
    h_a, d_a, h_c, d_c = rates  # type: ignore[misc]
    overlap = min(1 / h_c, 1 / d_c)
    best = min(1 / h_a + 1 / d_a, overlap + (1 - overlap * h_c) / h_a + (1 - overlap * d_c) / d_a)
    return 1 / best


def _best_round(row: dict, names: list[str]) -> float | None:
    """The highest throughput any pattern of ``names`` reached in any round of ``row`` (its spread's maximum where the
    run kept spreads, else its median)."""
    spread = row.get("spread") or {}
    values = [spread[n][-1] if n in spread else _get(row, n) for n in names]
    found = [v for v in values if v is not None]
    return max(found) if found else None


def _get(row: dict | None, key: str) -> float | None:
    value = None if row is None else row.get(key)
    return float(value) if isinstance(value, (int, float)) else None


def _times(factor: float, value: float | None) -> float | None:
    return None if value is None else factor * value


def _target_hot_path(res: dict) -> list[dict]:
    """Target 1: at 1, 16, 256 and 4,096 elements of every input kind, idle stream: reference <= 0.9x vLLM and
    <= 1.5x the minimal staged call (``staged_floor``), both of the same run."""
    rows = {(r["n"], r["kind"]): r for r in res.get("small", [])}
    out = []
    for n in HOT_SIZES:
        for kind in HOT_KINDS:
            r = rows.get((n, kind))
            ref = _get(r, "reference")
            what = f"1. n={n} {kind}, idle: reference"
            out.append(_check(1, f"{what} <= {HOT_VS_VLLM}x vllm (us)", ref, _times(HOT_VS_VLLM, _get(r, "vllm"))))
            if kind == "pinned":  # is_pinned() then the one .to: the least a correct zero-copy call does
                _out_of_reach(out[-1], _get(r, "pinned_check_floor"), "is_pinned() + .to() alone take")
            floor = _times(HOT_VS_FLOOR, _get(r, "staged_floor"))
            out.append(_check(1, f"{what} <= {HOT_VS_FLOOR}x minimal staged call (us)", ref, floor))
    return out


def _bound(row: dict | None) -> float | None:
    copy = _get(row, "host_to_pinned_ms")
    return None if copy is None else 1.0 + 1.2 * copy


def _target_busy(res: dict) -> list[dict]:
    """Target 2: behind the busy stream, 4 KiB to 256 MiB: reference <= vLLM, and <= 1 ms + 1.2x a host-to-pinned
    copy of the same bytes (the bound kept for every warm call)."""
    rows = {r["bytes"]: r for r in res.get("busy", [])}
    cold_copy = {r["bytes"]: r for r in res.get("cold", [])}  # records before the busy rows measured their copy
    out = []
    for nbytes in BUSY_SIZES:
        r = rows.get(nbytes)
        ref = _get(r, "reference")
        what = f"2. {nbytes:,} B busy: reference"
        out.append(_check(2, f"{what} <= vllm (ms)", ref, _get(r, "vllm")))
        bound = _bound(r) if _get(r, "host_to_pinned_ms") is not None else _bound(cold_copy.get(nbytes))
        out.append(_check(2, f"{what} <= 1 ms + 1.2x host-to-pinned (ms)", ref, bound))
    return out


def _target_throughput(res: dict) -> list[dict]:
    """Target 3: steady state, every size from 4 MiB: reference >= vLLM and >= 85% of min(pinned DMA, host copy)."""
    rows = {r["bytes"]: r for r in res.get("throughput", []) if r["bytes"] >= THROUGHPUT_FROM}
    out = []
    for nbytes in sorted(set(THROUGHPUT_SIZES) | set(rows)):  # a size the run left out is "not measured"
        r = rows.get(nbytes, {})
        ref = _get(r, "reference")
        what = f"3. {nbytes:,} B: reference"
        out.append(_check(3, f"{what} >= vllm (GB/s)", ref, _get(r, "vllm"), at_least=True))
        dma, host = _get(r, "pinned_dma_limit"), _get(r, "host_copy_rate")
        floor = None if dma is None or host is None else FLOOR_SHARE * min(dma, host)
        check = _check(
            3, f"{what} >= {FLOOR_SHARE:.0%} of min(pinned DMA, host copy) (GB/s)", ref, floor, at_least=True
        )
        # out of reach where neither the model at this run's rates nor any pattern's best round reaches the floor:
        # a round above the model (rates vary between their measurements) raises the limit to that round
        model, best = pipeline_limit(r), _best_round(r, list(res.get("patterns", [])))
        if model is not None and best is not None:
            why = f"the best round of any pattern {best:.2f} and a staged pipeline at this run's rates reach at most"
            out.append(_out_of_reach(check, max(model, best), why, at_least=True))
        else:
            out.append(check)
    return out


def _target_cold(res: dict) -> list[dict]:
    """Target 4: the first call of each size, cold caches, behind the busy stream: reference <= vLLM."""
    rows = {r["bytes"]: r for r in res.get("cold", [])}
    return [  # a size the run left out (a run cut short before (e)) is "not measured"
        _check(
            4,
            f"4. {n:,} B cold, busy: reference <= vllm (ms)",
            _get(rows.get(n), "reference"),
            _get(rows.get(n), "vllm"),
        )
        for n in sorted(set(COLD_SIZES) | set(rows))
    ]


def _target_like_with_like(res: dict) -> list[dict]:
    """Target 5, and target 2 for the pinned layouts: where vLLM's result is not contiguous (a dense permuted pinned
    input keeps its strides) the comparison adds what its user must add, ``.contiguous()`` (``vllm_contiguous``),
    and the reference is at most 1.1x that, idle and busy; otherwise (vLLM's result already contiguous) the
    reference is at most vLLM's time behind the busy stream. Every layout keeps the warm-call bound."""
    rows = [*res.get("cold", []), *res.get("busy", [])]
    copy_rows = {r["bytes"]: r for r in rows if _get(r, "host_to_pinned_ms") is not None}
    out = []
    for r in res.get("layouts", []):
        what, layout = f"5. {r['layout']}", f"2. {r['layout']}"
        contiguous = r.get("vllm_result_contiguous")
        if contiguous is False:
            for when, unit in (("idle", "us"), ("busy", "ms")):
                ref = _get(r, f"reference_{when}_{unit}")
                limit = _times(LIKE_WITH_LIKE, _get(r, f"vllm_contiguous_{when}_{unit}"))
                out.append(
                    _check(
                        5, f"{what}, {when}: reference <= {LIKE_WITH_LIKE}x vllm + .contiguous() ({unit})", ref, limit
                    )
                )
        elif contiguous is True:
            out.append(
                _check(
                    2, f"{layout}, busy: reference <= vllm (ms)", _get(r, "reference_busy_ms"), _get(r, "vllm_busy_ms")
                )
            )
        else:
            out.append(_check(5, f"{what}: whether vLLM's result is contiguous", None, None))
        bound = _bound(copy_rows.get(r["bytes"]))
        out.append(
            _check(
                2, f"{layout}, busy: reference <= 1 ms + 1.2x host-to-pinned (ms)", _get(r, "reference_busy_ms"), bound
            )
        )
    return out


def criteria(res: dict) -> list[dict]:
    """The performance targets (docs/performance.md, "Targets"; issue 24), row by row: each check with its target
    number, the two numbers it compares and pass/fail.

    1. hot path: 1, 16, 256, 4,096 elements of a list, ndarray, pageable and pinned tensor, idle stream: reference
       <= 0.9x vLLM and <= 1.5x the minimal staged call of the same run;
    2. busy stream, 4 KiB to 256 MiB (and the pinned layouts whose vLLM result is already contiguous): reference
       <= vLLM, and <= 1 ms + 1.2x a host-to-pinned copy of the same bytes;
    3. throughput from 4 MiB to 1 GiB: reference >= vLLM and >= 85% of min(pinned DMA, host copy);
    4. cold first call, every size: reference <= vLLM;
    5. like with like: where vLLM's result is not contiguous, reference <= 1.1x vLLM + ``.contiguous()``.

    A check whose numbers the run did not measure (an earlier bench without the pinned kind, the minimal staged
    call, the like-with-like column, or without vLLM) is listed and failed, ``note: "not measured"``.
    """
    return [
        *_target_hot_path(res),
        *_target_busy(res),
        *_target_throughput(res),
        *_target_cold(res),
        *_target_like_with_like(res),
    ]


def agreement(runs: list[dict]) -> list[dict]:
    """Each check's verdicts over several runs (results.json of each, in order): how often it was met, and where not.

    One run's verdict on a check within a few percent of its bound is a draw: two benches of one commit on one H100,
    back to back, disagreed on 9 of 70 checks (docs/performance.md). A check met in every run is met; one met in none
    is a gap (``out_of_reach`` in every run: a measured limit of the hardware); the rest are split. Returns one dict
    per check of the first run, in its order: ``target``, ``check``, ``met`` (runs in which it was met), ``runs``,
    ``out_of_reach`` (runs in which it was marked so), ``values`` and ``limits`` (one per run, None where a run did
    not measure it). Raises ValueError if ``runs`` is empty or the runs do not list the same checks.
    """
    if not runs:
        raise ValueError("runs: at least one results.json is needed")
    verdicts = [criteria(res) for res in runs]
    names = [c["check"] for c in verdicts[0]]
    for i, got in enumerate(verdicts[1:], 1):
        if [c["check"] for c in got] != names:
            raise ValueError(f"runs[{i}] lists other checks than runs[0]: not the same bench grid")
    return [
        {
            "target": verdicts[0][j]["target"],
            "check": name,
            "met": sum(v[j]["ok"] for v in verdicts),
            "runs": len(verdicts),
            "out_of_reach": sum("out_of_reach" in v[j] for v in verdicts),
            "values": [v[j]["value"] for v in verdicts],
            "limits": [v[j]["limit"] for v in verdicts],
        }
        for j, name in enumerate(names)
    ]


def write_markdown(res: dict, path: str) -> None:
    """results.md: the run's header, a table a section (a)-(e), the ratios to vLLM and the verdicts."""
    lines = [
        f"# H2D benchmark, {res['gpu']}",
        "",
        f"- date (UTC): {res['date']}",
        f"- torch {res['torch']} (CUDA {res['cuda']}), python {res['python']}",
        f"- command: `{res['command']}`",
        "",
    ]
    for section in (_small, _busy, _throughput, _layouts, _cold, _ratios, _verdicts):
        lines += section(res)
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def _table(head: list[str]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]


def _cell(row: dict, name: str, digits: int) -> str:
    """``median`` of a row's column, with ``[min-max]`` over its rounds where the run kept the spread; '-' if absent."""
    value = row.get(name)
    if not isinstance(value, (int, float)):
        return "-"
    spread = row.get("spread", {}).get(name)
    text = f"{value:.{digits}f}"
    return f"{text} [{spread[0]:.{digits}f}-{spread[2]:.{digits}f}]" if spread else text


def _small(res: dict) -> list[str]:
    names = list(res["patterns"])
    floor = "staged_floor" if any("staged_floor" in r for r in res["small"]) else "buffer_floor"
    L = [
        f"## (a) host time per call, idle stream (us, median [min-max over rounds]; x: ratio to {floor})",
        "",
        "staged_floor: the minimal staged call (host data into new pinned memory, torch.empty on the device, one",
        "non-blocking copy); buffer_floor: CpuGpuBuffer.copy_to_gpu(n), the data already pinned",
        "",
    ]
    check = any("pinned_check_floor" in r for r in res["small"])
    L += _table(["n", "kind", "buffer_floor", "staged_floor", *(["pinned_check_floor"] if check else []), *names])
    for r in res["small"]:
        base = r.get(floor)
        cells = [_cell(r, n, 1) + (f" ({r[n] / base:.1f}x)" if base and n in r else "") for n in names]
        extra = f"{_cell(r, 'pinned_check_floor', 1)} | " if check else ""
        L.append(
            f"| {r['n']} | {r['kind']} | {_cell(r, 'buffer_floor', 1)} | {_cell(r, 'staged_floor', 1)} | {extra}"
            + " | ".join(cells)
            + " |"
        )
    if check:
        L += [
            "",
            "pinned_check_floor (pinned rows): `x.is_pinned()` then `x.to(device, non_blocking=True)`, the least a",
            "correct zero-copy call does",
        ]
    return L


def _busy(res: dict) -> list[str]:
    names = [*res["patterns"], "buffer_floor"]
    L = [
        "",
        f"## (b) host time per call with {res['busy_ms']:.0f} ms queued on the stream (ms, median [min-max] of {res['busy_reps']})",
        "",
    ]
    L += _table(["bytes", "host-to-pinned copy", *names])
    L += [
        f"| {r['bytes']:,} | {_cell(r, 'host_to_pinned_ms', 2)} | " + " | ".join(_cell(r, n, 2) for n in names) + " |"
        for r in res["busy"]
    ]
    return L


def _throughput(res: dict) -> list[str]:
    names = list(res["patterns"])
    L = ["", "## (c) steady-state throughput (GB/s; ratio to the pinned DMA limit measured in this run)", ""]
    L += [
        "host copy: pageable -> preallocated pinned `copy_` alone (`host_copy_gbps`), which every staged pattern pays per call;",
        "at once: the host copy / the DMA while the other runs on separate buffers (`concurrent_limit_gbps`);",
        "pipeline limit: the most any schedule of the two steps sustains at these four rates (`pipeline_limit`);",
        "fresh DMA: one DMA of a pinned buffer the host has just written (`fresh_dma_gbps`);",
        "calls: per sample",
        "",
    ]
    L += _table(["bytes", "limit", "host copy", "fresh DMA", "at once: host / DMA; pipeline limit", "calls", *names])
    for r in res["throughput"]:
        lim = r["pinned_dma_limit"]
        hc = f"{r['host_copy_rate']:.1f}" if "host_copy_rate" in r else "-"
        fresh = f"{r['fresh_dma_gbps']:.1f}" if "fresh_dma_gbps" in r else "-"
        model = pipeline_limit(r)
        both = (
            f"{r['concurrent_host_gbps']:.1f} / {r['concurrent_dma_gbps']:.1f}; **{model:.1f}**"
            if model is not None
            else "-"
        )
        cells = " | ".join(f"{_cell(r, n, 1)} ({r[n] / lim:.0%})" for n in names)
        L.append(
            f"| {r['bytes']:,} | {lim:.1f} | {hc} | {fresh} | {both} | {r.get('calls_per_round', '-')} | {cells} |"
        )
    return L


def _layouts(res: dict) -> list[str]:
    if not res.get("layouts"):
        return []
    names = list(res["patterns"]) + (
        ["vllm_contiguous"] if any("vllm_contiguous_busy_ms" in r for r in res["layouts"]) else []
    )
    L = ["", f"## (d) pinned layouts, 16 MiB: host us idle / host ms behind {res['busy_ms']:.0f} ms queued", ""]
    L += ["vllm_contiguous: vLLM's result made contiguous, what a vLLM user adds to get the reference's result", ""]
    L += _table(["layout", "vLLM's result contiguous", *names])
    for r in res["layouts"]:
        cells = " | ".join(f"{_cell(r, n + '_idle_us', 0)} us / {_cell(r, n + '_busy_ms', 2)} ms" for n in names)
        L.append(f"| {r['layout']} | {r.get('vllm_result_contiguous', '-')} | {cells} |")
    return L


def _cold(res: dict) -> list[str]:
    if not res.get("cold"):
        return []
    names = [n for n in res["patterns"] if n != "naive"]
    emptied = "" if all(r["cache_emptied"] for r in res["cold"]) else " (NOT emptied: torch lacks _host_emptyCache)"
    L = ["", f"## (e) first call behind {res['busy_ms']:.0f} ms queued, cold caching host allocator{emptied} (ms)", ""]
    L += _table(["bytes", "host-to-pinned copy", "bound (1 ms + 1.2x)", *names])
    for r in res["cold"]:
        cells = " | ".join(_cell(r, n, 2) for n in names)
        L.append(f"| {r['bytes']:,} | {r['host_to_pinned_ms']:.2f} | {r['bound_ms']:.2f} | {cells} |")
    return L


def _ratios(res: dict) -> list[str]:
    if "vllm" not in res["patterns"]:
        return []
    L = ["", "## Ratio reference / vLLM, same run (host time: < 1 is faster; throughput: > 1 is faster)", ""]
    L += ["| row | reference | vllm | ratio |", "|---|---|---|---|"]
    rows = [(f"(a) n={r['n']} {r['kind']} (us)", r["reference"], r["vllm"], 1) for r in res["small"]]
    rows += [(f"(b) {r['bytes']:,} B busy (ms)", r["reference"], r["vllm"], 2) for r in res["busy"]]
    rows += [(f"(c) {r['bytes']:,} B (GB/s)", r["reference"], r["vllm"], 1) for r in res["throughput"]]
    rows += [
        (f"(d) {r['layout']}, busy (ms)", r["reference_busy_ms"], r["vllm_busy_ms"], 2) for r in res.get("layouts", [])
    ]
    rows += [(f"(e) {r['bytes']:,} B cold, busy (ms)", r["reference"], r["vllm"], 2) for r in res.get("cold", [])]
    L += [f"| {row} | {ref:.{d}f} | {v:.{d}f} | {ref / v:.2f} |" for row, ref, v, d in rows]
    return L


def _verdicts(res: dict) -> list[str]:
    c = res.get("criteria")
    if not c:
        return []
    reach = sum("out_of_reach" in x for x in c)
    L = [
        "",
        f"## Targets (docs/performance.md): {sum(x['ok'] for x in c)} of {len(c)} checks met"
        + (f"; {reach} of the others out of reach on this hardware" if reach else ""),
        "",
    ]
    for target in sorted({x.get("target", 0) for x in c}):
        mine = [x for x in c if x.get("target", 0) == target]
        far = sum("out_of_reach" in x for x in mine)
        L.append(
            f"- target {target}: {sum(x['ok'] for x in mine)} of {len(mine)}"
            + (f" ({far} out of reach)" if far else "")
        )
    L += [
        "",
        "out of reach: failed, and a limit of this hardware measured in the same run lies beyond the bound",
        "",
        "| check | reference | limit | met |",
        "|---|---|---|---|",
    ]
    for x in c:
        value, limit = (f"{x[k]:.2f}" if x[k] is not None else "-" for k in ("value", "limit"))
        met = "yes" if x["ok"] else ("**not measured**" if x.get("note") else "**no**")
        if "out_of_reach" in x:
            met = f"**no**, out of reach: {x['out_of_reach']}"
        L.append(f"| {x['check']} | {value} | {limit} | {met} |")
    return L


def plot(res: dict, path: str) -> None:
    """h2d_bench.png: (a) host us against elements, (b) host ms behind the busy stream, (c) GB/s with the DMA and host-copy limits."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(18, 5))
    ax = axes[0]
    for name in [*res["patterns"], "buffer_floor", "staged_floor"]:
        pts = [(r["n"], r[name]) for r in res["small"] if r["kind"] == "tensor" and name in r]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="int32 elements (tensor input)",
        ylabel="host us / call (median)",
        title="(a) idle stream",
    )
    ax.legend(fontsize=8)
    ax = axes[1]
    for name in list(res["patterns"]) + ["buffer_floor"]:
        ax.plot([r["bytes"] for r in res["busy"]], [r[name] for r in res["busy"]], marker="o", label=name)
    ax.axhline(res["busy_ms"], color="gray", ls="--", lw=0.8)
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="bytes",
        ylabel="host ms / call",
        title=f"(b) {res['busy_ms']:.0f} ms queued on the stream",
    )
    ax.legend(fontsize=8)
    ax = axes[2]
    for name in res["patterns"]:
        ax.plot([r["bytes"] for r in res["throughput"]], [r[name] for r in res["throughput"]], marker="o", label=name)
    ax.plot(
        [r["bytes"] for r in res["throughput"]],
        [r["pinned_dma_limit"] for r in res["throughput"]],
        "k--",
        label="pinned DMA limit",
    )
    if all("host_copy_rate" in r for r in res["throughput"]):
        ax.plot(
            [r["bytes"] for r in res["throughput"]],
            [r["host_copy_rate"] for r in res["throughput"]],
            "k:",
            label="host copy alone (pageable -> pinned)",
        )
    ax.set(xscale="log", xlabel="bytes", ylabel="GB/s", title="(c) steady-state throughput")
    ax.legend(fontsize=8)
    fig.suptitle(f"H2D patterns on {res['gpu']}, torch {res['torch']}, {res['date'][:10]}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    """``python bench/bench_report.py RUN.json [RUN.json ...]``: each run's count of met checks, then, over the runs,
    the checks met in every run, in none, and split, with each split or unmet check's values against its limits."""
    import argparse
    import json
    from pathlib import Path

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("runs", nargs="+", help="the bench's results.json of each run (docs/records/bench/*.json)")
    args = ap.parse_args(argv)
    runs = [json.loads(Path(path).read_text()) for path in args.runs]
    for path, res in zip(args.runs, runs):
        got = criteria(res)
        print(
            f"{path}: {sum(c['ok'] for c in got)} of {len(got)} met, {sum('out_of_reach' in c for c in got)} out of reach"
        )
    rows = agreement(runs)
    n = len(runs)
    every, none = sum(r["met"] == n for r in rows), sum(r["met"] == 0 for r in rows)
    print(f"over {n} runs: {every} met in every run, {none} in none, {len(rows) - every - none} split")
    for r in rows:
        if r["met"] < n:
            pairs = ", ".join(
                "-" if v is None or lim is None else f"{v:.4g}/{lim:.4g}" for v, lim in zip(r["values"], r["limits"])
            )
            reach = f"; out of reach in {r['out_of_reach']}" if r["out_of_reach"] else ""
            print(f"  met {r['met']} of {n}{reach}: {r['check']}  (value/limit: {pairs})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
