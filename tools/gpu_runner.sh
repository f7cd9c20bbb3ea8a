#!/usr/bin/env bash
# The kit on a GPU runner, in one go of at most 9 minutes, every stage time-boxed,
# results in at most 8 files under $OUT (the device tool's limits; README: GPU runners).
#
#   bash tools/gpu_runner.sh suite   # reference suite (meta-tests and GPU mutants included),
#                                    # vLLM 0.33.0 with --h2d-report, the bench. No longer fits one
#                                    # 9-minute call (at 8cdcd4f on one H200: reference 526 s, vLLM
#                                    # 225 s, bench 85 s): run `reference`, then `vllm bench`
#   bash tools/gpu_runner.sh flake   # 5 runs of the GPU contracts (-m gpu + reliability),
#                                    # seeds 1..5, each with an empty private example database
#                                    # (FLAKE_S per seed, default 200 s: at 8cdcd4f 95 s cut each
#                                    # seed after 19 tests; FLAKE_SEEDS="0 1" for fewer)
#   bash tools/gpu_runner.sh vllm    # the vLLM stage alone
#   bash tools/gpu_runner.sh reference   # the reference suite alone (no vLLM, no bench)
#   bash tools/gpu_runner.sh bench   # the bench alone, vLLM importable, with its plot and profile
#   bash tools/gpu_runner.sh hunt        # the mutant catalogue's hunt (tests/test_mutants.py) alone
#   bash tools/gpu_runner.sh mutation    # mutmut's mutants of the device half (tools/gpu_mutation.py)
#   bash tools/gpu_runner.sh downstream  # the kit as a wheel (.gpu_carry/h2d_contracts-*.whl, unpacked
#                                    # on PYTHONPATH) run from examples/tinyengine copied out of the
#                                    # checkout: the packaged suite against tinyengine on the GPU
# More than 8 files under $OUT: all but summary.md and log.txt go into $OUT/results.tgz.
#   bash tools/gpu_runner.sh vllm internals flake   # several modes in one go, in that order
#                                    # (internals: tests/test_reference_impl.py, the chunked path)
#
# Every pytest stage runs with a per-test limit (--timeout, TEST_TIMEOUT_S, default 90 s;
# the slowest passing test on the H200 took 28 s) below its stage limit, so a hanging test
# is cut off and named by the kit and the stage still ends with its junit XML and report.
#
# vLLM without its compiled kernels (../shared/records/2026-11-30_h200x2_at_370e4cb/README.md):
# its *.py files and dist-info as a tarball at $VLLM_TGZ (default .gpu_carry/vllm-0.33.0-py.tgz,
# carried to the GPU machine), unpacked on PYTHONPATH, plus an empty vllm/_C_stable_libtorch.py.
set -u -o pipefail
MODES=${*:-suite}
MODE=$MODES
TT=${TEST_TIMEOUT_S:-90}
# WORKERS: xdist workers of the vLLM stage (default auto: one per GPU); on a one-GPU runner
# -n 2 shares the GPU between two processes (every GPU check is per process: contexts,
# memory_allocated, busy streams)
OUT=${OUT:-/tmp/h2d_out}; mkdir -p "$OUT"
SEED=${SEED:-20261201}
VLLM_TGZ=${VLLM_TGZ:-.gpu_carry/vllm-0.33.0-py.tgz}
export PYTHONUNBUFFERED=1
LOG=${LOG:-$OUT/log.txt}
SUMMARY=$OUT/summary.md
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
py() { python3 "$@"; }
header() {
  {
    echo "# GPU runner: $MODE, $stamp"
    echo
    # the device tool copies the working tree onto a checkout of an older commit, so its git
    # HEAD is not the code's: pass COMMIT=<sha> from where the command was started
    echo "- commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)')}"
    echo "- GPUs: $(nvidia-smi -L 2>/dev/null | tr '\n' ';')"
    echo "- $(py -c 'import torch, hypothesis, pytest, sys; print(f"torch {torch.__version__} (CUDA {torch.version.cuda}), hypothesis {hypothesis.__version__}, pytest {pytest.__version__}, python {sys.version.split()[0]}")')"
    echo "- seed: $SEED (suite, vLLM); every pytest run with an empty private example database"
    echo
  } > "$SUMMARY"
}
stage() {  # stage NAME SECONDS CMD...: run, time-box, log, record rc and wall time
  local name=$1 secs=$2; shift 2
  local t0=$(date +%s)
  echo "=== $name: $* (limit ${secs}s)" | tee -a "$LOG"
  # SIGINT first: pytest then still writes its junit XML and --h2d-report; SIGKILL 20 s later
  HYPOTHESIS_STORAGE_DIRECTORY=$(mktemp -d) timeout -s INT -k 20 "$secs" "$@" >> "$LOG" 2>&1
  local rc=$?
  local wall=$(( $(date +%s) - t0 ))
  echo "=== $name: exit $rc after ${wall}s" | tee -a "$LOG"
  echo "| $name | $rc$([ $rc = 124 ] && echo ' (time limit)') | ${wall} s | \`$*\` |" >> /tmp/h2d_stages.md
  tail -1 "$LOG"
}
vllm_path() {
  rm -rf /tmp/vllm_py && mkdir -p /tmp/vllm_py && tar xzf "$VLLM_TGZ" -C /tmp/vllm_py && touch /tmp/vllm_py/vllm/_C_stable_libtorch.py
  echo "/tmp/vllm_py"
}
run_vllm() {
  local vp; vp=$(vllm_path) || { echo "no vLLM tarball at $VLLM_TGZ" | tee -a "$LOG"; return; }
  stage vllm "${VLLM_S:-330}" env PYTHONPATH="$vp" python3 -m pytest -n "${WORKERS:-auto}" -p no:cacheprovider -m "not meta" --timeout "$TT" \
    --hypothesis-seed="$SEED" --h2d-impl vllm --h2d-report "$OUT/vllm" --junitxml="$OUT/junit-vllm.xml" -rfE --durations=12
  PYTHONPATH=".:$vp" timeout 60 python3 tools/vllm_gpu_findings.py > /tmp/vllm_findings.md 2>> "$LOG"
}
run_bench() {
  local vp; vp=$(vllm_path) || vp=""
  stage bench "${BENCH_S:-150}" env PYTHONPATH="$vp" python3 bench/h2d_bench.py --out /tmp/bench
  cp /tmp/bench/results.md "$OUT/bench-results.md" 2>/dev/null; cp /tmp/bench/results.json "$OUT/bench-results.json" 2>/dev/null
  cp /tmp/bench/h2d_bench.png "$OUT/bench.png" 2>/dev/null; cp /tmp/bench/profile.txt "$OUT/bench-profile.txt" 2>/dev/null
}
run_downstream() {
  local whl; whl=$(ls .gpu_carry/h2d_contracts-*.whl 2>/dev/null | head -1)
  [ -n "$whl" ] || { echo "no wheel under .gpu_carry/" | tee -a "$LOG"; return; }
  rm -rf /tmp/kit /tmp/tinyengine && python3 -m zipfile -e "$whl" /tmp/kit && cp -r examples/tinyengine /tmp/tinyengine
  echo "downstream: $(cd /tmp/tinyengine && PYTHONPATH=/tmp/kit python3 -c 'import h2d_contracts as k; print(k.__file__, "checkout" if k.CHECKOUT else "installed")')" | tee -a "$LOG"
  ( cd /tmp/tinyengine && stage downstream "${DOWNSTREAM_S:-200}" env PYTHONPATH=/tmp/kit python3 -m pytest -p no:cacheprovider --pyargs h2d_contracts.tests \
      --h2d-impl tinyengine.h2d_target:target -n "${WORKERS:-auto}" --timeout "$TT" --hypothesis-seed="$SEED" \
      --h2d-report "$OUT/tinyengine" --junitxml="$OUT/junit-tinyengine.xml" -rfE )
}
: > /tmp/h2d_stages.md; rm -f /tmp/ref-summary.md /tmp/mut-summary.md /tmp/hunt-summary.md /tmp/flake-summary.md /tmp/int-summary.md /tmp/vllm_findings.md
header
for MODE in $MODES; do
case "$MODE" in
  suite|reference)
    H2D_KILL_TABLE=$OUT/kill_table_gpu.md stage reference "${SUITE_S:-540}" python3 -m pytest -n "${WORKERS:-auto}" -p no:cacheprovider \
      --timeout "$TT" --hypothesis-seed="$SEED" --junitxml="$OUT/junit-reference.xml" -rs --durations=8
    py tools/junit_summary.py /tmp/ref-summary.md "$OUT/junit-reference.xml" --title "reference suite" > /dev/null 2>&1
    [ "$MODE" = reference ] && continue
    run_vllm
    vp=$(vllm_path)
    run_bench
    py tools/junit_summary.py /tmp/ref-summary.md "$OUT/junit-reference.xml" --title "reference suite" > /dev/null 2>&1
    ;;
  internals)
    stage internals "${INTERNALS_S:-90}" python3 -m pytest -p no:cacheprovider -q --timeout "$TT" --hypothesis-seed="$SEED" \
      --junitxml="$OUT/junit-internals.xml" tests/test_reference_impl.py --durations=8
    ;;
  flake)
    for seed in ${FLAKE_SEEDS:-1 2 3 4 5}; do
      stage "flake-seed-$seed" "${FLAKE_S:-200}" python3 -m pytest -n "${WORKERS:-auto}" -p no:cacheprovider -q --timeout "$TT" --hypothesis-seed="$seed" \
        -m "gpu or not meta" --junitxml="$OUT/junit-flake-$seed.xml" tests/test_gpu.py tests/test_reliability.py tests/test_h2d.py tests/test_buffer.py -k "cuda or test_gpu or reliability"
    done
    py tools/junit_summary.py /tmp/flake-summary.md "$OUT"/junit-flake-*.xml --title "GPU contracts, seeds ${FLAKE_SEEDS:-1 2 3 4 5}" > /dev/null 2>&1
    ;;
  vllm)
    run_vllm
    ;;
  bench)
    run_bench
    ;;
  downstream)
    run_downstream
    ;;
  hunt)
    # the mutant catalogue's hunt alone (tests/test_mutants.py: GPU mutants included), with its kill table
    H2D_KILL_TABLE=$OUT/kill_table_gpu.md stage hunt "${HUNT_S:-200}" python3 -m pytest -n "${WORKERS:-auto}" -p no:cacheprovider \
      --timeout "$TT" --hypothesis-seed="$SEED" --junitxml="$OUT/junit-hunt.xml" -rs tests/test_mutants.py ${HUNT_K:+-k "$HUNT_K"}
    py tools/junit_summary.py /tmp/hunt-summary.md "$OUT/junit-hunt.xml" --title "mutant hunt" > /dev/null 2>&1
    ;;
  mutation)
    # the device half of h2d_impl/ under mutmut's mutants (tools/gpu_mutation.py; pack and
    # names made on the CPU machine: GPU_PACK=.gpu_carry/mutants.tgz bash tools/mutation.sh)
    stage mutation "${MUTATION_S:-540}" python3 tools/gpu_mutation.py --pack "${MUTANT_PACK:-.gpu_carry/mutants.tgz}" \
      --names "${MUTANT_NAMES:-reports/mutation/gpu-set-0264e68.txt}" --out "$OUT" --workers "${MUTATION_WORKERS:-12}" \
      --budget-s "${MUTATION_BUDGET_S:-420}" ${MUTATION_DONE:+--done "$MUTATION_DONE"} ${MUTATION_TESTS:+--tests $MUTATION_TESTS} ${MUTATION_K:+-k "$MUTATION_K"}
    { echo "## Mutation run of the device half (tools/gpu_mutation.py)"; echo; echo '```'; grep -E "^(revision|controls:|ran) " "$LOG"; echo '```'; echo; } > /tmp/mut-summary.md
    ;;
