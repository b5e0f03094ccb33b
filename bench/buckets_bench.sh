#!/usr/bin/env bash
# Several input shapes per model.nimble on the GPU machine, in one job: for each exported sample model,
# nimble-accelerate --batch-sizes (BATCHES, default 1,2,4,8) --json (each bucket recorded for its own
# prediction, captured single- and multi-stream, checked and timed), then nimble-run of the written
# model.nimble with its buckets in one shared pool and with a pool each (--separate-pools).
# JSON and nimble-run output go to <out>/<model>.*; bench/buckets_table.py makes the tables of
# bench/results/memory.md's bucket section. Logs: <out>/buckets_bench.log.
#   bench/buckets_bench.sh BUILD_DIR OUT_DIR [--models "inception_v3 googlenet"]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: buckets_bench.sh BUILD_DIR OUT_DIR [--models LIST]}
out=${2:?usage: buckets_bench.sh BUILD_DIR OUT_DIR [--models LIST]}
shift 2
models="inception_v3 googlenet"
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
batches=${BATCHES:-1,2,4,8}
iters=${BENCH_ITERS:-200}
mkdir -p "$out/models"
log=$out/buckets_bench.log
python3 samples/models/export_models.py --out "$out/models" --device cuda --models $models >>"$log" 2>&1 \
  || { echo "model export failed; see $log" >&2; exit 1; }
shape_of() { python3 -c "import json;m=json.load(open('$out/models/manifest.json'))['models']['$1'];print('x'.join(map(str,m['input_shape'])))"; }
for model in $models; do
  shape=$(shape_of "$model")
  echo "=== $model $shape --batch-sizes $batches" >>"$log"
  start=$SECONDS
  "$build/cli/nimble-accelerate" "$out/models/$model.pt" --input "$shape" --batch-sizes "$batches" --iters "$iters" \
    -o "$out/$model.nimble" --json >"$out/$model.buckets.json" 2>>"$log" \
    || { echo "nimble-accelerate failed for $model" >>"$log"; continue; }
  echo $((SECONDS - start)) >"$out/$model.accelerate_seconds"
  "$build/cli/nimble-run" "$out/$model.nimble" --iters "$iters" >"$out/$model.run_shared.txt" 2>>"$log" \
    || echo "nimble-run failed for $model" >>"$log"
  "$build/cli/nimble-run" "$out/$model.nimble" --iters "$iters" --separate-pools >"$out/$model.run_separate.txt" 2>>"$log" \
    || echo "nimble-run --separate-pools failed for $model" >>"$log"
  ls -l "$out/$model.nimble" "$out/models/$model.pt" >>"$log"
  rm -f "$out/$model.nimble"
done
python3 bench/buckets_table.py "$out" --models $models
