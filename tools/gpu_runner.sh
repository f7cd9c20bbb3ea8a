#!/usr/bin/env bash
# The kit on a one-GPU runner, every stage time-boxed, one small record under $OUT.
#
#   bash tools/gpu_runner.sh verify             # the verification of a commit: every stage below, in two calls' worth
#   bash tools/gpu_runner.sh reference          # the contract suite's GPU tests against the reference, at $SEEDS
#   bash tools/gpu_runner.sh vllm sglang        # the same against vLLM / SGLang (their .py files from $VLLM_TGZ / $SGLANG_TGZ)
#   bash tools/gpu_runner.sh mutants            # the hunt of every GPU mutant of the catalogue, and the GPU meta-tests
#                                               # (a blocking target must end with a verified reproduction in < 60 s)
#   bash tools/gpu_runner.sh timed              # the timed GPU tests $REPEAT times with one worker, $REPEAT times with 4
#   bash tools/gpu_runner.sh heldout            # a held-out GPU round ($ROUND under dev/heldout/) at $SEEDS
#   RELEASE_TGZS="..." bash tools/gpu_runner.sh releases   # Model Runner V2's contracts against earlier vLLM releases
#   bash tools/gpu_runner.sh par reference vllm sglang   # those stages at once, each seed its own runner
#
# "GPU tests" are the tests on the CUDA device (`-k "cuda or gpu or reliability"`: the [cuda]
# parametrisations, tests/test_gpu.py, tests/test_reliability.py); their host halves run in CI.
# Python packages the GPU image lacks come as wheels in .whl/ (docs/gpu.md), setuptools for the kit's
# editable install among them. OMP_NUM_THREADS
# keeps xdist workers from oversubscribing the host.
# Writes $OUT/summary.md (GPU, torch, date, commit, each stage's command, exit and wall time,
# counts) and the JSON the tools read ($OUT/<stage>.json: the report cut to its verdict); the
# full log is $OUT/log.txt. `verify` is `reference vllm sglang mutants timed`.
set -u -o pipefail
OUT=${OUT:-/tmp/h2d_out}; mkdir -p "$OUT"
SEEDS=${SEEDS:-1 2}
ROUND=${ROUND:-r23}
REPEAT=${REPEAT:-10}
VLLM_TGZ=${VLLM_TGZ:-.gpu_carry/vllm-0.33.0-py.tgz}
SGLANG_TGZ=${SGLANG_TGZ:-.gpu_carry/sglang-0.5.23-py.tgz}
WORKERS=${WORKERS:-4}
TT=${TEST_TIMEOUT_S:-120}
SELECT="cuda or gpu or reliability"
#: The timed GPU tests (their verdicts read the stream while work is queued on it).
TIMED="test_non_blocking or test_buffer_non_blocking or test_small_calls_non_blocking or (test_step_loop and cuda) or (test_multi_stream and cuda) or test_snapshot or test_back_to_back or test_pinned_hazard or test_buffer_hazard or test_cap_wait_for_oldest_copy or test_buffer_utils_non_blocking"
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-3}
LOG=$OUT/log.txt; SUMMARY=$OUT/summary.md
if [ -d .whl ] && ! python3 -c "import hypothesis, xdist, pytest_timeout, pytest_repeat" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl >> "$LOG" 2>&1
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
# the kit imports through its install (pyproject's package-dir table): an editable install of this tree,
# offline, with the image's setuptools or one carried in .whl/
if ! python3 -c "import h2d_contracts.harness" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >> "$LOG" 2>&1 \
    || { echo "the kit's editable install failed: see $LOG" | tee -a "$LOG"; exit 3; }
