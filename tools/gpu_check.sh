#!/usr/bin/env bash
# The one script every session runs on the GPU machine (through the device tool, with .deps carried):
# unpack the headers the machine lacks, configure, build, run the gpu and unit tests, run
# compute-sanitizer on a sample, measure the collector's overhead, and record the bundled sample run.
# Everything is logged under $OUT in at most 8 files (gpu, build, ctest_gpu, ctest_unit, checks logs,
# collector_overhead.md, concurrent_streams.db, summary.md); the summary table is printed last.
#   bash tools/gpu_check.sh [--with-torch] [--with-accelerate] [--no-bench] [--no-sanitizer] [--bench-only]
# --bench-only builds and runs only the collector overhead benchmark (BENCH_REPS, BENCH_CPUS: see it).
# --cupti-settings builds the same and runs bench/cupti_settings.sh (CUPTI's own settings, BENCH_REPS)
# into $OUT/cupti_settings.md instead.
# --with-accelerate (implies --with-torch) adds the ahead-of-time section at the end: see there.
# --accelerate-only (implies --with-accelerate) builds and runs only that section (fits one device call).
# --python (implies --with-torch) builds only the Python module and the tools its tests call, and runs
# the whole pytest suite (gpu tests included) into python.log; --python-bench does the same and then
# bench/python_api_bench.sh into $OUT/python_api.md (PY_BENCH_PARTS to choose its parts).
# PYTEST_PATHS (default python/tests) narrows the pytest run, e.g. python/tests/test_training.py.
# --training (with --python) then runs bench/training_bench.py into $OUT/training (TRAIN_MODELS, TRAIN_STEPS).
# --training-sanitizer (with --python) then runs compute-sanitizer racecheck and memcheck on a multi-stream
# training capture from Python (python/tests/sanitize_training.py) and memcheck on the C++ TrainingStep
# (nimble_training_cpp_bench on MobileNetV2, 2 steps) into sanitizer.log.
# --memory (implies --accelerate-only) runs bench/memory_bench.sh after the AoT gpu tests into
# $OUT/memory.md and $OUT/memory.tar.gz (MEM_MODELS, VARIANTS; logs and JSON).
# --buckets (implies --accelerate-only) runs bench/buckets_bench.sh after the AoT gpu tests into
# $OUT/buckets.md and $OUT/buckets.tar.gz (BUCKET_MODELS, BATCHES; JSON, nimble-run output, log).
# --compare (implies --accelerate-only) runs bench/recorded_compare.sh after the AoT gpu tests into
# $OUT/recorded_compare.md and $OUT/compare.tar.gz (the databases: eager, aot-single and aot-multi
# recorded; COMPARE_MODELS, default inception_v3).
# --concurrency (implies --accelerate-only) runs bench/concurrency_data.sh after the AoT gpu tests into
# $OUT/concurrency.md and $OUT/concurrency.tar.xz.aa, .ab... (cat them; a database per case: the model's recording, its
# schedule and its recorded replays, for `nimble-prof calibrate`; CONCURRENCY_CASES to choose; CALL_BUDGET_S,
# the seconds the device call may run, stops starting cases in time to pack the databases).
# --no-gpu-tests (with --accelerate-only or one that implies it) builds and runs only the benchmark asked
# for, without the AoT, training and epilogue gpu tests: a call that only gathers data.
# --interop (with any of the above) then runs bench/interop_traces.sh with the nimble-prof just built
# (no fixtures, INTEROP_ROUNDS rounds, default 3) into $OUT/interop.tar.gz.
set -uo pipefail
call_start=$(date +%s)
cd "$(dirname "$0")/.."
root=$PWD
OUT=${OUT:-$root/out}
mkdir -p "$OUT"

# ---- Model profiling (`nimble-prof model.pt`) -----------------------------------------------------
# bash tools/gpu_check.sh --model-profile [--iters N --warmup W --models "..." --no-tests]: instead of
# every step below, bench/model_profile.sh builds nimble-prof with libtorch and CUDA (its own build
# folder), profiles the five sample models, cross-checks them against torch.profiler in a separate
# process, records the Inception-v3 sample database, runs the model-profiling GPU tests and compares the
# latency in alternating processes (bench/latency_spread.sh); its at most 8 files go to $OUT. Fits one
# device call (about 8 minutes on an H100).
if [ "${1:-}" = --model-profile ]; then
  shift
  exec bash "$root/bench/model_profile.sh" "$@"
