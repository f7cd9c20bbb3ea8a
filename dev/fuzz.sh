#!/usr/bin/env bash
# Fuzz campaign: every contract property against TARGET for MINUTES, round after round.
#
#   bash dev/fuzz.sh TARGET MINUTES [CHUNK]
#   bash dev/fuzz.sh reference 10            # 10 minutes against the reference
#   bash dev/fuzz.sh my_fork.adapter:target 60
#   FUZZ_WORKERS=4 bash dev/fuzz.sh reference 30   # 4 independent processes
#
# TARGET is anything --h2d-impl accepts (reference, reference-cpu, module:factory).
# CHUNK: examples per property per round (default 200). Each process writes
# docs/records/fuzz/<UTC time>-<target>[-wN].{json,md}: command, code revision, examples
# requested, calls into the target, per-property counts and every failure with its
# reproduction (the "call:" line and Hypothesis's @reproduce_failure blob). Failing
# examples are also kept in .hypothesis/fuzz (replayed first next time). Exit status 1
# if any property failed. Every new falsifying example becomes a test in
# tests/test_regressions.py (section "found by fuzzing").
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
target=$1 minutes=$2 chunk=${3:-200} workers=${FUZZ_WORKERS:-1}
[ -f .venv/bin/activate ] && . .venv/bin/activate
stamp=$(date -u +%Y%m%dT%H%M%SZ)
name=$(printf '%s' "$target" | tr -c 'A-Za-z0-9_.-' '_')
mkdir -p docs/records/fuzz
pids=() status=0
for ((w = 1; w <= workers; w++)); do
    base=docs/records/fuzz/$stamp-$name
    [ "$workers" -gt 1 ] && base=$base-w$w
    python dev/fuzz.py --target "$target" --minutes "$minutes" --chunk "$chunk" --json "$base.json" --md "$base.md" &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
echo "records: docs/records/fuzz/$stamp-$name*.md"
exit $status
