#!/usr/bin/env bash
# One model's multi-stream replay with and without the convolution epilogues, each recorded with the
# collector (the model's own run and 5 replays of each mode in one database per side) and its captured
# graphs written as dot, for a kernel-by-kernel comparison of the two multi-stream replays
# (bench/diag/replay_kernel_diff.py). Exits 1 when either nimble-accelerate run fails.
#   bash bench/diag/multi_epilogues.sh BUILD_DIR OUT_DIR [MODEL] [DTYPE]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=${1:?usage: multi_epilogues.sh BUILD_DIR OUT_DIR [MODEL] [DTYPE]}
out=${2:?usage: multi_epilogues.sh BUILD_DIR OUT_DIR [MODEL] [DTYPE]}
model=${3:-resnet50} dtype=${4:-float32}
mkdir -p "$out/models"
python3 bench/zoo_bench.py export "$model" "$dtype" "$out/models" >"$out/export.log" 2>&1 || { cat "$out/export.log"; exit 1; }
inputs=$(python3 -c "import json,sys;print(' '.join('--input ' + t for t in json.load(open(sys.argv[1]))['inputs']))" \
  "$out/models/$model-$dtype.json")
status=0
for side in epilogues separate; do
  rm -f "$out/$model-$dtype-$side.db"*  # a database of an earlier run would hold its graphs too
  flag=""; [ $side = separate ] && flag=--no-conv-epilogues
  # shellcheck disable=SC2086
  "$build/cli/nimble-accelerate" "$out/models/$model-$dtype.pt2" $inputs $flag --mode multi --iters 200 \
    --db "$out/$model-$dtype-$side.db" --record-replays 5 --dump-graphs "$out/dots-$side" \
    -o "$out/$model-$dtype-$side.nimble" >"$out/$model-$dtype-$side.txt" 2>&1
  rc=$?
  [ $rc -ne 0 ] && status=1
  echo "$side: exit $rc"; tail -25 "$out/$model-$dtype-$side.txt"
done
rm -rf "$out/models" "$out"/*.nimble
exit $status