esac
done
{
  echo "## Stages"; echo; echo "| stage | exit | wall | command |"; echo "|---|---|---|---|"; cat /tmp/h2d_stages.md; echo
  [ -f /tmp/ref-summary.md ] && sed 's/^# /## /' /tmp/ref-summary.md && echo
  [ -f /tmp/mut-summary.md ] && cat /tmp/mut-summary.md
  [ -f /tmp/hunt-summary.md ] && sed 's/^# /## /' /tmp/hunt-summary.md && echo
  [ -f /tmp/flake-summary.md ] && sed 's/^# /## /' /tmp/flake-summary.md && echo
  [ -f "$OUT/junit-internals.xml" ] && py tools/junit_summary.py /tmp/int-summary.md "$OUT/junit-internals.xml" --title "reference internals (chunked path)" > /dev/null 2>&1 && sed 's/^# /## /' /tmp/int-summary.md && echo
  [ -s /tmp/vllm_findings.md ] && { echo "## vLLM GPU findings, reproduced without the kit (tools/vllm_gpu_findings.py)"; echo; cat /tmp/vllm_findings.md; echo; }
  if [ -f "$OUT/vllm.json" ]; then
    py -c "import json; d=json.load(open('$OUT/vllm.json')); print('## vLLM', d['target_version']); print(); print('totals:', d['totals'], '; exit status', d.get('exitstatus')); print('UNEXPECTED:', [n for n,t in d['tests'].items() if t['status']=='failed']); print('not witnessed:', d.get('unwitnessed_xfails'))"
    # complete? the items xdist collected against the tests the report holds
    items=$(grep -o '\[[0-9]* items\]' "$LOG" | tail -1 | tr -dc 0-9)
    py -c "import json; d=json.load(open('$OUT/vllm.json')); n=len(d['tests']); print(f'tests reported: {n} of ${items:-?} collected' + ('' if str(n) == '${items:-}' else ' (INCOMPLETE)'))"
  fi
  if [ -f "$OUT/tinyengine.json" ]; then
    py -c "import json; d=json.load(open('$OUT/tinyengine.json')); print('## tinyengine (the kit installed as a wheel, examples/tinyengine)'); print(); print('totals:', d['totals'], '; exit status', d.get('exitstatus'), '; xfails file', d.get('xfails_file'))"
  fi
} >> "$SUMMARY"
if [ "$(ls "$OUT" | wc -l)" -gt 8 ]; then
  (cd "$OUT" && tar czf /tmp/results.tgz --exclude=summary.md --exclude=log.txt . && find . -type f ! -name summary.md ! -name log.txt -delete && mv /tmp/results.tgz .)
fi
cat "$SUMMARY"
