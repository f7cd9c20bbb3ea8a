#!/usr/bin/env bash
# A smoke run of chosen GPU tests against the reference, vLLM and SGLang, and a hunt of chosen GPU mutants,
# beside an optional held-out GPU round: for a first look at new GPU checks before a commit's verification.
#   K="test_hygiene or ..." MUTANTS="a or b" OUT=... [ROUND=r38 BUGS="..."] bash dev/gpu_smoke.sh
set -u
OUT=${OUT:-/tmp/h2d_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . > /dev/null 2>&1
if [ -n "${ROUND:-}" ]; then
  timeout -s INT 500 python3 dev/heldout.py "$OUT/heldout-$ROUND.json" dev/heldout "$ROUND" --seeds 1 2 --jobs "${JOBS:-8}" \
    -k "cuda or gpu or reliability" --bugs $BUGS > "$OUT/heldout.log" 2>&1 &
  hpid=$!
fi
E=/tmp/eng; mkdir -p $E/v $E/s; tar xzf .gpu_carry/vllm-0.33.0-py.tgz -C $E/v; tar xzf .gpu_carry/sglang-0.5.23-py.tgz -C $E/s
run() { local name=$1; shift; echo "=== $name" >> "$OUT/smoke.log"; timeout -s INT "${STAGE_S:-150}" "$@" >> "$OUT/smoke.log" 2>&1; echo "$name rc=$?" | tee -a "$OUT/smoke.log"; }
py=(python3 -m pytest -p no:cacheprovider -q -n 3 --timeout 240 -o addopts= -rfE -k "$K" --hypothesis-seed=1 tests)
run reference "${py[@]}"
run vllm env PYTHONPATH=$E/v:$PYTHONPATH "${py[@]}" --h2d-impl vllm
run sglang env PYTHONPATH=$E/s:$PYTHONPATH "${py[@]}" --h2d-impl sglang
run mutants python3 -m pytest -p no:cacheprovider -q -n 3 --timeout 240 -o addopts= -rfE -s tests/meta/test_mutants.py -k "$MUTANTS"
grep -E "KILLED|passed|failed|^FAILED|^\[" "$OUT/smoke.log" | cut -c1-300 | tail -40
if [ -n "${ROUND:-}" ]; then wait $hpid; tail -12 "$OUT/heldout.log"; fi
