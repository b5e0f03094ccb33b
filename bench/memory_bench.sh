#!/usr/bin/env bash
# GPU memory per mode on the GPU machine, in one job: for each exported sample model, one nimble-prof
# recording (the kernels the prediction simulates), then nimble-accelerate --json in each variant
# (VARIANTS, default "before freed default cap8 ratio1.5"):
#   before   as Nimble captured before: one stream per chain, values read on another stream held until the
#            streams join (--unpacked-streams --keep-cross-stream-values)
#   keep     packed streams, values held until the join (--keep-cross-stream-values)
#   freed    one stream per chain, values freed after their last reader (--unpacked-streams
#            --record-cross-stream-values)
#   recorded packed streams, values freed after their last reader with record_stream
#            (--record-cross-stream-values): the default until values were released on their producer's stream
#   default  packed streams (chains that never overlap share one), values released on their producer's
#            stream once every reader is ordered before
#   capN     as default, folded onto at most N streams (--max-streams N)
#   budgetM  as default, with --memory-budget M (MiB)
#   ratioR   as default, with --memory-ratio R (R times single-stream's peak)
#   expand   as default, with the caching allocator's expandable segments (PYTORCH_CUDA_ALLOC_CONF)
#   async    as default, with PyTorch's cudaMallocAsync allocator backend (PYTORCH_CUDA_ALLOC_CONF), which
#            nimble-accelerate refuses (its captures failed in that allocator's free): shows the refusal
#   asyncunpacked  the same with one stream per chain (--unpacked-streams)
# Each variant's JSON goes to <out>/<model>.<variant>.json; bench/memory_table.py turns them into the
# tables of bench/results/memory.md. Logs: <out>/memory_bench.log.
#   bench/memory_bench.sh BUILD_DIR OUT_DIR [--models "googlenet inception_v3 ..."]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: memory_bench.sh BUILD_DIR OUT_DIR [--models LIST]}
out=${2:?usage: memory_bench.sh BUILD_DIR OUT_DIR [--models LIST]}
shift 2
models="googlenet inception_v3 nasnetalarge resnet50 efficientnet_b0"
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
variants=${VARIANTS:-before freed default cap8 ratio1.5}
iters=${BENCH_ITERS:-200}
mkdir -p "$out/models"
log=$out/memory_bench.log
python3 samples/models/export_models.py --out "$out/models" --device cuda --models $models >>"$log" 2>&1 \
  || { echo "model export failed; see $log" >&2; exit 1; }
shape_of() { python3 -c "import json;m=json.load(open('$out/models/manifest.json'))['models']['$1'];print('x'.join(map(str,m['input_shape'])))"; }
for model in $models; do
  shape=$(shape_of "$model")
  rm -f "$out/$model.db"*
  "$build/cli/nimble-prof" "$out/models/$model.pt" --input "$shape" --no-tf32 --iters 20 -q -o "$out/$model.db" \
    >>"$log" 2>&1 || echo "nimble-prof failed for $model" >>"$log"
  for variant in $variants; do
    flags=() env=()
    case $variant in
      before) flags=(--unpacked-streams --keep-cross-stream-values) ;;
      keep) flags=(--keep-cross-stream-values) ;;
      freed) flags=(--unpacked-streams --record-cross-stream-values) ;;
      recorded) flags=(--record-cross-stream-values) ;;
      default) ;;
      cap*) flags=(--max-streams "${variant#cap}") ;;
      budget*) flags=(--memory-budget "${variant#budget}") ;;
      ratio*) flags=(--memory-ratio "${variant#ratio}") ;;
      expand) env=(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) ;;
      async) env=(PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync) ;;
      asyncunpacked) flags=(--unpacked-streams) env=(PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync) ;;
      *) echo "unknown variant $variant" >>"$log"; continue ;;
    esac
    echo "=== $model $variant: ${flags[*]}" >>"$log"
    env "${env[@]}" "$build/cli/nimble-accelerate" "$out/models/$model.pt" --input "$shape" --iters "$iters" --mode multi "${flags[@]}" \
      -o "$out/$model.$variant.nimble" --db "$out/$model.db" --json >"$out/$model.$variant.json" 2>>"$log" \
      || echo "nimble-accelerate failed for $model $variant" >>"$log"
    rm -f "$out/$model.$variant.nimble"
  done
done
python3 bench/memory_table.py "$out" --models $models --variants $variants --before "${BEFORE:-before}"
