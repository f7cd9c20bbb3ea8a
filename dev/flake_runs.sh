#!/usr/bin/env bash
# Flake-rate measurement: run the suite N times with seeds 1..N from a clean example
# database; rerun any failing seed once to tell a reproducible failure from a flaky one.
# Usage: dev/flake_runs.sh N OUT.md [extra pytest args]   (from the repo root, venv active)
set -u
N=${1:-20}; OUT=${2:-docs/records/flake/cpu.md}; shift 2 || true
rows=(); flaky=0; reproducible=0
for seed in $(seq 1 "$N"); do
  rm -rf .hypothesis
  start=$(date +%s)
  line=$(python -m pytest -n auto -p no:cacheprovider -q --hypothesis-seed="$seed" "$@" 2>&1 | tail -1)
  rc=${PIPESTATUS[0]}
  secs=$(( $(date +%s) - start ))
  verdict="pass"
  if ! echo "$line" | grep -q " passed" || echo "$line" | grep -qE "[0-9]+ (failed|error)"; then
    rm -rf .hypothesis
    again=$(python -m pytest -n auto -p no:cacheprovider -q --hypothesis-seed="$seed" "$@" 2>&1 | tail -1)
    if echo "$again" | grep -qE "[0-9]+ (failed|error)"; then verdict="fails again with the same seed (reproducible)"; reproducible=$((reproducible+1))
    else verdict="FLAKY (passed on rerun: $again)"; flaky=$((flaky+1)); fi
  fi
  rows+=("| $seed | $secs | $line | $verdict |")
  echo "seed $seed: $line ($secs s) $verdict"
done
{
  echo "# Flake-rate run: $N full runs, seeds 1..$N"
  echo
  echo "- date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ); machine: $(nproc) cores; $(python -c 'import torch;print("torch", torch.__version__)')"
  echo "- command per run: \`python -m pytest -n auto -p no:cacheprovider -q --hypothesis-seed=SEED $*\` from an empty example database"
  echo "- flaky failures (failed, then passed with the same seed): **$flaky**; reproducible failures: **$reproducible**"
  echo
  echo "| seed | seconds | result line | verdict |"
  echo "|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} > "$OUT"
echo "flaky=$flaky reproducible=$reproducible"
