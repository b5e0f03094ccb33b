#!/usr/bin/env bash
# What CUPTI's own settings change in its cost, on the GPU machine: the launch-bound loops of
# bench/collector_overhead.sh (samples/cuda/launch_loop) run bare and under CUPTI alone
# (collector/bench/cupti_floor.cpp, buffers discarded unread) with kernel records and one setting
# changed at a time, plus graph-level tracing instead of (or next to) per-kernel records. Variants
# rotate their order in each of REPS repetitions; medians (and ranges) of the wall time per launch /
# per replay and of the final synchronize; then, from one more run of each variant, the records CUPTI
# delivered by kind. Prints markdown to stdout (save it under bench/results/).
#   bench/cupti_settings.sh BUILD_DIR [REPS]
# VARIANTS and LOOPS (space-separated names from the lists below) choose a subset.
set -euo pipefail
build=${1:?usage: cupti_settings.sh BUILD_DIR [REPS]}
reps=${2:-5}
loop="$build/samples/cuda/launch_loop"
floor_lib="$build/bench/libnimble_cupti_floor.so"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

read -r -a loops <<<"${LOOPS:-launch graph graph5}"
# variant name -> "KINDS ATTRS" for the CUPTI-alone library ("-" for no attributes)
declare -A setting=(
  [kernel]="kernel -"
  [pinned]="kernel pinned"
  [zeroed]="kernel zeroed"
  [shared]="kernel shared"
  [devbuf]="kernel devbuf=33554432,prealloc=4"
  [devbuf8]="kernel devbuf=8388608"
  [devbuf32]="kernel devbuf=33554432"
  [devbufzeroed]="kernel devbuf=33554432,zeroed"
  [alltuned]="all devbuf=33554432,zeroed"
  [graphonly]="graph -"
  [kernelgraph]="kernel+graph -"
  [all]="all -"
  [allshared]="all shared"
)
read -r -a variants <<<"${VARIANTS:-bare kernel pinned zeroed shared devbuf graphonly kernelgraph all allshared}"
loop_args() {
  case $1 in
    launch) echo "--mode launch --kernels 100000 --warmup 2000" ;;
    launch5) echo "--mode launch --kernels 500000 --warmup 2000" ;;
    graph) echo "--mode graph --kernels 200000 --graph-kernels 100 --warmup 2000" ;;
    graph5) echo "--mode graph --kernels 50000 --graph-kernels 100 --warmup 1000 --kernel-ns 5000" ;;
  esac
}

run_one() {  # run_one LOOP VARIANT [count]: appends the figures to $work/LOOP.VARIANT.{time,sync}
  local name=$1 variant=$2 count=${3:-0} key=us_per_replay out kinds attrs
  [[ $name == launch* ]] && key=us_per_kernel
  # shellcheck disable=SC2046 # loop_args is a list of flags
  if [ "$variant" = bare ]; then
    out=$("$loop" $(loop_args "$name") 2>&1)
  else
    read -r kinds attrs <<<"${setting[$variant]}"
    [ "$attrs" = - ] && attrs=""
    out=$(CUDA_INJECTION64_PATH="$floor_lib" NIMBLE_FLOOR_KINDS="$kinds" NIMBLE_FLOOR_ATTRS="$attrs" \
      NIMBLE_FLOOR_COUNT="$count" "$loop" $(loop_args "$name") 2>&1)
  fi
  if echo "$out" | grep -q "failed\|unknown"; then
    echo "$out" | grep "failed\|unknown" | sed "s/^/$name $variant: /" >>"$work/errors"
  fi
  if [ "$count" = 1 ]; then
    echo "$out" | sed -n 's/^cupti_floor: records//p' >"$work/$name.$variant.records"
    echo "$out" | sed -n 's/.*dropped=\([0-9]*\).*/\1/p' >"$work/$name.$variant.dropped"
    return
  fi
  local line
  line=$(echo "$out" | grep -o "launch_loop: .*" | tr ' ' '\n')
  echo "$line" | sed -n "s/^$key=//p" >>"$work/$name.$variant.time"
  echo "$line" | sed -n "s/^sync_us=//p" >>"$work/$name.$variant.sync"
}

