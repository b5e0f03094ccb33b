#!/usr/bin/env bash
# The ahead-of-time table on the GPU machine, in one job: for each exported sample model, PyTorch eager,
# TorchScript, TorchScript + torch.cuda.graph and (with --compile) torch.compile reduce-overhead, each in
# its own Python process, then `nimble-prof model.pt --no-tf32` (the kernels the prediction simulates)
# and `nimble-accelerate --db` on that recording (libtorch baseline, single- and multi-stream AoT and
# their predictions, stored in <out>/<model>.db). Prints a markdown table for
# bench/results/accelerate.md; logs go to <out>/accelerate_bench.log.
# --tf32 runs every side with TF32 convolutions (PyTorch's default) instead of IEEE fp32.
#   bench/accelerate_bench.sh BUILD_DIR OUT_DIR [--compile] [--tf32] [--models "resnet50 inception_v3 ..."]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: accelerate_bench.sh BUILD_DIR OUT_DIR [--compile] [--models LIST]}
out=${2:?usage: accelerate_bench.sh BUILD_DIR OUT_DIR [--compile] [--models LIST]}
shift 2
compile=0 tf32=0 models="resnet50 inception_v3 mobilenet_v2 efficientnet_b0 nasnetalarge"
while [ $# -gt 0 ]; do
  case $1 in
    --compile) compile=1 ;;
    --tf32) tf32=1 ;;
    --models) models=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out/models"
log=$out/accelerate_bench.log
iters=${BENCH_ITERS:-200}
py_precision=() prof_precision=(--no-tf32) accel_precision=() precision="TF32 off"
if [ $tf32 -eq 1 ]; then
  py_precision=(--tf32) prof_precision=() accel_precision=(--tf32) precision="TF32 convolutions (PyTorch's default)"
fi
export_precision=(); [ $tf32 -eq 1 ] && export_precision=(--tf32)  # the flag traced convolutions keep
python3 samples/models/export_models.py --out "$out/models" --device cuda --models $models "${export_precision[@]}" >>"$log" 2>&1 \
  || { echo "model export failed; see $log" >&2; exit 1; }

shape_of() { python3 -c "import json,sys;m=json.load(open('$out/models/manifest.json'))['models']['$1'];print('x'.join(map(str,m['input_shape'])))"; }
py_ms() {  # model mode shape
  python3 bench/accelerate_bench.py --model "$1" --mode "$2" --shape "$3" --file "$out/models/$1.pt" --iters "$iters" "${py_precision[@]}" \
    2>>"$log" | python3 -c "import json,sys;print('%.3f' % json.loads(sys.stdin.read().strip().splitlines()[-1])['median_ms'])" \
    2>/dev/null || echo "failed"
}
# nimble-accelerate's table row "| mode | measured | predicted | ..." -> "measured / predicted".
nimble_cell() { awk -F'|' -v m="$2" '$2 ~ "^ *"m" *$" {gsub(/ /,"",$3); gsub(/ /,"",$4); print $3" / "$4}' "$1"; }

echo "Ahead-of-time scheduling, $(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)," \
     "batch 1, fp32, $precision, median of $iters (ms; nimble cells: measured / predicted)"
echo "command: bench/accelerate_bench.sh BUILD OUT$([ $compile -eq 1 ] && echo ' --compile')$([ $tf32 -eq 1 ] && echo ' --tf32') --models \"$models\""
echo
echo "| model | PyTorch eager | TorchScript | TorchScript + CUDA graph | torch.compile r-o | libtorch (nimble) | AoT single | AoT multi | multi/single | chosen | prep s |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for model in $models; do
  shape=$(shape_of "$model")
  eager=$(py_ms "$model" eager "$shape")
  script=$(py_ms "$model" script "$shape")
  graph=$(py_ms "$model" cudagraph "$shape")
  compiled="-"; [ $compile -eq 1 ] && compiled=$(py_ms "$model" compile "$shape")
  table=$out/$model.accelerate.txt
  rm -f "$out/$model.db"
  "$build/cli/nimble-prof" "$out/models/$model.pt" --input "$shape" "${prof_precision[@]}" --iters 20 -q -o "$out/$model.db" \
    >>"$log" 2>&1 || echo "nimble-prof failed for $model" >>"$log"
  "$build/cli/nimble-accelerate" "$out/models/$model.pt" --input "$shape" --iters "$iters" \
    -o "$out/$model.nimble" --db "$out/$model.db" "${accel_precision[@]}" >"$table" 2>>"$log" || echo "nimble-accelerate failed for $model" >>"$log"
  cat "$table" >>"$log"
  ratio=$(grep -o 'multi-stream vs single-stream: measured [0-9.x-]*' "$table" | awk '{print $5}')
  chosen=$(grep -o 'model.nimble runs aot-[a-z]*' "$table" | awk '{print $3}')
  prep=$(grep -o 'capture): [0-9.]* ms' "$table" | awk '{printf "%.2f", $2/1000}')
  echo "| $model ($shape) | $eager | $script | $graph | $compiled | $(nimble_cell "$table" 'libtorch.*') |" \
       "$(nimble_cell "$table" aot-single) | $(nimble_cell "$table" aot-multi) | ${ratio:--} | ${chosen:--} | ${prep:--} |"
done
