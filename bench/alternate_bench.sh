#!/usr/bin/env bash
# Nimble's replay against PyTorch's CUDA graph of the same model, in alternating processes. One process
# per side decides nothing when two figures lie within a few percent: a whole process can run slower
# than the next (bench/latency_spread.sh). For each model and dtype of bench/zoo_bench.py this exports
# the .pt2, accelerates it once (nimble-accelerate, its chosen mode), then runs ROUNDS rounds; in each,
# PyTorch's torch.cuda.graph of the nn.Module (`zoo_bench.py torch MODEL DTYPE cudagraph`, CUDA events
# around each replay, timed from Python) and `nimble-run` of the artifact (CUDA events around the input
# copy and the replay, timed in C++: Nimble's figure includes a copy the PyTorch one does not), each
# timing ITERS replays in a new process, PyTorch first in odd rounds and Nimble first in even ones. The
# verdict compares the medians over rounds of each side's per-process median. Prints markdown; logs and
# JSON to OUT_DIR.
#   bench/alternate_bench.sh BUILD_DIR OUT_DIR [--rounds N] [--iters N] [--models "resnet50"] [--dtypes "float32"]
set -uo pipefail
build=$(realpath "${1:?usage: alternate_bench.sh BUILD_DIR OUT_DIR [options]}")
out=${2:?usage: alternate_bench.sh BUILD_DIR OUT_DIR [options]}
mkdir -p "$out" && out=$(realpath "$out")
shift 2
cd "$(dirname "$0")/.."
rounds=5 iters=200 models=resnet50 dtypes=float32
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --iters) iters=$2; shift ;;
    --models) models=$2; shift ;;
    --dtypes) dtypes=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out/models"
log=$out/alternate_bench.log

echo "$(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
echo "| model | dtype | Nimble mode | round | PyTorch CUDA graph (ms) | Nimble (ms) |"
echo "| --- | --- | --- | --- | --- | --- |"
summary=()
for model in $models; do
  for dtype in $dtypes; do
    python3 bench/zoo_bench.py export "$model" "$dtype" "$out/models" 2>>"$log" | tail -1 >"$out/models/$model-$dtype.export.json"
    [ -f "$out/models/$model-$dtype.pt2" ] || { echo "| $model | $dtype | export failed | | | |"; continue; }
    inputs=$(python3 -c "import json,sys;print(' '.join('--input ' + t for t in json.load(open(sys.argv[1]))['inputs']))" \
      "$out/models/$model-$dtype.export.json")
    artifact=$out/models/$model-$dtype.nimble
    # shellcheck disable=SC2086
    "$build/cli/nimble-accelerate" "$out/models/$model-$dtype.pt2" $inputs --iters "$iters" --json -o "$artifact" \
      >"$out/$model-$dtype.nimble.json" 2>>"$log" || { echo "| $model | $dtype | nimble-accelerate failed | | | |"; continue; }
    mode=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['chosen'])" "$out/$model-$dtype.nimble.json")
    torch_ms=() nimble_ms=()
    torch_side() {
      python3 bench/zoo_bench.py torch "$model" "$dtype" cudagraph --iters "$iters" 2>>"$log" | tail -1 \
        | python3 -c "import json,sys;print('%.4f' % json.loads(sys.stdin.read())['median_ms'])"
    }
    nimble_side() {
      "$build/cli/nimble-run" "$artifact" --iters "$iters" 2>>"$log" | sed -n 's/^median latency over [0-9]* replays: \([0-9.]*\) ms$/\1/p'
    }
    for r in $(seq 1 "$rounds"); do
      if [ $((r % 2)) -eq 1 ]; then t=$(torch_side); n=$(nimble_side); else n=$(nimble_side); t=$(torch_side); fi
      torch_ms+=("${t:-nan}") nimble_ms+=("${n:-nan}")
      echo "| $model | $dtype | $mode | $r | ${t:-failed} | ${n:-failed} |"
    done
    summary+=("$model $dtype ${torch_ms[*]} / ${nimble_ms[*]}")
  done
done
echo
for s in "${summary[@]}"; do
  python3 - "$s" <<'EOF'
import statistics, sys
head, rest = sys.argv[1].split(" ", 2)[:2], sys.argv[1].split(" ", 2)[2]
torch_part, nimble_part = rest.split(" / ")
t = [float(v) for v in torch_part.split() if v != "nan"]
n = [float(v) for v in nimble_part.split() if v != "nan"]
if not t or not n:
    print(f"- {head[0]} {head[1]}: a side failed; see alternate_bench.log")
else:
    mt, mn = statistics.median(t), statistics.median(n)
    print(f"- {head[0]} {head[1]}: PyTorch's CUDA graph {mt:.3f} ms (rounds {min(t):.3f}-{max(t):.3f}), "
          f"Nimble {mn:.3f} ms (rounds {min(n):.3f}-{max(n):.3f}): Nimble {100 * (mn - mt) / mt:+.1f} %")
EOF
done