fi
stages=("$@"); [ "${stages[*]}" = verify ] && stages=(reference vllm sglang mutants timed)
if [ "${1:-}" = par ]; then
  # par STAGE...: every stage (and every seed of reference/vllm/sglang) as its own runner, all at once on
  # the one GPU, $WORKERS xdist workers each; then one summary, the JSONs side by side and one log
  shift; pids=(); parts=()
  for st in "$@"; do
    case $st in reference|vllm|sglang) seeds=$SEEDS;; *) seeds=-;; esac
    for s in $seeds; do
      part=$OUT/part-$st-$s; parts+=("$part"); mkdir -p "$part"
      if [ "$s" = - ]; then OUT=$part bash "$0" "$st" > /dev/null 2>&1 &
      else OUT=$part SEEDS=$s ENGINE_SEEDS=$s bash "$0" "$st" > /dev/null 2>&1 & fi
      pids+=($!)
    done
  done
  wait "${pids[@]}"
  { echo "# GPU runner: par $*, finished $(date -u +%Y-%m-%dT%H:%M:%SZ) (the parts ran at once)"; echo
    for part in "${parts[@]}"; do sed -n '3,6p' "$part/summary.md" | sed "s/^- seeds: [^;]*;/- seeds: $SEEDS, one runner each;/"; break; done; echo
    echo "| stage | exit | wall | result | command |"; echo "|---|---|---|---|---|"
    for part in "${parts[@]}"; do grep '^| [a-z]' "$part/summary.md" | grep -v '^| stage'; done; } > "$SUMMARY"
  for part in "${parts[@]}"; do mv "$part"/*.json "$OUT"/ 2>/dev/null; echo "=== $part" >> "$LOG"; cat "$part/log.txt" >> "$LOG"; rm -rf "$part"; done
  cat "$SUMMARY"; exit 0
fi
{
  echo "# GPU runner: ${stages[*]}, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  # H2D_COMMIT: the commit of the tree, when this copy's git metadata is not the tree's (a device tool's copy)
  echo "- commit: ${H2D_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')}"
  echo "- GPUs: $(nvidia-smi -L 2>/dev/null | tr '\n' ';')"
  echo "- $(python3 -c 'import torch, hypothesis, pytest, sys; print(f"torch {torch.__version__} (CUDA {torch.version.cuda}), hypothesis {hypothesis.__version__}, pytest {pytest.__version__}, python {sys.version.split()[0]}")')"
  echo "- seeds: $SEEDS; OMP_NUM_THREADS=$OMP_NUM_THREADS; xdist workers $WORKERS; timed repeats $REPEAT"
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
  local result; result=$(grep -E "[0-9]+ (passed|failed|error|xfailed|skipped)|caught per seed" "/tmp/stage-$name.log" | tail -1 | tr '|' '/')
  local problems; problems=$(grep -E "distinct problems? of" "/tmp/stage-$name.log" | tail -1)
  echo "| $name | $rc$([ $rc = 124 ] && echo ' (time limit)') | $(( $(date +%s) - t0 )) s | $result${problems:+; $problems} | \`$*\` |" >> "$SUMMARY"
  return $rc
}
unpack() {  # unpack TGZ DIR: an engine's Python files, for the source-loading targets (DIR: this runner's own;
  # runners of `par` unpacking into one folder would delete each other's files while the targets read them)
  rm -rf "$2" && mkdir -p "$2" && tar xzf "$1" -C "$2"
}
ENGINE_DIR=$(mktemp -d /tmp/h2d_engine.XXXXXX)
# a reproduction's fresh interpreter (CUDA's start, Triton's compile) ends well inside $VERIFY_TIMEOUT_S; one that does not is
# reported "timed out" with its problem, each problem's seconds are in the report (verify_seconds), and the stage goes on
VT=${VERIFY_TIMEOUT_S:-90}
pytest_gpu=(python3 -m pytest -p no:cacheprovider -q -n "$WORKERS" --timeout "$TT" -o addopts= -rfE -k "$SELECT" --h2d-verify-timeout "$VT")
for mode in "${stages[@]}"; do
  case $mode in
    reference)
      for s in $SEEDS; do stage "reference-seed$s" "${REFERENCE_S:-300}" "${pytest_gpu[@]}" --hypothesis-seed="$s" --h2d-report "$OUT/reference-seed$s" tests; done ;;
    vllm)
      unpack "$VLLM_TGZ" "$ENGINE_DIR/vllm_py"
      for s in ${ENGINE_SEEDS:-20261201}; do
        stage "vllm-seed$s" "${VLLM_S:-300}" env PYTHONPATH="$ENGINE_DIR/vllm_py:${PYTHONPATH:-}" "${pytest_gpu[@]}" --hypothesis-seed="$s" --h2d-impl vllm --h2d-report "$OUT/vllm-seed$s" tests
      done ;;
    sglang)
      unpack "$SGLANG_TGZ" "$ENGINE_DIR/sglang_py"
      for s in ${ENGINE_SEEDS:-20261201}; do
        stage "sglang-seed$s" "${SGLANG_S:-200}" env PYTHONPATH="$ENGINE_DIR/sglang_py:${PYTHONPATH:-}" "${pytest_gpu[@]}" --hypothesis-seed="$s" --h2d-impl sglang --h2d-report "$OUT/sglang-seed$s" tests
      done ;;
    releases)
      # Model Runner V2's contracts (tests/test_buffer_utils.py, its CUDA half: the $SELECT the vllm stage runs)
      # against earlier vLLM releases. Their layout (0.15-0.29) is loaded only where UVA is, and its [cpu] items would
      # hand host tensors to a kernel compiled for the GPU, which vLLM never does; the CPU halves are CI's.
      # Each release from its slim source tarball in $RELEASE_TGZS (vllm-X-slim.tgz: the files the target reads),
      # all at once (each its own $WORKERS workers); each record is cut by tools/releases.py's slim to
      # $OUT/vllm-X.json, the matrix's input (python tools/releases.py matrix --gpu DIR)
      rpids=()
      for tgz in ${RELEASE_TGZS:-}; do
        v=$(basename "$tgz" | sed -E 's/^vllm-([0-9.]+)-.*/\1/')
        unpack "$tgz" "$ENGINE_DIR/vllm-$v"
        ( stage "vllm-$v" "${RELEASE_S:-300}" env PYTHONPATH="$ENGINE_DIR/vllm-$v:${PYTHONPATH:-}" python3 -m pytest -p no:cacheprovider -q -n "$WORKERS" --timeout "$TT" -o addopts= -rfE --hypothesis-seed="${ENGINE_SEEDS:-20261201}" --h2d-impl vllm --h2d-verify-timeout "$VT" --h2d-report "$ENGINE_DIR/report-vllm-$v" -k "$SELECT" tests/test_buffer_utils.py
          python3 -c "import sys; sys.path.insert(0, 'tools'); from pathlib import Path; from releases import slim; slim(Path(sys.argv[1]), Path(sys.argv[2]))" "$ENGINE_DIR/report-vllm-$v.json" "$OUT/vllm-$v.json" >> "$LOG" 2>&1 ) &
        rpids+=($!)
      done
      wait "${rpids[@]}" ;;
    mutants)
      names=$(python3 -c 'from h2d_contracts.contracts.mutants import MUTANTS; print(" or ".join(n for n, m in MUTANTS.items() if m.needs == "cuda"))')
      stage mutants "${MUTANTS_S:-300}" python3 -m pytest -p no:cacheprovider -q -n "$WORKERS" --timeout 240 -o addopts= -rfE tests/meta/test_mutants.py -k "$names"
      stage meta-gpu "${META_S:-120}" python3 -m pytest -p no:cacheprovider -q -o addopts= -rfE -m gpu tests/meta ;;
    timed)
      # the timed tests $REPEAT times each against the reference (pytest-repeat's --count, one process): alone on
      # the GPU (no xdist), then four workers sharing it; every repetition must pass
      stage timed-w1 "${TIMED_S:-420}" python3 -m pytest -p no:cacheprovider -p repeat -q -n 0 --count "$REPEAT" --timeout "$TT" -o addopts= -rfE -k "$TIMED" --hypothesis-seed=1 tests/test_gpu.py tests/test_engine.py
      stage timed-w4 "${TIMED_S:-420}" python3 -m pytest -p no:cacheprovider -p repeat -q -n 4 --count "$REPEAT" --timeout "$TT" -o addopts= -rfE -k "$TIMED" --hypothesis-seed=1 tests/test_gpu.py tests/test_engine.py ;;
    heldout)
      # shellcheck disable=SC2086
      stage "heldout-$ROUND" "${HELDOUT_S:-480}" python3 dev/heldout.py "$OUT/heldout-$ROUND.json" dev/heldout "$ROUND" --seeds $SEEDS --jobs "${JOBS:-4}" -k "$SELECT" ${BUGS:+--bugs $BUGS} ${ONLY:+--only $ONLY} ;;
    *) echo "unknown stage $mode" >> "$SUMMARY" ;;
  esac
done
# the reports' markdown and reproductions stay in the log's machine; the JSONs come back, cut to their verdict
find "$OUT" -name "*.repro" -type d -exec rm -rf {} + 2>/dev/null
find "$OUT" -name "*.md" ! -name summary.md -delete 2>/dev/null
python3 - "$OUT" <<'PY'  # a reproduction's script stays behind with its folder: the verdict needs only its flag
import json, pathlib, sys
for path in pathlib.Path(sys.argv[1]).glob("*.json"):
    data = json.loads(path.read_text())
    for test in data.get("tests", {}).values():
        for v in test.get("violations", []):
            v.pop("repro", None)
    path.write_text(json.dumps(data, indent=0, default=str) + "\n")
PY
cat "$SUMMARY"
