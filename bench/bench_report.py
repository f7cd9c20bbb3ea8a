"""The bench's verdicts and report: pure functions of the measured rows (results.json), no GPU needed.

``criteria`` checks the rows against the performance criteria (docs/performance.md),
``write_markdown`` writes results.md and ``plot`` h2d_bench.png. Apart from the
measurement (``h2d_bench.py``) so that a recorded run's verdicts and tables can be
recomputed on any machine (tests/meta/test_bench_report.py).
"""

from __future__ import annotations

from typing import Any

__all__ = ["criteria", "plot", "write_markdown"]


def _check(check: str, value: float, limit: float, *, at_least: bool = False) -> dict[str, Any]:
    """One verdict row: ``value <= limit`` (host time), or ``value >= limit`` with ``at_least`` (throughput)."""
    return {"check": check, "value": value, "limit": limit, "ok": value >= limit if at_least else value <= limit}


def criteria(res: dict) -> list[dict]:
    """The performance criteria, row by row: each check with the two numbers it compares and pass/fail.

    - reference <= vLLM in every row of (a), (b) and (c) (host time: lower is better;
      throughput: higher is better), when vLLM was measured;
    - (a) tensor and ndarray inputs within 1.5x the ``copy_to_gpu`` floor;
    - (c) from 4 MiB up, at least 85% of the pinned DMA limit of the same run;
    - (b), (d) and (e) host time within 1 ms + 1.2x a host-to-pinned copy of the same bytes
      ((e) measures that copy; (b) and (d) use (e)'s copy of the same size when there is one);
    - (d) reference <= vLLM behind the busy stream for every pinned layout.
    """
    out = []
    vllm = "vllm" in res["patterns"]
    bound = " reference <= 1 ms + 1.2x host-to-pinned (ms)"
    for r in res["small"]:
        what = f"(a) n={r['n']} {r['kind']}"
        if vllm:
            out.append(_check(f"{what}: reference <= vllm (us)", r["reference"], r["vllm"]))
        if r["kind"] in ("tensor", "ndarray"):
            out.append(_check(f"{what}: reference <= 1.5x floor (us)", r["reference"], 1.5 * r["buffer_floor"]))
    copy_ms = {r["bytes"]: r["host_to_pinned_ms"] for r in res.get("cold", [])}
    for r in res["busy"]:
        what = f"(b) {r['bytes']:,} B busy:"
        if vllm:
            out.append(_check(f"{what} reference <= vllm (ms)", r["reference"], r["vllm"]))
        if r["bytes"] in copy_ms:
            out.append(_check(what + bound, r["reference"], 1.0 + 1.2 * copy_ms[r["bytes"]]))
    for r in res["throughput"]:
        what = f"(c) {r['bytes']:,} B:"
        if vllm:
            out.append(_check(f"{what} reference >= vllm (GB/s)", r["reference"], r["vllm"], at_least=True))
        if r["bytes"] >= 4 << 20:
            lim = 0.85 * r["pinned_dma_limit"]
            out.append(_check(f"{what} reference >= 85% of pinned DMA (GB/s)", r["reference"], lim, at_least=True))
    for r in res.get("layouts", []):
        what = f"(d) {r['layout']}, busy:"
        if vllm:
            out.append(_check(f"{what} reference <= vllm (ms)", r["reference_busy_ms"], r["vllm_busy_ms"]))
        if r["bytes"] in copy_ms:
            out.append(_check(what + bound, r["reference_busy_ms"], 1.0 + 1.2 * copy_ms[r["bytes"]]))
    for r in res.get("cold", []):
        out.append(_check(f"(e) {r['bytes']:,} B cold, busy:" + bound, r["reference"], r["bound_ms"]))
    return out


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


def _small(res: dict) -> list[str]:
    names = list(res["patterns"])
    L = ["## (a) host time per call, idle stream (us, median; ratio to the CpuGpuBuffer.copy_to_gpu floor)", ""]
    L += _table(["n", "kind", "floor", *names])
    for r in res["small"]:
        cells = [f"{r[n]:.1f} ({r[n] / r['buffer_floor']:.1f}x)" for n in names]
        L.append(f"| {r['n']} | {r['kind']} | {r['buffer_floor']:.1f} | " + " | ".join(cells) + " |")
    return L


def _busy(res: dict) -> list[str]:
    names = [*res["patterns"], "buffer_floor"]
    L = [
        "",
        f"## (b) host time per call with {res['busy_ms']:.0f} ms queued on the stream (ms, median of {res['busy_reps']})",
        "",
    ]
    L += _table(["bytes", *names])
    L += [f"| {r['bytes']:,} | " + " | ".join(f"{r[n]:.2f}" for n in names) + " |" for r in res["busy"]]
    return L


def _throughput(res: dict) -> list[str]:
    names = list(res["patterns"])
    L = ["", "## (c) steady-state throughput (GB/s; ratio to the pinned DMA limit measured in this run)", ""]
    L += [
        "host copy: pageable -> preallocated pinned `copy_` alone (`host_copy_gbps`), which every staged pattern pays per call",
        "",
    ]
    L += _table(["bytes", "limit", "host copy", *names])
    for r in res["throughput"]:
        lim = r["pinned_dma_limit"]
        hc = f"{r['host_copy_rate']:.1f}" if "host_copy_rate" in r else "-"
        cells = " | ".join(f"{r[n]:.1f} ({r[n] / lim:.0%})" for n in names)
        L.append(f"| {r['bytes']:,} | {lim:.1f} | {hc} | {cells} |")
    return L


def _layouts(res: dict) -> list[str]:
    if not res.get("layouts"):
        return []
    names = list(res["patterns"])
    L = ["", f"## (d) pinned layouts, 16 MiB: host us idle / host ms behind {res['busy_ms']:.0f} ms queued", ""]
    L += _table(["layout", *names])
    for r in res["layouts"]:
        cells = " | ".join(f"{r[n + '_idle_us']:.0f} us / {r[n + '_busy_ms']:.2f} ms" for n in names)
        L.append(f"| {r['layout']} | {cells} |")
    return L


def _cold(res: dict) -> list[str]:
    if not res.get("cold"):
        return []
    names = [n for n in res["patterns"] if n != "naive"]
    emptied = "" if all(r["cache_emptied"] for r in res["cold"]) else " (NOT emptied: torch lacks _host_emptyCache)"
    L = ["", f"## (e) first call behind {res['busy_ms']:.0f} ms queued, cold caching host allocator{emptied} (ms)", ""]
    L += _table(["bytes", "host-to-pinned copy", "bound (1 ms + 1.2x)", *names])
    for r in res["cold"]:
        cells = " | ".join(f"{r[n]:.2f}" for n in names)
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
    L = ["", f"## Issue 12, item 1: {sum(x['ok'] for x in c)} of {len(c)} checks met", ""]
    L += ["| check | reference | limit | met |", "|---|---|---|---|"]
    L += [f"| {x['check']} | {x['value']:.2f} | {x['limit']:.2f} | {'yes' if x['ok'] else '**no**'} |" for x in c]
    return L


def plot(res: dict, path: str) -> None:
    """h2d_bench.png: (a) host us against elements, (b) host ms behind the busy stream, (c) GB/s with the DMA and host-copy limits."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(18, 5))
    ax = axes[0]
    for name in list(res["patterns"]) + ["buffer_floor"]:
        pts = [(r["n"], r[name]) for r in res["small"] if r["kind"] == "tensor"]
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