fi
# ---- end of model profiling -------------------------------------------------------------------------
build=${BUILD_DIR:-$root/build-gpu}
with_torch=0 bench=1 sanitizer=1 accelerate=0 accel_only=0 bench_only=0 cupti_settings=0 python=0 python_bench=0
training=0 training_sanitizer=0 memory=0 compare=0 buckets=0 concurrency=0 interop=0 gpu_tests=1
for arg in "$@"; do
  case $arg in
    --with-torch) with_torch=1 ;;
    --with-accelerate) with_torch=1 accelerate=1 ;;
    --accelerate-only) with_torch=1 accelerate=1 accel_only=1 ;;
    --no-bench) bench=0 ;;
    --no-sanitizer) sanitizer=0 ;;
    --bench-only) bench_only=1 ;;
    --cupti-settings) bench_only=1 cupti_settings=1 ;;
    --python) with_torch=1 python=1 ;;
    --python-bench) with_torch=1 python=1 python_bench=1 ;;
    --training) training=1 ;;
    --training-sanitizer) training_sanitizer=1 ;;
    --memory) with_torch=1 accelerate=1 accel_only=1 memory=1 ;;
    --compare) with_torch=1 accelerate=1 accel_only=1 compare=1 ;;
    --buckets) with_torch=1 accelerate=1 accel_only=1 buckets=1 ;;
    --concurrency) with_torch=1 accelerate=1 accel_only=1 concurrency=1 ;;
    --interop) with_torch=1 interop=1 ;;
    --no-gpu-tests) gpu_tests=0 ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done
if [ $training_sanitizer -eq 1 ] && [ $python -eq 0 ]; then
  echo "--training-sanitizer runs after the Python build: add --python" >&2
  exit 2
fi

summary=()
# step NAME LOG TIMEOUT_S COMMAND...: runs COMMAND, appends its output to $OUT/LOG, notes the result.
step() {
  local name=$1 log=$2 limit=$3 start rc
  shift 3
  start=$(date +%s)
  echo "=== $name: $*" | tee -a "$OUT/$log"
  timeout "$limit" "$@" 2>&1 | tee -a "$OUT/$log"
  rc=$?
  summary+=("| $name | $([ $rc -eq 0 ] && echo ok || echo "FAILED (rc $rc)") | $(($(date +%s) - start)) s | $log |")
  return $rc
}

step "gpu" gpu.log 30 nvidia-smi -L
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >>"$OUT/gpu.log" 2>&1

