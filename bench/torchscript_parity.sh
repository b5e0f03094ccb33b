#!/usr/bin/env bash
# A model's TorchScript file (.pt, traced by bench/zoo_bench.py export) replayed by Nimble's single-stream
# AoT graph against PyTorch's CUDA graph of the same TorchScript module, each in its own process,
# alternating ROUNDS times (default 3); then the nn.Module's CUDA graph once. On the GPU machine after
# tools/gpu_check.sh --accelerate-only. Prints one line per run and the medians.
#   [ROUNDS=3] bench/torchscript_parity.sh BUILD_DIR OUT_DIR MODEL DTYPE
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: torchscript_parity.sh BUILD_DIR OUT_DIR MODEL DTYPE}
out=${2:?usage: torchscript_parity.sh BUILD_DIR OUT_DIR MODEL DTYPE}
model=${3:?usage: torchscript_parity.sh BUILD_DIR OUT_DIR MODEL DTYPE}
dtype=${4:?usage: torchscript_parity.sh BUILD_DIR OUT_DIR MODEL DTYPE}
mkdir -p "$out"
python3 bench/zoo_bench.py export "$model" "$dtype" "$out" >"$out/export.log" 2>&1 ||
  { echo "export failed: see $out/export.log" >&2; exit 1; }
inputs=$(python3 -c "import json,sys; print(' '.join('--input ' + t for t in json.load(open(sys.argv[1]))['inputs']))" "$out/$model-$dtype.json")
echo "$(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $model $dtype .pt"
nimble=() torch=()
for round in $(seq "${ROUNDS:-3}"); do
  # shellcheck disable=SC2086  # $inputs holds several words by design
  "$build/cli/nimble-accelerate" "$out/$model-$dtype.pt" $inputs --mode single --no-record --iters 200 --json \
    -o "$out/$model-$dtype.nimble" >"$out/nimble-$round.json" 2>"$out/nimble-$round.log" ||
    { echo "nimble-accelerate failed: see $out/nimble-$round.log" >&2; exit 1; }
  n=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['single']['measured_ms'])" "$out/nimble-$round.json")
  t=$(python3 bench/zoo_bench.py torch "$model" "$dtype" scripted-graph --out "$out" --iters 200 | tail -1 |
      python3 -c "import json,sys; print(json.load(sys.stdin)['median_ms'])")
  echo "round $round: Nimble single-stream $n ms, PyTorch's CUDA graph of the TorchScript module $t ms"
  nimble+=("$n") torch+=("$t")
done
m=$(python3 bench/zoo_bench.py torch "$model" "$dtype" cudagraph --iters 200 | tail -1 |
    python3 -c "import json,sys; print(json.load(sys.stdin)['median_ms'])")
python3 - "$m" "${nimble[*]}" "${torch[*]}" <<'PY'
import statistics, sys
module, nimble, torch = float(sys.argv[1]), [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
n, t = statistics.median(nimble), statistics.median(torch)
print(f"median: Nimble {n:.3f} ms, TorchScript module's CUDA graph {t:.3f} ms ({(n / t - 1) * 100:+.1f} %), "
      f"nn.Module's CUDA graph {module:.3f} ms")
PY
