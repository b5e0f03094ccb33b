#!/usr/bin/env bash
# replay_transient.py (phases gpu, call, gpu) on GPT-2 bfloat16's single-stream model.nimble, twice in fresh processes, with the
# GPU's clocks and clock event reasons logged every 50 ms (bench/results/concurrency.md, "Timed side by
# side"). Expects the tree built by tools/gpu_check.sh --python; on a GPU machine, with OUT set:
#     OUT=/tmp/out bash bench/diag/replay_transient.sh
set -u
export PYTHONPATH=$PWD/build-gpu/python:$PWD/.deps/pylib
python3 bench/zoo_bench.py export gpt2 bfloat16 /tmp/z > /dev/null 2>&1 || { echo export failed; exit 1; }
build-gpu/cli/nimble-accelerate /tmp/z/gpt2-bfloat16.pt2 --input 1x128:int64:0..50256 --mode single \
  -o /tmp/z/gpt2-single.nimble > "$OUT/transient_accelerate.txt" 2>&1 || { tail -3 "$OUT/transient_accelerate.txt"; exit 1; }
nvidia-smi -q -d PERFORMANCE > "$OUT/transient_perf_before.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,clocks_event_reasons.active --format=csv -lms 50 \
  > "$OUT/transient_clocks.csv" 2>&1 &
smi=$!
for run in 1 2; do
  echo "# process $run, $(date +%T.%N)"
  extra="--phases gpu,call,gpu"; [ $run = 1 ] && extra="--control --phases gpu,call,gpu"
  python3 bench/diag/replay_transient.py /tmp/z/gpt2-single.nimble --seconds 1.5 $extra 2>&1 | grep -v Warn
done
kill $smi