mkdir -p .deps/root
for deb in .deps/debs/*.deb; do dpkg -x "$deb" .deps/root; done
prefix="$root/.deps/root/usr"
torch_flag=-DNIMBLE_WITH_TORCH=OFF
if [ $with_torch -eq 1 ] && torch_prefix=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)' 2>/dev/null); then
  prefix="$prefix;$torch_prefix"
  torch_flag=-DNIMBLE_WITH_TORCH=ON
fi
# The Python module needs Python's headers; where the machine's python3 has none, Ubuntu's package
# (tools/fetch_gpu_deps.sh) is unpacked beside the others.
python_flags=()
if [ $python -eq 1 ]; then
  py_include=$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["include"])')
  if [ ! -f "$py_include/Python.h" ]; then
    for deb in .deps/python/*.deb; do dpkg -x "$deb" .deps/root; done
    py_include="$root/.deps/root/usr/include/$(basename "$py_include")"
    export CPATH="$root/.deps/root/usr/include${CPATH:+:$CPATH}"
  fi
  python_flags=(-DNIMBLE_WITH_PYTHON=ON "-DPython_EXECUTABLE=$(command -v python3)" "-DPython_INCLUDE_DIR=$py_include")
fi
step "configure" build.log 180 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_PREFIX_PATH=$prefix" -DSQLite3_INCLUDE_DIR="$root/.deps/root/usr/include" \
  -DSQLite3_LIBRARY=/usr/lib/x86_64-linux-gnu/libsqlite3.so.0 \
  -DNIMBLE_WITH_CUDA=ON -DNIMBLE_WITH_QT=OFF "$torch_flag" "${python_flags[@]}"
build_targets=()
[ $accel_only -eq 1 ] && build_targets=(nimble-accelerate nimble-run nimble-prof nimble_aot_gpu_tests nimble_aot_tests
  nimble_training_tests nimble_training_cpp_bench nimble_kernel_gpu_tests)
[ $accel_only -eq 1 ] && [ $gpu_tests -eq 0 ] && build_targets=(nimble-accelerate nimble-run nimble-prof)
[ $bench_only -eq 1 ] && build_targets=(nimble-prof nimble_inject launch_loop nimble_collector_bench nimble_cupti_floor nimble_store_bench)
[ $python -eq 1 ] && build_targets=(nimble_python nimble-prof nimble-prof-model nimble_inject nimble-accelerate nimble-run)
[ $python -eq 1 ] && [ $training_sanitizer -eq 1 ] && build_targets+=(nimble_training_cpp_bench)
if ! step "build" build.log 420 ninja -C "$build" -j16 "${build_targets[@]}"; then
  :
elif [ $python -eq 1 ]; then
  # pytest, where the machine's python3 lacks it: the wheels fetched beside the headers.
  pylib=$root/.deps/pylib
  if ! python3 -c 'import pytest' 2>/dev/null; then
    mkdir -p "$pylib"
    for wheel in .deps/python/wheels/*.whl; do python3 -m zipfile -e "$wheel" "$pylib"; done
  fi
  export PYTHONPATH="$build/python:$pylib${PYTHONPATH:+:$PYTHONPATH}" NIMBLE_BUILD_DIR="$build"
  # shellcheck disable=SC2086  # a list of paths
  step "pytest" python.log 420 python3 -m pytest -q -rfEs -p no:cacheprovider ${PYTEST_PATHS:-python/tests}
  if [ $training -eq 1 ]; then
    step "training bench" python.log 560 python3 bench/training_bench.py --out "$OUT/training" \
      --models "${TRAIN_MODELS:-resnet50 mobilenet_v2 efficientnet_b0}" --steps "${TRAIN_STEPS:-100}"
  fi
  if [ $training_sanitizer -eq 1 ]; then
    sanitizer_bin=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in racecheck memcheck; do
      step "$tool training (Python, multi-stream)" sanitizer.log 420 "$sanitizer_bin" --tool "$tool" \
        --error-exitcode 1 python3 python/tests/sanitize_training.py
    done
    train_dir=$(mktemp -d)
    # Deterministic: cuDNN's heuristic picks, not its timed search (hundreds of kernels under memcheck).
    if step "script mobilenet_v2" sanitizer.log 120 python3 bench/training_bench.py --script mobilenet_v2 "$train_dir/mobilenet_v2.pt"; then
      step "memcheck training (C++)" sanitizer.log 420 env CUBLAS_WORKSPACE_CONFIG=:4096:8 "$sanitizer_bin" \
        --tool memcheck --error-exitcode 1 "$build/bench/nimble_training_cpp_bench" "$train_dir/mobilenet_v2.pt" 32 3 32 32 \
        10 2 2 --deterministic
    fi
    rm -rf "$train_dir"
  fi
  if [ $python_bench -eq 1 ]; then
    step "python bench" python.log 560 bash -c "bench/python_api_bench.sh '$build' '$OUT/python_bench' > '$OUT/python_api.md'"
  fi
elif [ $cupti_settings -eq 1 ]; then
  step "cupti settings" checks.log 560 \
    bash -c "bench/cupti_settings.sh '$build' ${BENCH_REPS:-5} > '$OUT/cupti_settings.md'"
elif [ $bench_only -eq 1 ]; then
  lscpu -e=CPU,CORE,SOCKET,NODE >>"$OUT/gpu.log" 2>&1
  step "collector overhead" checks.log 560 \
    bash -c "bench/collector_overhead.sh '$build' ${BENCH_REPS:-5} > '$OUT/collector_overhead.md'"
elif [ $accel_only -eq 0 ]; then
  step "ctest gpu" ctest_gpu.log 300 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 120
  step "ctest unit+golden" ctest_unit.log 240 ctest --test-dir "$build" -LE "gpu|gui" --output-on-failure -j8
  samples=$build/samples/cuda
  sanitizer_bin=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ $sanitizer -eq 1 ]; then
    step "racecheck" checks.log 180 "$sanitizer_bin" --tool racecheck --error-exitcode 1 \
      "$samples/concurrent_streams" --iterations 2 --kernel-us 20
    step "memcheck" checks.log 180 "$sanitizer_bin" --tool memcheck --error-exitcode 1 \
      "$samples/concurrent_streams" --iterations 2 --kernel-us 20
  fi
  rm -f "$OUT/concurrent_streams.db"
  step "record sample" ctest_gpu.log 120 "$build/cli/nimble-prof" record --iteration-range iteration \
    -o "$OUT/concurrent_streams.db" -- "$samples/concurrent_streams" --streams 4 --iterations 10 --warmup 1
  rm -f "$OUT"/*.db-wal "$OUT"/*.db-shm "$OUT"/*.partial
  step "report samples" ctest_gpu.log 180 bash -c "
    set -e; tmp=\$(mktemp -d)
    '$build/cli/nimble-prof' record -o \$tmp/host_gaps.db -- '$samples/host_gaps'
    '$build/cli/nimble-prof' record -o \$tmp/graph_replay.db -- '$samples/graph_replay'
    '$build/cli/nimble-prof' record --graph-trace graph -o \$tmp/graph_level.db -- '$samples/graph_replay'
    for db in '$OUT/concurrent_streams.db' \$tmp/host_gaps.db \$tmp/graph_replay.db \$tmp/graph_level.db; do
      '$build/cli/nimble-prof' report --no-store \$db
    done
    rm -rf \$tmp"
  if [ $bench -eq 1 ]; then
    step "collector overhead" checks.log 420 \
      bash -c "bench/collector_overhead.sh '$build' ${BENCH_REPS:-5} > '$OUT/collector_overhead.md'"
  fi
fi

# ---------------------------------------------------------------------------------------------------
# Ahead-of-time scheduling (--with-accelerate): the AoT gpu tests; the five-model table
# (bench/results/accelerate.md's, by bench/accelerate_bench.sh; ACCEL_MODELS to choose, ACCEL_COMPILE=1
# for torch.compile, ACCEL_TF32=1 for TF32 convolutions on every side; --no-bench skips it) into $OUT/accelerate.md; nimble-run of the Inception-v3
# artifact in a new process; compute-sanitizer racecheck and memcheck on a multi-stream Inception-v3
# replay (--no-sanitizer skips them). Logs: accelerate.log.
if [ $accelerate -eq 1 ] && [ -x "$build/cli/nimble-accelerate" ]; then
  accel_out=$OUT/accelerate
  mkdir -p "$accel_out/models"
  if [ $gpu_tests -eq 1 ]; then
    step "aot gpu tests" accelerate.log 300 "$build/tests/accelerate/nimble_aot_gpu_tests"
    step "training tests" accelerate.log 200 "$build/tests/accelerate/nimble_training_tests"
    step "kernel tests (epilogue, memset nodes)" accelerate.log 120 "$build/tests/accelerate/nimble_kernel_gpu_tests"
  fi
  if [ $memory -eq 1 ]; then
    mem_out=$(mktemp -d)
    step "memory bench" accelerate.log 560 bash -c "bench/memory_bench.sh '$build' '$mem_out' \
      --models '${MEM_MODELS:-googlenet inception_v3 nasnetalarge resnet50 efficientnet_b0}' > '$OUT/memory.md'"
    tar -czf "$OUT/memory.tar.gz" -C "$mem_out" --exclude models --exclude '*.db*' --exclude '*.nimble' .
  fi
  if [ $buckets -eq 1 ]; then
    buckets_out=$(mktemp -d)
    step "buckets bench" accelerate.log 560 bash -c "bench/buckets_bench.sh '$build' '$buckets_out' \
      --models '${BUCKET_MODELS:-inception_v3 googlenet}' > '$OUT/buckets.md'"
    tar -czf "$OUT/buckets.tar.gz" -C "$buckets_out" --exclude models --exclude '*.nimble' .
  fi
  if [ $compare -eq 1 ]; then
    compare_out=$(mktemp -d)
    step "recorded compare" accelerate.log 420 bash -c "bench/recorded_compare.sh '$build' '$compare_out' \
      --models '${COMPARE_MODELS:-inception_v3}' > '$OUT/recorded_compare.md'"
    tar -czf "$OUT/compare.tar.gz" -C "$compare_out" .
  fi
  if [ $concurrency -eq 1 ]; then
    conc_out=$(mktemp -d)
    cases_flag=(); [ -n "${CONCURRENCY_CASES:-}" ] && cases_flag=(--cases "$CONCURRENCY_CASES")
    # CALL_BUDGET_S: the seconds this call may run; the cases stop in time to pack their databases.
    conc_limit=560
    if [ -n "${CALL_BUDGET_S:-}" ]; then
      cases_flag+=(--until $((call_start + CALL_BUDGET_S - 60)))
      # concurrency_data.sh stops a case 25 s after --until itself; this only guards the packing.
      conc_limit=$((call_start + CALL_BUDGET_S - 30 - $(date +%s)))
      [ $conc_limit -gt 560 ] && conc_limit=560
      [ $conc_limit -lt 1 ] && conc_limit=1
    fi
    step "concurrency data" accelerate.log $conc_limit bash -c "bench/concurrency_data.sh '$build' '$conc_out' ${cases_flag[*]@Q} > '$OUT/concurrency.md'"
    # The databases are large (one 20 MiB): xz, in parts under the device's 16 MiB a file.
    tar -cf - -C "$conc_out" . | xz -T0 -6 | split -b 15M - "$OUT/concurrency.tar.xz."
  fi
  if [ $bench -eq 1 ]; then
    compile_flag=""; [ "${ACCEL_COMPILE:-0}" = 1 ] && compile_flag=--compile
    [ "${ACCEL_TF32:-0}" = 1 ] && compile_flag="$compile_flag --tf32"
    step "accelerate bench" accelerate.log 560 bash -c "bench/accelerate_bench.sh '$build' '$accel_out' $compile_flag \
      --models '${ACCEL_MODELS:-resnet50 inception_v3 mobilenet_v2 efficientnet_b0 nasnetalarge}' > '$OUT/accelerate.md'"
    [ -f "$accel_out/inception_v3.nimble" ] && step "nimble-run inception" accelerate.log 120 \
      "$build/cli/nimble-run" "$accel_out/inception_v3.nimble" --iters 200
  fi
  if [ $sanitizer -eq 1 ]; then
    sanitizer_bin=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    [ -f "$accel_out/models/inception_v3.pt" ] || step "export inception" accelerate.log 240 \
      python3 samples/models/export_models.py --out "$accel_out/models" --device cuda --models inception_v3
    # The multi-stream artifact, whatever the fallback would choose.
    step "nimble-accelerate multi" accelerate.log 300 "$build/cli/nimble-accelerate" \
      "$accel_out/models/inception_v3.pt" --input 1x3x299x299 --iters 20 --mode multi -o "$accel_out/inception_v3_multi.nimble"
    step "racecheck aot" accelerate.log 420 "$sanitizer_bin" --tool racecheck --error-exitcode 1 \
      "$build/cli/nimble-run" "$accel_out/inception_v3_multi.nimble" --iters 2
    step "memcheck aot" accelerate.log 420 "$sanitizer_bin" --tool memcheck --error-exitcode 1 \
      "$build/cli/nimble-run" "$accel_out/inception_v3_multi.nimble" --iters 2
  fi
  rm -f "$accel_out"/models/*.pt "$accel_out"/*.nimble "$accel_out"/*.db-*  # large; tables, logs and dbs come back
fi
# ---------------------------------------------------------------------------------------------------

if [ $interop -eq 1 ] && [ -x "$build/cli/nimble-prof" ]; then
  interop_out=$(mktemp -d)
  step "interop traces" interop.log 420 env OUT="$interop_out" bash bench/interop_traces.sh \
    --prof "$build/cli/nimble-prof" --no-fixtures --rounds "${INTEROP_ROUNDS:-3}"
  tar -czf "$OUT/interop.tar.gz" -C "$interop_out" .
fi

{
  echo
  echo "| step | result | time | log |"
  echo "| --- | --- | --- | --- |"
  printf '%s\n' "${summary[@]}"
} | tee "$OUT/summary.md"
