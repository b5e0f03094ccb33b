#!/usr/bin/env bash
# A model's TorchScript file (.pt, traced by bench/zoo_bench.py export) replayed by Nimble's single-stream
# AoT graph against PyTorch's CUDA graph of the same TorchScript module, each in its own process,
# alternating ROUNDS times (default 3); then the nn.Module's CUDA graph once. On the GPU machine after
# tools/gpu_check.sh --accelerate-only. Prints one line per run and the medians; exits non-zero, naming
# the run and its log, when any run fails.
#   [ROUNDS=3] bench/torchscript_parity.sh BUILD_DIR OUT_DIR MODEL DTYPE
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
usage="usage: torchscript_parity.sh BUILD_DIR OUT_DIR MODEL DTYPE"
build=${1:?$usage}
out=${2:?$usage}
model=${3:?$usage}
dtype=${4:?$usage}
rounds=${ROUNDS:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2; }
mkdir -p "$out" || exit 1
python3 bench/zoo_bench.py export "$model" "$dtype" "$out" >"$out/export.log" 2>&1 ||
  { echo "export failed: see $out/export.log" >&2; exit 1; }
[ -f "$out/$model-$dtype.pt" ] ||
  { echo "$model $dtype did not trace to TorchScript: $(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('pt_error'))" "$out/$model-$dtype.json")" >&2; exit 1; }
inputs=$(python3 -c "import json,sys; print(' '.join('--input ' + t for t in json.load(open(sys.argv[1]))['inputs']))" "$out/$model-$dtype.json")

# One PyTorch baseline's median ms (zoo_bench.py prints it as JSON on its last line); its log in $out.
torch_ms() {
  local mode=$1 log=$out/torch-$1-$2.log
  if ! python3 bench/zoo_bench.py torch "$model" "$dtype" "$mode" --out "$out" --iters 200 >"$log" 2>&1 ||
     ! tail -1 "$log" | python3 -c "import json,sys; print(json.load(sys.stdin)['median_ms'])" 2>/dev/null; then
    echo "PyTorch's $mode run failed: see $log" >&2
    return 1
  fi
}

echo "$(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $model $dtype .pt, $rounds rounds"
nimble=() torch=()
for round in $(seq "$rounds"); do
  # shellcheck disable=SC2086  # $inputs holds several words by design
  "$build/cli/nimble-accelerate" "$out/$model-$dtype.pt" $inputs --mode single --no-record --iters 200 --json \
    -o "$out/$model-$dtype.nimble" >"$out/nimble-$round.json" 2>"$out/nimble-$round.log" ||
    { echo "nimble-accelerate failed: see $out/nimble-$round.log" >&2; exit 1; }
  n=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['single']['measured_ms'])" "$out/nimble-$round.json") || exit 1
  t=$(torch_ms scripted-graph "$round") || exit 1
  echo "round $round: Nimble single-stream $n ms, PyTorch's CUDA graph of the TorchScript module $t ms"
  nimble+=("$n") torch+=("$t")
done
m=$(torch_ms cudagraph 1) || exit 1
python3 - "$m" "${nimble[*]}" "${torch[*]}" <<'PY'
import statistics, sys
module, nimble, torch = float(sys.argv[1]), [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
n, t = statistics.median(nimble), statistics.median(torch)
print(f"median: Nimble {n:.3f} ms, TorchScript module's CUDA graph {t:.3f} ms ({(n / t - 1) * 100:+.1f} %), "
      f"nn.Module's CUDA graph {module:.3f} ms")
PY
