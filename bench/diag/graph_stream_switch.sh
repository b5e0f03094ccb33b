#!/usr/bin/env bash
# graph_stream_switch.py on a plain PyTorch graph and GPT-2 bfloat16's single-stream model.nimble
# (bench/results/concurrency.md, "Timed side by side"). Builds the Python module with tools/gpu_check.sh;
# on a GPU machine, with OUT set:  OUT=/tmp/out bash bench/diag/graph_stream_switch.sh
set -u
PYTEST_PATHS="python/tests/test_api.py -k version" bash tools/gpu_check.sh --python --no-bench --no-sanitizer \
  > "$OUT/gpu_check.log" 2>&1
echo "gpu_check rc=$?"
export PYTHONPATH=$PWD/build-gpu/python:$PWD/.deps/pylib
python3 bench/zoo_bench.py export gpt2 bfloat16 /tmp/z > /dev/null 2>&1 || { echo export failed; exit 1; }
build-gpu/cli/nimble-accelerate /tmp/z/gpt2-bfloat16.pt2 --input 1x128:int64:0..50256 --mode single \
  -o /tmp/z/gpt2-single.nimble > "$OUT/switch_accelerate.txt" 2>&1 || { tail -3 "$OUT/switch_accelerate.txt"; exit 1; }
python3 bench/diag/graph_stream_switch.py /tmp/z/gpt2-single.nimble 2>&1 | grep -v Warn