for ((r = 0; r < reps; r++)); do
  for name in "${loops[@]}"; do
    for ((i = 0; i < ${#variants[@]}; i++)); do
      run_one "$name" "${variants[$(((i + r) % ${#variants[@]}))]}"
    done
  done
done
for name in "${loops[@]}"; do
  for v in "${variants[@]}"; do
    [ "$v" = bare ] || run_one "$name" "$v" 1
  done
done

python3 - "$work" "$reps" "${variants[@]}" <<'PY'
import os, statistics, sys
work, reps, variants = sys.argv[1], sys.argv[2], sys.argv[3:]
labels = {"bare": "bare", "kernel": "kernels, defaults", "pinned": "kernels, pinned host timestamp buffers",
          "zeroed": "kernels, zeroed buffers handed to CUPTI", "shared": "kernels, one buffer for all threads",
          "devbuf": "kernels, 32 MiB device buffers, 4 made up front", "graphonly": "graph-level trace only",
          "kernelgraph": "kernels + graph-level trace", "all": "all kinds, defaults",
          "allshared": "all kinds, one buffer for all threads", "devbuf8": "kernels, 8 MiB device buffers",
          "devbuf32": "kernels, 32 MiB device buffers", "devbufzeroed": "kernels, 32 MiB device buffers, zeroed buffers",
          "alltuned": "all kinds, 32 MiB device buffers, zeroed buffers"}
def values(name):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [float(x) for x in f if x.strip()]
def cell(name, bare, relative):
    v = values(name + ".time")
    if not v:
        return "n/a"
    m = statistics.median(v)
    added = f"{100 * (m - bare) / bare:+.1f} %" if relative else f"{m - bare:+.3f} µs"
    sync = values(name + ".sync")
    return f"{m:.3f} ({added})<br>{min(v):.2f}-{max(v):.2f}<br>sync {statistics.median(sync) / 1e3:.2f} ms"
every_row = (("launch", "100 000 empty kernels, one launch each", "µs per launch"),
             ("launch5", "500 000 empty kernels, one launch each", "µs per launch"),
             ("graph", "2 000 replays of a graph of 100 empty kernels", "µs per replay"),
             ("graph5", "500 replays of a graph of 100 kernels of 5 µs", "µs per replay"))
rows = [r for r in every_row if values(f"{r[0]}.bare.time")]
print(f"### CUPTI alone, one setting at a time (median of {reps} rotating runs)\n")
print("Each cell: the median, the range over the runs, and the median time of the final synchronize.\n")
print("| variant | " + " | ".join(f"{label} ({unit})" for _, label, unit in rows) + " |")
print("| --- | " + " | ".join("---" for _ in rows) + " |")
for v in variants:
    cells = []
    for name, _, _ in rows:
        bare = statistics.median(values(f"{name}.bare.time"))
        cells.append(cell(f"{name}.{v}", bare, not name.startswith("launch")))
    print(f"| {labels[v]} | " + " | ".join(cells) + " |")
print("\n### Records CUPTI delivered, by kind (one more run of each variant)\n")
print("CUpti_ActivityKind numbers: 10 concurrent kernel, 4 runtime, 5 driver, 51 graph trace.\n")
print("| variant | " + " | ".join(label for _, label, _ in rows) + " |")
print("| --- | " + " | ".join("---" for _ in rows) + " |")
for v in variants[1:]:
    cells = []
    for name, _, _ in rows:
        rec = os.path.join(work, f"{name}.{v}.records")
        drop = os.path.join(work, f"{name}.{v}.dropped")
        text = open(rec).read().strip() if os.path.exists(rec) else "n/a"
        dropped = open(drop).read().strip() if os.path.exists(drop) else "?"
        cells.append(f"{text}, dropped {dropped or '?'}")
    print(f"| {labels[v]} | " + " | ".join(cells) + " |")
errors = os.path.join(work, "errors")
if os.path.exists(errors):
    print("\nCUPTI calls that failed:\n\n```\n" + open(errors).read() + "```")
print()
PY
