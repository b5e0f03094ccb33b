#!/usr/bin/env bash
# What the collector costs, measured side by side in one run on the GPU machine:
#  - launch-bound loops (samples/cuda/launch_loop): 100 000 empty kernels launched one by one, 2 000
#    replays of a graph of 100 empty kernels, and 500 replays of a graph of 100 kernels of 5 us; each
#    run bare, under `nimble-prof record` with all kinds, all but driver API, and kernels only, with all
#    kinds and graphs recorded at graph level (--graph-trace graph), and
#    under CUPTI alone (collector/bench/cupti_floor.cpp: the same kinds, buffers discarded unread) with all kinds
#    and kernels only, in rotating order, REPS times; where the GPU grants hardware kernel timestamps
#    (Blackwell), also kernels only with `--kernel-timestamps hardware`; medians (and the range) of the
#    wall time per launch / per replay the program prints. BENCH_CPUS=LIST pins every process to those CPUs;
#  - where the launch loop's time goes: from each recording's kernel start times, the median interval
#    between launches and the share of the loop spent in stalls (intervals over 4x the median);
#  - the CPU throughput of the record -> database path on synthetic CUPTI buffers (and, for
#    attribution, of the store's RunWriter alone).
# Prints markdown to stdout (save it under bench/results/).
#   bench/collector_overhead.sh BUILD_DIR [REPS]
set -euo pipefail
build=${1:?usage: collector_overhead.sh BUILD_DIR [REPS]}
reps=${2:-5}
prof="$build/cli/nimble-prof"
loop="$build/samples/cuda/launch_loop"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

loops=(launch graph graph5)
variants=(bare all nodriver kernel floorall floorkernel graphlevel)
floor_lib="$build/bench/libnimble_cupti_floor.so"
# Hardware kernel timestamps exist on Blackwell only (CUPTI 13.0): one short recording asks for them,
# and the variant runs where the GPU grants them (elsewhere it would repeat "kernels only").
hw_probe=$("$prof" record --kinds kernel --kernel-timestamps hardware -o "$work/probe.db" -- \
  "$loop" --mode launch --kernels 1000 --warmup 10 2>&1) || true
rm -f "$work/probe.db"
if grep -q "kernel timestamps from hardware" <<<"$hw_probe"; then
  variants+=(hwkernel)
  hw_note=""
else
  hw_note=$(grep -o "hardware_timestamps_refused = 1 (.*)" <<<"$hw_probe" || echo "probe failed: $hw_probe")
fi
pin=()
[ -n "${BENCH_CPUS:-}" ] && pin=(taskset -c "$BENCH_CPUS")
loop_args() {
  case $1 in
    launch) echo "--mode launch --kernels 100000 --warmup 2000" ;;
    graph) echo "--mode graph --kernels 200000 --graph-kernels 100 --warmup 2000" ;;
    graph5) echo "--mode graph --kernels 50000 --graph-kernels 100 --warmup 1000 --kernel-ns 5000" ;;
  esac
}
kinds_of() {
  case $1 in
    all) echo all ;;
    nodriver) echo kernel,memcpy,memset,runtime,sync,nvtx,external_correlation,overhead ;;
    kernel | hwkernel) echo kernel ;;
    graphlevel) echo all ;;
  esac
}

