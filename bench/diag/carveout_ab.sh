#!/usr/bin/env bash
# The shared-memory carveout of the captured kernel nodes without shared memory (--smem-carveout): each
# kernel's own (keep) against PERCENT, or against nimble-accelerate's default with PERCENT "measured" (the
# multi-stream schedule captured both ways, the faster kept). nimble-accelerate on each model's .pt2
# (bench/zoo_bench.py export), once each way in processes of their own, the order alternating from model to
# model so that neither always runs first. One line per model and dtype: single- and multi-stream measured
# and predicted ms both ways, and the kernel nodes set (with "measured": the carveout kept and the other's
# time); nimble-accelerate's JSON to OUT_DIR/carveout.jsonl.
#   bash bench/diag/carveout_ab.sh BUILD_DIR OUT_DIR [PERCENT|measured] [--models "..."] [--dtypes "..."]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=${1:?usage: carveout_ab.sh BUILD_DIR OUT_DIR [PERCENT|measured] [--models ...] [--dtypes ...]}
out=${2:?usage: carveout_ab.sh BUILD_DIR OUT_DIR [PERCENT|measured] [--models ...] [--dtypes ...]}
shift 2
percent=100
[ $# -gt 0 ] && [ "${1#--}" = "$1" ] && { percent=$1; shift; }
models="resnet50 inception_v3 gpt2 moe" dtypes="float32 bfloat16"
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=$2; shift ;;
    --dtypes) dtypes=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out/models"
log=$out/carveout_ab.log
iters=${BENCH_ITERS:-200}
cells() {  # JSON -> "single (err) | multi (err)"
  python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("failed | failed"); sys.exit()
def cell(m):
    if not m or not m.get("measured_ms"):
        return "-"
    return f"{m['measured_ms']:.3f} ({(m['predicted_ms'] / m['measured_ms'] - 1) * 100:+.1f} %)"
print(f"{cell(d['single'])} | {cell(d.get('multi'))}")
PY
}
echo "Carveout A/B, $(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)," \
     "batch 1, median of $iters (ms; prediction error in brackets)"
echo "command: bash bench/diag/carveout_ab.sh BUILD OUT $percent --models \"$models\" --dtypes \"$dtypes\""
echo
echo "| model | dtype | first | keep: single | keep: multi | $percent: single | $percent: multi | kernel nodes set (single / multi) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
n=0
for model in $models; do
  for dtype in $dtypes; do
    python3 bench/zoo_bench.py export "$model" "$dtype" "$out/models" >>"$log" 2>&1
    info=$out/models/$model-$dtype.json
    file=$out/models/$model-$dtype.pt2
    [ -f "$file" ] || { echo "| $model | $dtype | export failed | | | | | |"; continue; }
    inputs=$(python3 -c "import json;print(' '.join('--input ' + t for t in json.load(open('$info'))['inputs']))")
    order="keep $percent"
    [ $((n % 2)) -eq 1 ] && order="$percent keep"
    n=$((n + 1))
    for c in $order; do
      flag="--smem-carveout $c"
      [ "$c" = measured ] && flag=""
      # shellcheck disable=SC2086
      "$build/cli/nimble-accelerate" "$file" $inputs --iters "$iters" --json $flag \
        -o "$out/$model-$dtype-$c.nimble" >"$out/$model-$dtype-$c.json" 2>>"$log" \
        || echo "nimble-accelerate --smem-carveout $c failed for $file" >>"$log"
      { tr -d '\n' <"$out/$model-$dtype-$c.json"; echo; } >>"$out/carveout.jsonl"
      rm -f "$out/$model-$dtype-$c.nimble"
    done
    nodes=$(python3 -c "
import json
d = json.load(open('$out/$model-$dtype-$percent.json'))
m = d.get('multi') or {}
text = '%s / %s' % (d['single'].get('carveout_nodes', '-'), m.get('carveout_nodes', '-'))
if m.get('carveout_alternate_ms', -1) > 0:
    text += ' (kept %s; %s: %.3f ms)' % (m['smem_carveout'], m['carveout_alternate'], m['carveout_alternate_ms'])
print(text)" 2>/dev/null || echo -)
    echo "| $model | $dtype | ${order%% *} | $(cells "$out/$model-$dtype-keep.json") | $(cells "$out/$model-$dtype-$percent.json") | $nodes |"
  done
done
