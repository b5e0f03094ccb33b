#!/usr/bin/env bash
# Half-precision models with depthwise convolutions in both layouts: nimble-accelerate with
# --memory-format contiguous and channels_last, and PyTorch's CUDA graph of the module in each
# (bench/zoo_bench.py cudagraph / cudagraph-cl), for the automatic layout rule (accelerate/src/conv_layout.h).
# In NCHW, PyTorch sends a bfloat16 depthwise convolution to ATen's own kernel rather than cuDNN's.
# Builds the tree with tools/gpu_check.sh first; on a GPU machine, with OUT set: writes
# $OUT/half_layout/*.json (nimble-accelerate --json) and the kernels of one eager run per case, and prints
# one line per case. TORCH_MODES="" leaves PyTorch's graphs out; FORMATS=auto (or measure) times that choice.
#     OUT=/tmp/out CASES="nasnetalarge:bfloat16 mobilenet_v2:float16" bash bench/diag/half_layout.sh
set -u
if [ "${NO_BUILD:-0}" != 1 ]; then  # NO_BUILD=1: build-gpu/cli is built already
  PYTEST_PATHS="python/tests/test_api.py -k version" bash tools/gpu_check.sh --python --no-bench --no-sanitizer \
    > "$OUT/gpu_check.log" 2>&1
  echo "gpu_check rc=$?"
fi
dir=$OUT/half_layout
mkdir -p "$dir"
cases=${CASES:-nasnetalarge:bfloat16 nasnetalarge:float16 mobilenet_v2:bfloat16 mobilenet_v2:float16 efficientnet_b0:bfloat16 efficientnet_b0:float16}
for case in $cases; do
  model=${case%%:*} dtype=${case#*:}
  python3 bench/zoo_bench.py export "$model" "$dtype" /tmp/z > /dev/null 2>&1 || { echo "$case: export failed"; continue; }
  mapfile -t inputs < <(python3 -c "import json; print('\n'.join(json.load(open('/tmp/z/$model-$dtype.json'))['inputs']))")
  args=(); for i in "${inputs[@]}"; do args+=(--input "$i"); done
  for format in ${FORMATS:-contiguous channels_last}; do
    name="$model-$dtype-$format"
    build-gpu/cli/nimble-accelerate "/tmp/z/$model-$dtype.pt2" "${args[@]}" --iters 400 --memory-format "$format" \
      --json -o /tmp/z/out.nimble > "$dir/$name.json" 2> "$dir/$name.err"
    python3 -c "
import json; d=json.load(open('$dir/$name.json')); s=d['single']; m=d.get('multi') or {}
print('%-40s single %.4f (pred %.4f)  multi %s (pred %s)  chosen %s' % ('$name', s['measured_ms'], s['predicted_ms'],
  m.get('measured_ms'), m.get('predicted_ms'), d.get('chosen')), d.get('memory_format'), d.get('memory_format_choice'))" || tail -3 "$dir/$name.err"
  done
  for mode in ${TORCH_MODES-cudagraph cudagraph-cl}; do
    ms=$(python3 bench/zoo_bench.py torch "$model" "$dtype" "$mode" 2> "$dir/$model-$dtype-$mode.err" | tail -1)
    echo "$model-$dtype torch $mode: $ms"
  done
done