run_one() {  # run_one LOOP VARIANT: appends the loop's figure to $work/LOOP.VARIANT
  local name=$1 variant=$2 key=us_per_replay out
  [ "$name" = launch ] && key=us_per_kernel
  # shellcheck disable=SC2046 # loop_args is a list of flags
  if [ "$variant" = bare ]; then
    out=$("${pin[@]}" "$loop" $(loop_args "$name"))
  elif [ "$variant" = floorall ] || [ "$variant" = floorkernel ]; then
    out=$(CUDA_INJECTION64_PATH="$floor_lib" NIMBLE_FLOOR_KINDS="${variant#floor}" \
      "${pin[@]}" "$loop" $(loop_args "$name") 2>&1)
    echo "$out" | sed -n 's/.*cupti_floor: buffers=[0-9]* dropped=\([0-9]*\).*/\1/p' >>"$work/dropped"
  else
    local graph_trace=node stamps=software
    [ "$variant" = graphlevel ] && graph_trace=graph
    [ "$variant" = hwkernel ] && stamps=hardware
    out=$("${pin[@]}" "$prof" record --kinds "$(kinds_of "$variant")" --graph-trace "$graph_trace" \
      --kernel-timestamps "$stamps" -o "$work/run.db" -- "$loop" $(loop_args "$name") 2>&1)
    if [ "$name" = launch ] && [ ! -f "$work/launch.$variant.db" ]; then
      mv "$work/run.db" "$work/launch.$variant.db"  # the first of each, for the stall analysis
    fi
    rm -f "$work/run.db"
    echo "$out" | sed -n 's/.*dropped records: \([0-9]*\).*/\1/p' >>"$work/dropped"
  fi
  echo "$out" | grep -o "launch_loop: .*" | tr ' ' '\n' | sed -n "s/^$key=//p" >>"$work/$name.$variant"
}

