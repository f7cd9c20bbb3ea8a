#!/usr/bin/env bash
# One lease, everything GPU: the suite (junit + kill table), the benchmark, the bad-input
# table on CUDA. Leaves results.tgz plus readable summaries in $OUT.
set -u -o pipefail
OUT=${OUT:-/tmp/h2d_out}
W=$(mktemp -d)
export PYTHONUNBUFFERED=1 H2D_KILL_TABLE=$W/kill_table_gpu.md
stamp=$(date -u +%Y%m%dT%H%M%SZ)
nvidia-smi -L > "$W/nvidia-smi.txt" 2>&1
OUT=$W bash tools/gpu_suite.sh "$@" > "$W/suite_console.txt" 2>&1; echo "suite rc=$?"
tail -3 "$W/log-reference.txt"
mkdir -p "$W/bench"
timeout 300 python3 bench/h2d_bench.py --out "$W/bench" > "$W/bench/console.txt" 2>&1; echo "bench rc=$?"
timeout 120 python3 tools/bad_input_table.py --out "$W/bad_inputs_gpu.md" > /dev/null 2>&1; echo "bad-input rc=$?"
tar -C "$W" -czf "$OUT/results.tgz" .
cp "$W/summary.md" "$OUT/summary.md" 2>/dev/null
cp "$W/bench/results.md" "$OUT/bench_results.md" 2>/dev/null
cp "$W/bench/h2d_bench.png" "$OUT/h2d_bench.png" 2>/dev/null
echo "stamp $stamp"
