#!/usr/bin/env bash
# nimble-accelerate's single- and multi-stream timings, now taken in alternating rounds, on the models
# whose multi-stream predictions missed most (bench/results/concurrency.md, "Timed side by side"), with
# the GPU's clocks logged every 100 ms while they run. Builds the tree with tools/gpu_check.sh first; on a
# GPU machine, with OUT set: writes $OUT/side_by_side/*.json (nimble-accelerate --json), clocks.csv and
# prints one line per case.
#     OUT=/tmp/out CASES="gpt2:bfloat16 resnet50:float32" bash bench/diag/timed_side_by_side.sh
set -u
PYTEST_PATHS="python/tests/test_api.py -k version" bash tools/gpu_check.sh --python --no-bench --no-sanitizer \
  > "$OUT/gpu_check.log" 2>&1
echo "gpu_check rc=$?"
mkdir -p "$OUT/side_by_side"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 100 \
  > "$OUT/side_by_side/clocks.csv" 2>&1 &
smi=$!
for case in ${CASES:-gpt2:bfloat16 inception_v3:float16 resnet50:float32 nasnetalarge:bfloat16}; do
  model=${case%%:*} dtype=${case#*:}
  python3 bench/zoo_bench.py export "$model" "$dtype" /tmp/z > /dev/null 2>&1 || { echo "$case: export failed"; continue; }
  mapfile -t inputs < <(python3 -c "import json; print('\n'.join(json.load(open('/tmp/z/$model-$dtype.json'))['inputs']))")
  for ms in ${MAX_STREAMS:-0}; do
    name="$model-$dtype-ms$ms"
    args=(); for i in "${inputs[@]}"; do args+=(--input "$i"); done
    echo "$(date +%T) $name start" >> "$OUT/side_by_side/phases.txt"
    build-gpu/cli/nimble-accelerate "/tmp/z/$model-$dtype.pt2" "${args[@]}" --iters 400 --max-streams "$ms" \
      --json -o /tmp/z/out.nimble > "$OUT/side_by_side/$name.json" 2> "$OUT/side_by_side/$name.err"
    python3 -c "
import json; d=json.load(open('$OUT/side_by_side/$name.json')); s=d['single']; m=d.get('multi') or {}
print('%-34s single %.4f (pred %.4f)  multi %s (pred %s)  chosen %s' % ('$name', s['measured_ms'], s['predicted_ms'],
  m.get('measured_ms'), m.get('predicted_ms'), d.get('chosen')))" || tail -3 "$OUT/side_by_side/$name.err"
  done
done
kill $smi
