#!/usr/bin/env bash
# `nimble-prof model.pt` on the GPU machine in one command (through the device tool, .deps carried):
# build nimble-prof against the machine's torch, export the five sample models on the GPU, profile each
# (JSON, then the tables from `report` on the database), cross-check against torch.profiler in a
# separate process (samples/models/crosscheck.py), record the Inception-v3 sample database, and run the
# model-profiling GPU tests, then compare the latency in alternating processes (bench/latency_spread.sh,
# 3 rounds). Under $OUT, at most 8 files: build.log, profile.log, nimble_reports.json, crosscheck.json,
# model_profile.md, inception_v3.db, tests.log, latency_rounds.md. Batch-1 latency is host time, and the
# machine's other tenants make it vary from process to process: every nimble-prof and crosscheck process
# runs on the same two CPUs (PIN_CPUS, default 2,3; empty: not pinned) and times --timed-iters forwards.
#   bash bench/model_profile.sh [--iters N] [--warmup W] [--timed-iters T] [--models "resnet50 ..."] [--no-tests]
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
build=${BUILD_DIR:-$root/build-gpu-prof}
work=$root/build-model-profile
iters=20 warmup=5 timed_iters=100 tests=1
models="resnet50 inception_v3 mobilenet_v2 efficientnet_b0 nasnetalarge"
while [ $# -gt 0 ]; do
  case $1 in
    --iters) iters=$2; shift ;;
    --warmup) warmup=$2; shift ;;
    --timed-iters) timed_iters=$2; shift ;;
    --models) models=$2; shift ;;
    --no-tests) tests=0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
prof=$build/cli/nimble-prof
pin=()
pin_cpus=${PIN_CPUS-2,3}
[ -n "$pin_cpus" ] && command -v taskset >/dev/null && pin=(taskset -c "$pin_cpus")
log=$OUT/profile.log

configure_and_build() {
  mkdir -p .deps/root
  for deb in .deps/debs/*.deb; do dpkg -x "$deb" .deps/root; done
  local torch_prefix
  torch_prefix=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)') || return 1
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_PREFIX_PATH=$root/.deps/root/usr;$torch_prefix" \
    -DSQLite3_INCLUDE_DIR="$root/.deps/root/usr/include" \
    -DSQLite3_LIBRARY=/usr/lib/x86_64-linux-gnu/libsqlite3.so.0 \
    -DNIMBLE_WITH_TORCH=ON -DNIMBLE_WITH_CUDA=ON -DNIMBLE_WITH_QT=OFF -DNIMBLE_BUILD_BENCHMARKS=OFF \
    >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; return 1; }
  local targets="nimble-prof"
  [ $tests -eq 1 ] && targets="$targets nimble_model_profile_tests nimble_accelerate_tests"
  /usr/bin/time -f "build: %e s" timeout 330 ninja -C "$build" -j16 $targets >>"$OUT/build.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build.log" | head -30; return 1; }
  tail -1 "$OUT/build.log"
}

export_models() {
  timeout 120 python3 samples/models/export_models.py --out "$work/models" --device cuda --models $models >>"$log" 2>&1 \
    || { tail -20 "$log"; return 1; }
}

input_of() {  # the manifest's input shape of model $1 as 1x3x224x224
  python3 -c "import json,sys;print('x'.join(map(str,json.load(open(sys.argv[1]))['models'][sys.argv[2]]['input_shape'])))" \
    "$work/models/manifest.json" "$1"
}

profile_models() {
  local name input status=0
  for name in $models; do
    input=$(input_of "$name")
    rm -f "$work/$name.db"
    echo "=== ${pin[*]} $prof $work/models/$name.pt --input $input --iters $iters --warmup $warmup --timed-iters $timed_iters -o $work/$name.db --json" >>"$log"
    if timeout 120 "${pin[@]}" "$prof" "$work/models/$name.pt" --input "$input" --iters "$iters" --warmup "$warmup" \
        --timed-iters "$timed_iters" -o "$work/$name.db" --save-module "$work/$name.profiled.pt" --json >"$work/$name.json" 2>>"$log"; then
      "$prof" report --no-store "$work/$name.db" >>"$log" 2>&1
      python3 -c "import json,sys;p=json.load(open(sys.argv[1]))['runs'][0]['profile'];print(sys.argv[2],'latency',p['latency_ns'],'forward',p['forward_latency_ns'],'recorded',p['recorded_latency_ns'],'warmup',p['warmup_median_wall_ns'],'api calls',p['api_calls_recorded'],'attribution',p['attribution'],'cupti',p['cupti_libraries'],'vs forward',p['eager_vs_forward_max_abs_diff'])" \
        "$work/$name.json" "$name" | tee -a "$log"
    else
      echo "$name: nimble-prof FAILED" | tee -a "$log"
      tail -5 "$log"
      status=1
    fi
  done
  python3 -c "import json,sys;print(json.dumps({n:json.load(open(f'$work/{n}.json')) for n in sys.argv[1:]}))" $models \
    >"$OUT/nimble_reports.json" 2>>"$log"
  return $status
}

sample_run() {
  rm -f "$OUT/inception_v3.db"
  echo "=== sample: inception_v3 --iters 5" >>"$log"
  timeout 90 "$prof" "$work/models/inception_v3.pt" --input 1x3x299x299 --iters 5 --warmup 5 \
    -o "$OUT/inception_v3.db" >>"$log" 2>&1 && ls -la "$OUT/inception_v3.db" | tee -a "$log"
}

crosscheck() {
  local gpu
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  timeout 240 "${pin[@]}" python3 samples/models/crosscheck.py --manifest "$work/models/manifest.json" --nimble "$work" \
    --models $models --iters "$iters" --warmup "$warmup" --timed-iters "$timed_iters" --json "$OUT/crosscheck.json" --markdown "$work/table.md" \
    2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  {
    echo "# Model profiling: nimble-prof against torch.profiler"
    echo
    echo "Measured $(date -u +%Y-%m-%d) on $gpu (torch $(python3 -c 'import torch;print(torch.__version__)')),"
    echo "batch 1, fp32, $iters recorded iterations after $warmup warmup, latency from $timed_iters timed ones, medians;"
    echo "both processes on CPUs ${pin_cpus:-(not pinned)}. Commands:"
    echo
    echo "    ${pin[*]} nimble-prof build-model-profile/models/<model>.pt --input <shape> --iters $iters --warmup $warmup --timed-iters $timed_iters --json"
    echo "    ${pin[*]} python3 samples/models/crosscheck.py --iters $iters --warmup $warmup --timed-iters $timed_iters ...   # separate process"
    echo
    cat "$work/table.md" 2>/dev/null
  } >"$OUT/model_profile.md"
  return "$rc"
}

run_tests() {
  {
    timeout 150 "$build/tests/accelerate/nimble_model_profile_tests"
    timeout 60 "$build/tests/accelerate/nimble_accelerate_tests" --gtest_filter='EagerRunner*:CudaDevices*'
  } >"$OUT/tests.log" 2>&1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure" "$OUT/tests.log"
}

nvidia-smi -L | tee "$log"
configure_and_build || exit 1
mkdir -p "$work"
status=0
export_models || exit 1
profile_models || status=1
sample_run || status=1
crosscheck || status=1
if [ $tests -eq 1 ]; then run_tests || status=1; fi
BUILD_DIR=$build PIN_CPUS=$pin_cpus timeout 420 bash bench/latency_spread.sh 3 $models >"$OUT/latency_rounds.md" 2>>"$log" || status=1
tail -$(( $(echo $models | wc -w) + 2 )) "$OUT/latency_rounds.md"
exit $status
