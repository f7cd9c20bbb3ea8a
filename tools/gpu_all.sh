#!/usr/bin/env bash
# One lease, everything GPU, each stage time-boxed and writing straight into $OUT
# (at most 8 files come back): the suite (junit, log, summary, kill table), then the
# benchmark (results.json/.md, plot, profile).
set -u -o pipefail
OUT=${OUT:-/tmp/h2d_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 H2D_KILL_TABLE=$OUT/kill_table_gpu.md
SUITE_S=${SUITE_S:-330} BENCH_S=${BENCH_S:-170}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
timeout "$SUITE_S" python3 -m pytest -n auto -p no:cacheprovider --junitxml="$OUT/junit-reference.xml" -rs "$@" > "$OUT/log-reference.txt" 2>&1
echo "suite rc=$?"; tail -2 "$OUT/log-reference.txt"
{ nvidia-smi -L; } > /tmp/smi.txt 2>&1
python3 tools/junit_summary.py "$OUT/summary.md" "$OUT/junit-reference.xml" --title "GPU suite, target reference, $stamp" > /dev/null 2>&1
{ echo; echo "nvidia-smi -L:"; sed 's/^/    /' /tmp/smi.txt; echo; echo "command: python3 -m pytest -n auto -p no:cacheprovider --junitxml=... -rs $*"; } >> "$OUT/summary.md"
head -8 "$OUT/summary.md"
timeout "$BENCH_S" python3 bench/h2d_bench.py --out "$OUT" > /tmp/bench_console.txt 2>&1
echo "bench rc=$?"; tail -40 /tmp/bench_console.txt
