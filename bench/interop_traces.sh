#!/usr/bin/env bash
# The traces behind `nimble-prof import`'s fixtures and figures, recorded on the GPU machine in one
# command (through the device tool, .deps carried): build nimble-prof against the machine's torch,
# export Inception-v3, record it with nimble-prof (its own collector), then, in a separate process,
# record the very module nimble-prof ran (--save-module) with torch.profiler, and record the small
# ResNet-18 eager and CUDA-graph fixtures. Both processes run on the same two CPUs (PIN_CPUS, default
# 2,3). Under $OUT, at most 8 files: build.log, interop.log, inception_v3_nimble.db,
# inception_v3_nimble.json, inception_v3_torch.json.gz, inception_v3_torch_cuda_only.json.gz (the same
# module recorded with CUDA activity only), fixtures/resnet18_{eager,cudagraph}.json.gz.
# --prof PATH uses that nimble-prof (e.g. build-gpu/cli/nimble-prof of tools/gpu_check.sh) instead of
# building one; --no-fixtures leaves the ResNet-18 fixtures out. --rounds R then records the module R
# more times with each tool in turn (nimble-prof, torch.profiler with CPU and CUDA activity) into
# $OUT/rounds/{nimble,torch}_K.json[.gz], for the spread between runs of one recorder
# (bench/interop/idle_spread.py).
#   bash bench/interop_traces.sh [--iters N] [--warmup W] [--prof PATH] [--no-fixtures] [--rounds R]
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
build=${BUILD_DIR:-$root/build-gpu-prof}
work=$root/build-interop
iters=20 warmup=5 prof="" fixtures=("--fixtures" "$OUT/fixtures") rounds=0
while [ $# -gt 0 ]; do
  case $1 in
    --iters) iters=$2; shift ;;
    --warmup) warmup=$2; shift ;;
    --prof) prof=$(realpath "$2"); shift ;;
    --no-fixtures) fixtures=() ;;
    --rounds) rounds=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
pin=()
pin_cpus=${PIN_CPUS-2,3}
[ -n "$pin_cpus" ] && command -v taskset >/dev/null && pin=(taskset -c "$pin_cpus")
log=$OUT/interop.log

mkdir -p "$work"
if [ -z "$prof" ]; then
  mkdir -p .deps/root
  for deb in .deps/debs/*.deb; do dpkg -x "$deb" .deps/root; done
  torch_prefix=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)') || exit 1
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_PREFIX_PATH=$root/.deps/root/usr;$torch_prefix" \
    -DSQLite3_INCLUDE_DIR="$root/.deps/root/usr/include" \
    -DSQLite3_LIBRARY=/usr/lib/x86_64-linux-gnu/libsqlite3.so.0 \
    -DNIMBLE_WITH_TORCH=ON -DNIMBLE_WITH_CUDA=ON -DNIMBLE_WITH_QT=OFF -DNIMBLE_BUILD_TESTS=OFF \
    -DNIMBLE_BUILD_BENCHMARKS=OFF >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  /usr/bin/time -f "build: %e s" timeout 330 ninja -C "$build" -j16 nimble-prof >>"$OUT/build.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build.log" | head -30; exit 1; }
  tail -1 "$OUT/build.log"
  prof=$build/cli/nimble-prof
fi

{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch;print("torch", torch.__version__, "cuda", torch.version.cuda)'
} | tee -a "$log"
timeout 120 python3 samples/models/export_models.py --out "$work/models" --device cuda --models inception_v3 >>"$log" 2>&1 \
  || { tail -20 "$log"; exit 1; }
input=1x3x299x299
echo "=== ${pin[*]} nimble-prof inception_v3.pt --input $input --iters $iters --warmup $warmup" | tee -a "$log"
timeout 180 "${pin[@]}" "$prof" "$work/models/inception_v3.pt" --input "$input" --iters "$iters" \
  --warmup "$warmup" -o "$OUT/inception_v3_nimble.db" --save-module "$work/inception_v3.profiled.pt" --json \
  >"$OUT/inception_v3_nimble.json" 2>>"$log" || { echo "nimble-prof FAILED"; tail -20 "$log"; exit 1; }
echo "=== ${pin[*]} record_torch_traces.py (the profiled module, then the fixtures)" | tee -a "$log"
timeout 300 "${pin[@]}" python3 bench/interop/record_torch_traces.py --model "$work/inception_v3.profiled.pt" \
  --input "$input" --iters "$iters" --warmup "$warmup" --out "$OUT/inception_v3_torch.json.gz" \
  --cuda-only-out "$OUT/inception_v3_torch_cuda_only.json.gz" "${fixtures[@]}" 2>&1 | tee -a "$log"
status=${PIPESTATUS[0]}
for ((k = 1; k <= rounds && status == 0; k++)); do
  mkdir -p "$OUT/rounds"
  echo "=== round $k: nimble-prof, then torch.profiler" | tee -a "$log"
  timeout 180 "${pin[@]}" "$prof" "$work/models/inception_v3.pt" --input "$input" --iters "$iters" \
    --warmup "$warmup" -o "$work/round.db" --json >"$OUT/rounds/nimble_$k.json" 2>>"$log" || status=1
  rm -f "$work/round.db"
  timeout 120 "${pin[@]}" python3 bench/interop/record_torch_traces.py --model "$work/inception_v3.profiled.pt" \
    --input "$input" --iters "$iters" --warmup "$warmup" --out "$OUT/rounds/torch_$k.json.gz" >>"$log" 2>&1 || status=1
done
ls -laR "$OUT" | tee -a "$log"
exit "$status"
