#!/usr/bin/env bash
# GPT-2 (6 layers, 128 ids, bfloat16) captured multi-stream by nimble-accelerate with each of its ways of
# handling values read on another stream, at 2 streams and uncapped: the multi-stream replay's time against
# the single-stream one, to find what makes it slower (bench/results/concurrency.md). Builds the tree with
# tools/gpu_check.sh first; on a GPU machine, with OUT set: writes $OUT/*.json (nimble-accelerate
# --json per variant), $OUT/dots/ (the 2-stream default's graphs as dot) and prints one line per variant.
#     OUT=/tmp/out bash bench/diag/gpt2_multi_variants.sh
set -u
bash tools/gpu_check.sh --accelerate-only --no-bench --no-sanitizer > $OUT/gpu_check.log 2>&1; echo "gpu_check rc=$?"
tail -12 $OUT/gpu_check.log
python3 bench/zoo_bench.py export gpt2 bfloat16 /tmp/z > $OUT/export.log 2>&1 || { echo export failed; tail $OUT/export.log; exit 1; }
for opt in "" "--keep-cross-stream-values" "--record-cross-stream-values" "--unpacked-streams" "--cross-stream-reuse"; do  # "": the default
  for ms in 2 0; do
    name="ms${ms}${opt}"
    extra=""; [ "$ms" = 2 ] && [ -z "$opt" ] && extra="--dump-graphs $OUT/dots"
    build-gpu/cli/nimble-accelerate /tmp/z/gpt2-bfloat16.pt2 --iters 300 --mode multi --max-streams $ms $opt $extra --json -o /tmp/g.nimble > $OUT/$name.json 2> $OUT/$name.err
    python3 -c "
import json,sys; d=json.load(open('$OUT/$name.json')); s=d['single']; m=d['multi']
print('%-36s single %.4f (pred %.4f)  multi %.4f (pred %.4f, unanchored %s)  streams %d syncs %d' % ('$name', s['measured_ms'], s['predicted_ms'], m['measured_ms'], m['predicted_ms'], m['predicted_unanchored_ms'], m['streams'], m['syncs']))" || tail -3 $OUT/$name.err
  done
done
