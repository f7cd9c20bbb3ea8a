#!/usr/bin/env bash
# Run the whole suite on a CUDA machine and leave junit XML + logs + a summary in $OUT.
# Usage (on the GPU machine, repo root): bash tools/gpu_suite.sh [extra pytest args]
set -u -o pipefail
OUT=${OUT:-reports/gpu/latest}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
stamp=$(date -u +%Y%m%dT%H%M%SZ)
nvidia-smi -L > "$OUT/nvidia-smi.txt" 2>&1
python3 -m pytest -n auto -p no:cacheprovider --junitxml="$OUT/junit-reference.xml" -rs "$@" 2>&1 | tee "$OUT/log-reference.txt"
rc=$?
python3 tools/junit_summary.py "$OUT/summary.md" "$OUT/junit-reference.xml" --title "GPU suite, target reference, $stamp"
exit $rc
