#!/usr/bin/env bash
# The recordings behind the concurrency calibration (bench/results/concurrency.md), made on the GPU
# machine in one command: for each case MODEL[:BATCH[:DTYPE]], nimble-accelerate with --db into a new
# database, so that the database holds the model's own recording (eager, op by op: the kernels the
# prediction starts from), the stream assignment, nimble-accelerate's measured and predicted latencies,
# and --record-replays N recorded replays of the single- and the multi-stream graph (how the kernels
# really overlapped). `nimble-prof calibrate` fits the concurrency model to these databases on any machine.
# Sample models come from samples/models/export_models.py (batch set on dimension 0), the transformers
# (`moe`, `gpt2`, `vit_b_16`, `bert_base`) and the float16 / bfloat16 cases of the CNNs it builds
# (e.g. `nasnetalarge:1:float16`) from bench/zoo_bench.py (a .pt2 at batch 1). A fourth field gives
# nimble-accelerate's --memory-format (`nasnetalarge:1:bfloat16:channels_last`; the case's name ends in
# it). Writes one line per case to stdout and <out>/<case>.db, <case>.json (nimble-accelerate --json),
# concurrency_data.log.
# --until EPOCH_S: the first case starts if at least 30 s are left, a later one only if the longest case so
# far would end before then, and a case still running 25 s after it is stopped and its database removed,
# so that a device call ends in time to pack what was recorded. Exits 1 when cases ran and none was recorded.
#   bench/concurrency_data.sh BUILD_DIR OUT_DIR [--cases "googlenet:1 moe:1:bfloat16 ..."] [--replays N] [--until EPOCH_S]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: concurrency_data.sh BUILD_DIR OUT_DIR [--cases LIST] [--replays N]}
out=${2:?usage: concurrency_data.sh BUILD_DIR OUT_DIR [--cases LIST] [--replays N]}
shift 2
cases="googlenet:1 googlenet:8 inception_v3:1 inception_v3:8 resnet50:1 darts:1 amoebanet:1 nasnet_mobile:1
       nasnetalarge:1 moe:1:float32 moe:1:bfloat16"
replays=5 until=0
while [ $# -gt 0 ]; do
  case $1 in
    --cases) cases=$2; shift ;;
    --replays) replays=$2; shift ;;
    --until) until=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out"
out=$(realpath "$out")
log=$out/concurrency_data.log
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

is_zoo() { case $1 in moe | gpt2 | vit_b_16 | bert_base) return 0 ;; esac; return 1; }
# A half-precision case of a sample CNN comes from bench/zoo_bench.py too (batch 1): export_models.py
# writes float32 TorchScript only.
from_zoo() { is_zoo "$1" || [ "${2:-float32}" != float32 ]; }
samples=()
for c in $cases; do
  IFS=: read -r m _ d _ <<<"$c"
  from_zoo "$m" "$d" || samples+=("$m")
done
if [ ${#samples[@]} -gt 0 ]; then
  python3 samples/models/export_models.py --out "$tmp/models" --device cuda --models $(printf '%s\n' "${samples[@]}" | sort -u) \
    >>"$log" 2>&1 || { echo "model export failed; see $log" >&2; exit 1; }
fi
shape_of() {
  python3 -c "import json;m=json.load(open('$tmp/models/manifest.json'))['models']['$1'];s=m['input_shape'];s[0]=$2;print('x'.join(map(str,s)))"
}

echo "$(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
longest=30 ran=0 recorded=0  # until a case has run: the least time worth starting one
for c in $cases; do
  IFS=: read -r model batch dtype format <<<"$c"
  batch=${batch:-1} dtype=${dtype:-float32}
  name=${model}_b${batch}_${dtype}${format:+_$format}
  started=$(date +%s)
  if [ "$until" -gt 0 ] && [ $((started + longest)) -gt "$until" ]; then
    echo "$name: not recorded, the call's time would run out (--until)"
    continue
  fi
  if from_zoo "$model" "$dtype"; then
    [ "$batch" = 1 ] || { echo "$name: models from bench/zoo_bench.py run at batch 1 only"; continue; }
    python3 bench/zoo_bench.py export "$model" "$dtype" "$tmp/zoo" >>"$log" 2>&1 || { echo "$name: export failed"; continue; }
    args=("$tmp/zoo/$model-$dtype.pt2")
  else
    args=("$tmp/models/$model.pt" --input "$(shape_of "$model" "$batch")")
  fi
  [ -n "$format" ] && args+=(--memory-format "$format")
  db=$out/$name.db
  rm -f "$db" "$db"-*
  echo "=== $name: nimble-accelerate ${args[*]} --iters 200 --db $name.db --record-replays $replays --json" >>"$log"
  limit=300
  if [ "$until" -gt 0 ]; then
    limit=$((until + 25 - $(date +%s)))
    [ "$limit" -gt 300 ] && limit=300
    [ "$limit" -lt 1 ] && limit=1
  fi
  ran=$((ran + 1))
  timeout "$limit" "$build/cli/nimble-accelerate" "${args[@]}" --iters 200 --db "$db" --record-replays "$replays" \
    --json -o "$tmp/$name.nimble" >"$out/$name.json" 2>>"$log"
  rc=$?
  if [ $rc -eq 0 ]; then
    recorded=$((recorded + 1))
    python3 - "$out/$name.json" "$name" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
parts = []
for key in ("single", "multi"):
    m = r.get(key) or {}
    if m.get("measured_ms"):
        parts.append(f"{key} {m['measured_ms']:.3f} ms (predicted {m['predicted_ms']:.3f}, {m.get('streams', 1)} streams)")
print(f"{sys.argv[2]}: " + "; ".join(parts))
EOF
  elif [ $rc -eq 124 ]; then
    rm -f "$db" "$out/$name.json"
    echo "$name: stopped after ${limit} s, its database removed (the call's time ran out, or the case's 300 s)"
  else
    echo "$name: nimble-accelerate failed (see concurrency_data.log)"
  fi
  rm -f "$db"-wal "$db"-shm "$tmp/$name.nimble"
  took=$(($(date +%s) - started))
  if [ "$took" -gt "$longest" ]; then longest=$took; fi
done
[ "$ran" -eq 0 ] || [ "$recorded" -gt 0 ]
