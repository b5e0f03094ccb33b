#!/usr/bin/env bash
# The accelerated run recorded, on the GPU machine: for each exported sample model (default
# inception_v3), nimble-accelerate with --db into a new database, so that it records the model itself
# (its eager run, op by op), then --record-replays N replays of the single- and multi-stream graphs; and
# nimble-prof report of the three runs. Writes markdown to stdout (command, GPU, nimble-accelerate's
# table, the report of each run) and leaves <out>/<model>_compare.db for nimble-gui (the README picture:
# nimble-gui --screenshot, see bench/results/recorded_compare.md).
#   bench/recorded_compare.sh BUILD_DIR OUT_DIR [--models "inception_v3 ..."] [--replays N]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: recorded_compare.sh BUILD_DIR OUT_DIR [--models LIST] [--replays N]}
out=${2:?usage: recorded_compare.sh BUILD_DIR OUT_DIR [--models LIST] [--replays N]}
shift 2
models=inception_v3 replays=10
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=$2; shift ;;
    --replays) replays=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$out/recorded_compare.log
mkdir -p "$out"
python3 samples/models/export_models.py --out "$tmp/models" --device cuda --models $models >>"$log" 2>&1 \
  || { echo "model export failed; see $log" >&2; exit 1; }
shape_of() { python3 -c "import json;m=json.load(open('$tmp/models/manifest.json'))['models']['$1'];print('x'.join(map(str,m['input_shape'])))"; }
echo "# The accelerated run recorded"
echo
echo "$(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
for model in $models; do
  shape=$(shape_of "$model")
  db=$out/${model}_compare.db
  rm -f "$db" "$db"-*
  command=("$build/cli/nimble-accelerate" "$tmp/models/$model.pt" --input "$shape" --iters 200 --db "$db"
           --record-replays "$replays" -o "$tmp/$model.nimble")
  echo
  echo "## $model"
  echo
  echo "\`nimble-accelerate models/$model.pt --input $shape --iters 200 --db ${model}_compare.db --record-replays $replays -o $model.nimble\`"
  echo
  if ! "${command[@]}" >"$tmp/table.txt" 2>>"$log"; then
    echo "nimble-accelerate failed; see recorded_compare.log"
    cat "$tmp/table.txt" >>"$log"
    continue
  fi
  cat "$tmp/table.txt"
  echo
  echo "\`nimble-prof report --no-store ${model}_compare.db\`:"
  echo
  echo '```'
  "$build/cli/nimble-prof" report --no-store "$db" 2>&1
  echo '```'
  rm -f "$db"-wal "$db"-shm
done
