#!/usr/bin/env bash
# The kit on a one-GPU runner, every stage time-boxed, results in at most 8 files under $OUT.
#
#   bash tools/gpu_runner.sh reference          # the contract suite's GPU tests against the reference, at $SEEDS
#   bash tools/gpu_runner.sh vllm               # the same tests against vLLM (its .py files from $VLLM_TGZ), --h2d-report
#   bash tools/gpu_runner.sh mutants            # the hunt of every GPU mutant of the catalogue
#   bash tools/gpu_runner.sh heldout            # a held-out GPU round ($ROUND under tools/heldout/) at $SEEDS
#   bash tools/gpu_runner.sh reference vllm     # several stages in one go, in that order
#
# "GPU tests" are the tests on the CUDA device (`-k "cuda or gpu or reliability"`: the [cuda]
# parametrisations, tests/test_gpu.py, tests/test_reliability.py); their host halves run in CI.
# Python packages the GPU image lacks (pytest, hypothesis, xdist, timeout) come as wheels in
# .whl/ (docs/gpu.md). OMP_NUM_THREADS keeps xdist workers from oversubscribing the host.
# Writes $OUT/summary.md (GPU, torch, date, each stage's command, exit and wall time, counts)
# and the JSON the tools read ($OUT/<stage>.json); the full log is $OUT/log.txt.
set -u -o pipefail
OUT=${OUT:-/tmp/h2d_out}; mkdir -p "$OUT"
SEEDS=${SEEDS:-1 2}
ROUND=${ROUND:-r23}
VLLM_TGZ=${VLLM_TGZ:-.gpu_carry/vllm-0.33.0-py.tgz}
WORKERS=${WORKERS:-2}
TT=${TEST_TIMEOUT_S:-120}
SELECT="cuda or gpu or reliability"
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
LOG=$OUT/log.txt; SUMMARY=$OUT/summary.md
if [ -d .whl ] && ! python3 -c "import hypothesis, xdist, pytest_timeout" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl >> "$LOG" 2>&1
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
{
  echo "# GPU runner: $*, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "- GPUs: $(nvidia-smi -L 2>/dev/null | tr '\n' ';')"
  echo "- $(python3 -c 'import torch, hypothesis, pytest, sys; print(f"torch {torch.__version__} (CUDA {torch.version.cuda}), hypothesis {hypothesis.__version__}, pytest {pytest.__version__}, python {sys.version.split()[0]}")')"
  echo "- seeds: $SEEDS; OMP_NUM_THREADS=$OMP_NUM_THREADS; xdist workers $WORKERS"
  echo
  echo "| stage | exit | wall | result | command |"
  echo "|---|---|---|---|---|"
} > "$SUMMARY"
stage() {  # stage NAME SECONDS CMD...: run time-boxed (SIGINT first, so pytest still writes its report), log, summarise
  local name=$1 secs=$2; shift 2
  local t0; t0=$(date +%s)
  echo "=== $name: $*" >> "$LOG"
  HYPOTHESIS_STORAGE_DIRECTORY=$(mktemp -d) timeout -s INT -k 20 "$secs" "$@" > "/tmp/stage-$name.log" 2>&1
  local rc=$?
  cat "/tmp/stage-$name.log" >> "$LOG"
  local result; result=$(grep -E "[0-9]+ (passed|failed|error)|caught per seed" "/tmp/stage-$name.log" | tail -1 | tr '|' '/')
  echo "| $name | $rc$([ $rc = 124 ] && echo ' (time limit)') | $(( $(date +%s) - t0 )) s | $result | \`$*\` |" >> "$SUMMARY"
}
pytest_gpu=(python3 -m pytest -p no:cacheprovider -q -n "$WORKERS" --timeout "$TT" -o addopts= -rfE -k "$SELECT")
for mode in "$@"; do
  case $mode in
    reference)
      for s in $SEEDS; do stage "reference-seed$s" "${REFERENCE_S:-300}" "${pytest_gpu[@]}" --hypothesis-seed="$s" --h2d-report "$OUT/reference-seed$s" tests; done ;;
    vllm)
      rm -rf /tmp/vllm_py && mkdir -p /tmp/vllm_py && tar xzf "$VLLM_TGZ" -C /tmp/vllm_py
      stage vllm "${VLLM_S:-300}" env PYTHONPATH="/tmp/vllm_py:${PYTHONPATH:-}" "${pytest_gpu[@]}" --hypothesis-seed=20261201 --h2d-impl vllm --h2d-report "$OUT/vllm" tests ;;
    mutants)
      names=$(python3 -c 'from h2d_contracts.contracts.mutants import MUTANTS; print(" or ".join(n for n, m in MUTANTS.items() if m.needs == "cuda"))')
      stage mutants "${MUTANTS_S:-300}" python3 -m pytest -p no:cacheprovider -q -n "$WORKERS" --timeout 240 -o addopts= -rfE tests/meta/test_mutants.py -k "$names" ;;
    heldout)
      # shellcheck disable=SC2086
      stage "heldout-$ROUND" "${HELDOUT_S:-480}" python3 tools/heldout.py "$OUT/heldout-$ROUND.json" tools/heldout "$ROUND" --seeds $SEEDS --jobs "${JOBS:-4}" -k "$SELECT" ${BUGS:+--bugs $BUGS} ;;
    *) echo "unknown stage $mode" >> "$SUMMARY" ;;
  esac
done
# the reports' markdown and reproductions stay in the log's machine; the JSONs come back
find "$OUT" -name "*.repro" -type d -exec rm -rf {} + 2>/dev/null
find "$OUT" -name "*.md" ! -name summary.md -delete 2>/dev/null
cat "$SUMMARY"