for ((r = 0; r < reps; r++)); do
  for name in "${loops[@]}"; do
    for ((i = 0; i < ${#variants[@]}; i++)); do  # rotate: no variant always runs first
      run_one "$name" "${variants[$(((i + r) % ${#variants[@]}))]}"
    done
  done
done

python3 - "$work" "$reps" "$hw_note" <<'PY'
import os, statistics, sys
work, reps, hw_note = sys.argv[1], sys.argv[2], sys.argv[3]
hw = os.path.exists(os.path.join(work, "launch.hwkernel"))
def values(name):
    with open(os.path.join(work, name)) as f:
        return [float(x) for x in f if x.strip()]
def med(name):
    return statistics.median(values(name))
def spread(name):
    v = values(name)
    return f"{min(v):.2f}-{max(v):.2f}"
print(f"### GPU: launch-bound loops, bare vs. under `nimble-prof record` (median of {reps} rotating runs)\n")
print("`nimble-prof record` with all kinds, all kinds but the driver API, kernels only; then CUPTI alone")
print("with all kinds and with kernels only (`collector/bench/cupti_floor.cpp`); last, `nimble-prof record` with all kinds")
print("and CUDA graphs recorded at graph level (`--graph-trace graph`). Below each median: the range over the runs.\n")
if hw:
    print("Last column: kernels only with hardware kernel timestamps (`--kernel-timestamps hardware`).\n")
else:
    print(f"Hardware kernel timestamps (`--kernel-timestamps hardware`): not measured, not granted on this GPU: "
          f"`{hw_note}`.\n")
variants = ["all", "nodriver", "kernel", "floorall", "floorkernel", "graphlevel"] + (["hwkernel"] if hw else [])
print("| loop | figure | bare | all kinds | all but driver API | kernels only | CUPTI alone, all kinds | CUPTI alone, kernels only | all kinds, graph level |"
      + (" kernels only, hardware timestamps |" if hw else ""))
print("| --- " * (len(variants) + 3) + "|")
rows = (("launch", "100 000 empty kernels, one launch each", "µs per launch"),
        ("graph", "2 000 replays of a graph of 100 empty kernels", "µs per replay"),
        ("graph5", "500 replays of a graph of 100 kernels of 5 µs", "µs per replay"))
for name, label, unit in rows:
    bare = med(f"{name}.bare")
    cells = []
    for v in variants:
        x = med(f"{name}.{v}")
        added = f"{x - bare:+.3f} µs" if name == "launch" else f"{100 * (x - bare) / bare:+.1f} %"
        cells.append(f"{x:.3f} ({added})<br>{spread(f'{name}.{v}')}")
    print(f"| {label} | {unit} | {bare:.3f}<br>{spread(f'{name}.bare')} | " + " | ".join(cells) + " |")
print("\nWhat `nimble-prof record` adds above CUPTI alone, paired by repetition (in each, the two ran")
print("within seconds of each other): the median of the differences, and their range.\n")
print("| loop | kernels only | all kinds |")
print("| --- | --- | --- |")
for name, label, unit in rows:
    cells = []
    for ours, floor in (("kernel", "floorkernel"), ("all", "floorall")):
        a, b = values(f"{name}.{ours}"), values(f"{name}.{floor}")
        if name == "launch":
            d = [x - y for x, y in zip(a, b)]
            cells.append(f"{statistics.median(d):+.3f} µs ({min(d):+.2f} to {max(d):+.2f})")
        else:
            d = [100 * (x - y) / y for x, y in zip(a, b)]
            cells.append(f"{statistics.median(d):+.1f} % ({min(d):+.1f} to {max(d):+.1f})")
    print(f"| {label} | " + " | ".join(cells) + " |")
with open(os.path.join(work, "dropped")) as f:
    dropped = [int(x) for x in f if x.strip()]
print(f"\nDropped records over all {len(dropped)} recorded runs: {sum(dropped)}\n")
PY

python3 - "$work" <<'PY'
import os, sqlite3, statistics, sys
work = sys.argv[1]
print("### Where the launch loop's time goes under `nimble-prof record` (first run of each)\n")
print("From the recorded kernels' start times (the GPU idles between these empty kernels, so they start")
print("when they are launched): the median interval between launches, the mean, and the share of the")
print("loop spent in stalls, i.e. the time beyond the median in intervals over 4x the median.\n")
print("| kinds | kernels | median interval µs | mean interval µs | stall share | stalls |")
print("| --- | --- | --- | --- | --- | --- |")
for variant, label in (("all", "all kinds"), ("nodriver", "all but driver API"), ("kernel", "kernels only"),
                       ("hwkernel", "kernels only, hardware timestamps")):
    path = os.path.join(work, f"launch.{variant}.db")
    if not os.path.exists(path):
        continue
    starts = [r[0] for r in sqlite3.connect(path).execute(
        "SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start")]
    starts = starts[-100000:]  # the timed loop; the warm-up launches come first
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    median = statistics.median(gaps)
    stalls = [g for g in gaps if g > 4 * median]
    share = sum(g - median for g in stalls) / sum(gaps)
    print(f"| {label} | {len(starts)} | {median / 1e3:.3f} | {statistics.mean(gaps) / 1e3:.3f} | "
          f"{100 * share:.1f} % | {len(stalls)} |")
print()
PY

echo "### CPU: record -> database path on synthetic CUPTI buffers (1 M launches per iteration, 3 iterations)"
echo
"$build/bench/nimble_collector_bench" --benchmark_format=json --benchmark_min_time=0.5 2>/dev/null | python3 -c '
import json, sys
what = {"BM_ConvertBuffer": "conversion only (one 4 MiB buffer, all kinds)",
        "BM_PipelineToNothing": "pool + pipeline thread + conversion, no database",
        "BM_PipelineToDatabase/1000000/1": "whole path into a new run.db, all kinds (1 kernel + 2 API records per launch)",
        "BM_PipelineToDatabase/1000000/0": "whole path into a new run.db, kernels only"}
print("| path | launches per second | producer waits |")
print("| --- | --- | --- |")
for b in json.load(sys.stdin)["benchmarks"]:
    key = next((k for k in sorted(what, key=len, reverse=True) if b["name"].startswith(k)), b["name"])
    print("| {} | {:,.0f} | {} |".format(what.get(key, key), b.get("kernels_per_s", 0), int(b.get("producer_waits", 0))))
'
store_bench="$build/bench/nimble_store_bench"
if [ -x "$store_bench" ]; then
  "$store_bench" --benchmark_format=json --benchmark_filter='WriteKernelsNewFile/batch:65536/records:1048576/configs:1000' 2>/dev/null | python3 -c '
import json, sys
for b in json.load(sys.stdin)["benchmarks"]:
    print("| for attribution: RunWriter alone, kernel rows into a new file ({}) | {:,.0f} | - |".format(b["name"], b.get("items_per_second", 0)))
'
fi
