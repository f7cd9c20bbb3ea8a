#!/usr/bin/env bash
# Several held-out rounds' GPU bugs measured at once on one GPU host, each round by tools/gpu_runner.sh's
# heldout stage (the standard GPU selection, seeds $SEEDS), then one summary, the rounds' JSONs and one log
# under $OUT (the device tool brings back at most 8 files):
#   OUT=... bash dev/gpu_heldout_rounds.sh r43:4:b00_control,b07_x,b08_y r39:4:b24_z,b25_w ...
# each argument ROUND:JOBS:BUG,BUG,... (JOBS: that round's bugs run at a time; keep the sum near the host's cores).
set -u
OUT=${OUT:-/tmp/h2d_out}; mkdir -p "$OUT"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} HELDOUT_S=${HELDOUT_S:-480}
pids=(); rounds=()
for spec in "$@"; do
  IFS=: read -r round jobs bugs <<< "$spec"
  rounds+=("$round"); mkdir -p "$OUT/part-$round"
  OUT=$OUT/part-$round ROUND=$round JOBS=$jobs BUGS=${bugs//,/ } bash tools/gpu_runner.sh heldout > /dev/null 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
{ sed -n '1,6p' "$OUT/part-${rounds[0]}/summary.md"; echo "- rounds at once: $*"; echo
  echo "| stage | exit | wall | result | command |"; echo "|---|---|---|---|---|"
  for r in "${rounds[@]}"; do grep '^| heldout' "$OUT/part-$r/summary.md"; done; } > "$OUT/summary.md"
for r in "${rounds[@]}"; do
  mv "$OUT/part-$r/heldout-$r.json" "$OUT/" 2>/dev/null
  { echo "=== $r"; cat "$OUT/part-$r/log.txt"; } >> "$OUT/log.txt"; rm -rf "$OUT/part-$r"
done
cat "$OUT/summary.md"; grep -hE "caught|MISSED" "$OUT/log.txt" | sort | cut -c1-220
