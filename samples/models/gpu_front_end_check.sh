#!/usr/bin/env bash
# The TorchScript front end on the GPU machine in one command (run through the device tool with
# .deps carried): build the accelerate tests against the machine's torch and run them, then export
# the sample models on the GPU and extract their graphs there, optimized and not.
# Logs under $OUT: build.log, tests.log, export.log, zoo.log; each step's tail is printed.
#   bash samples/models/gpu_front_end_check.sh [build|models|all]     (default: all)
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
build=$root/build-gpu-accel
tests=$build/tests/accelerate/nimble_accelerate_tests
what=${1:-all}

build_and_test() {
  mkdir -p .deps/root
  for deb in .deps/debs/*.deb; do dpkg -x "$deb" .deps/root; done
  local torch_prefix
  torch_prefix=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)') || return 1
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_PREFIX_PATH=$root/.deps/root/usr;$torch_prefix" \
    -DSQLite3_INCLUDE_DIR="$root/.deps/root/usr/include" \
    -DSQLite3_LIBRARY=/usr/lib/x86_64-linux-gnu/libsqlite3.so.0 \
    -DNIMBLE_WITH_TORCH=ON -DNIMBLE_WITH_CUDA=OFF -DNIMBLE_WITH_QT=OFF -DNIMBLE_BUILD_BENCHMARKS=OFF \
    >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; return 1; }
  /usr/bin/time -f "build: %e s" ninja -C "$build" -j16 nimble_accelerate_tests >>"$OUT/build.log" 2>&1 \
    || { grep -E "error|FAILED" "$OUT/build.log" | head -40; return 1; }
  tail -1 "$OUT/build.log"
  "$tests" >"$OUT/tests.log" 2>&1
  local rc=$?
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure" "$OUT/tests.log"
  return $rc
}

models_on_gpu() {
  python3 samples/models/export_models.py --out "$root/build-models-gpu" --device cuda >"$OUT/export.log" 2>&1
  local rc=$?
  cat "$OUT/export.log" | tail -8
  [ $rc -eq 0 ] || return $rc
  NIMBLE_MODEL_MANIFEST="$root/build-models-gpu/manifest.json" NIMBLE_MODEL_DEVICE=cuda \
    "$tests" --gtest_filter='ModelZooTest.*' >"$OUT/zoo.log" 2>&1
  rc=$?
  grep -vE "^\[ *(RUN|OK) *\]|^Running main|^Note:|^\[-|^\[=|^$" "$OUT/zoo.log"
  return $rc
}

status=0
if [ "$what" != models ]; then build_and_test || status=1; fi
if [ "$what" != build ] && [ $status -eq 0 ]; then models_on_gpu || status=1; fi
exit $status
