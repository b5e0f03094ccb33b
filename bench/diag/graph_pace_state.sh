#!/usr/bin/env bash
# graph_pace_state.py on GPT-2 bfloat16 and Inception-v3 float16 (bench/results/concurrency.md, "Timed side by side"),
# after nimble-run of each model.nimble in a fresh process. Builds the tree with tools/gpu_check.sh first; on a GPU
# machine, with OUT set:  OUT=/tmp/out bash bench/diag/graph_pace_state.sh
set -u
export OUT; PYTEST_PATHS="python/tests/test_api.py -k version" bash tools/gpu_check.sh --python --no-bench --no-sanitizer > $OUT/gpu_check.log 2>&1; echo "gpu_check rc=$?"
export PYTHONPATH=$PWD/build-gpu/python:$PWD/.deps/pylib
for case in gpt2:bfloat16 inception_v3:float16; do
  m=${case%%:*}; d=${case#*:}
  python3 bench/zoo_bench.py export $m $d /tmp/z > /dev/null 2>&1
  inp=$(python3 -c "import json; print(' '.join('--input '+i for i in json.load(open('/tmp/z/$m-$d.json'))['inputs']))")
  for mode in single multi; do build-gpu/cli/nimble-accelerate /tmp/z/$m-$d.pt2 $inp --iters 400 --mode $mode -o /tmp/z/$m-$mode.nimble > $OUT/$m-$mode.txt 2>&1 || tail -3 $OUT/$m-$mode.txt; done
  echo "== $m $d: nimble-run, a fresh process each"
  for mode in single multi single multi; do echo "$mode: $(build-gpu/cli/nimble-run /tmp/z/$m-$mode.nimble --iters 400 2>&1 | grep -i -m1 'median\|latency')"; done
  echo "== $m $d: graph_pace_state.py"
  python3 bench/diag/graph_pace_state.py /tmp/z/$m-single.nimble /tmp/z/$m-multi.nimble 2>&1 | grep -v Warn
done
