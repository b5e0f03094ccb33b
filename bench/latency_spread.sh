#!/usr/bin/env bash
# Batch-1 latency of nimble-prof against torch, in alternating processes. Batch-1 latency is host
# time, and on a shared machine a whole process can run far slower than the next one (measured: the
# same module 1.8 ms in one process, 3.1 ms in the next), so one process per side decides nothing.
# After bench/model_profile.sh has built nimble-prof and profiled the models (--save-module), this
# runs ROUNDS rounds; in each, for every model: nimble-prof (C++, CUDA events around module.forward),
# then Python on the module nimble-prof saved (host clock around forward + synchronize), each timing
# 100 forwards after 5 warmup on PIN_CPUS. The comparison takes the median over rounds of each side's
# per-process median, so one slow process on either side does not decide it; within 10 % passes.
# REFROZEN=1 adds a third process per model: the traced file frozen again in Python, not specialized
# to the input shapes. Prints markdown.
#   bash bench/latency_spread.sh [ROUNDS] [MODEL ...]   (default: 3, the models of the manifest)
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
shift || true
work=build-model-profile
manifest=$work/models/manifest.json
models=("$@")
[ ${#models[@]} -eq 0 ] && read -ra models < <(python3 -c "import json,sys;print(' '.join(json.load(open(sys.argv[1]))['models']))" "$manifest")
prof=${BUILD_DIR:-build-gpu-prof}/cli/nimble-prof
pin=(taskset -c "${PIN_CPUS:-2,3}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/time.py" <<'PY'
import json, statistics, sys, time, torch
path, shape, refreeze = sys.argv[1], [int(v) for v in sys.argv[2].split("x")], sys.argv[3] == "1"
module = torch.jit.load(path, map_location="cuda").eval()
if refreeze:
    module = torch.jit.freeze(module)
x = torch.randn(shape, device="cuda")
with torch.inference_mode(), torch.jit.optimized_execution(False):
    for _ in range(5):
        module(x)
    torch.cuda.synchronize()
    timed = []
    for _ in range(100):
        start = time.perf_counter_ns()
        module(x)
        torch.cuda.synchronize()
        timed.append(time.perf_counter_ns() - start)
print(json.dumps(timed))
PY
shape_of() {
  python3 -c "import json,sys;print('x'.join(map(str,json.load(open(sys.argv[1]))['models'][sys.argv[2]]['input_shape'])))" "$manifest" "$1"
}
results=$tmp/results.jsonl
for r in $(seq "$rounds"); do
  for name in "${models[@]}"; do
    shape=$(shape_of "$name")
    if "${pin[@]}" "$prof" "$work/models/$name.pt" --input "$shape" --iters 2 --warmup 5 --timed-iters 100 \
        -o "$tmp/$name.db" --json -q >"$tmp/$name.json"; then
      python3 -c "import json,sys;print(json.dumps({'round':int(sys.argv[2]),'model':sys.argv[3],'side':'nimble-prof','ns':json.load(open(sys.argv[1]))['runs'][0]['profile']['forward_timed_ns']}))" \
        "$tmp/$name.json" "$r" "$name" >>"$results"
    fi
    rm -f "$tmp/$name.db"
    for variant in saved $([ "${REFROZEN:-0}" = 1 ] && echo refrozen); do
      file=$work/$name.profiled.pt refreeze=0
      [ "$variant" = refrozen ] && file=$work/models/$name.pt refreeze=1
      ns=$("${pin[@]}" python3 "$tmp/time.py" "$file" "$shape" "$refreeze") &&
        echo "{\"round\": $r, \"model\": \"$name\", \"side\": \"torch, $variant\", \"ns\": $ns}" >>"$results"
    done
  done
done
python3 - "$results" "$rounds" "${pin[*]}" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
per = collections.defaultdict(dict)
for row in rows:
    per[(row["model"], row["side"])][row["round"]] = statistics.median(row["ns"]) / 1e6
models = list(dict.fromkeys(row["model"] for row in rows))
sides = list(dict.fromkeys(row["side"] for row in rows))
print(f"Median latency of 100 forwards per process (ms), {sys.argv[2]} alternating rounds, `{sys.argv[3]}`:\n")
print("| model | side | " + " | ".join(f"round {r}" for r in range(1, int(sys.argv[2]) + 1)) + " | median of rounds |")
print("| --- | --- |" + " --- |" * (int(sys.argv[2]) + 1))
for m in models:
    for s in sides:
        v = per[(m, s)]
        cells = " | ".join(f"{v[r]:.3f}" if r in v else "-" for r in range(1, int(sys.argv[2]) + 1))
        print(f"| {m} | {s} | {cells} | {statistics.median(v.values()):.3f} |" if v else f"| {m} | {s} | {cells} | - |")
print("\n| model | nimble-prof (ms) | torch, saved module (ms) | delta | within 10 % |")
print("| --- | --- | --- | --- | --- |")
ok = True
for m in models:
    a, b = per[(m, "nimble-prof")], per[(m, "torch, saved")]
    if not a or not b:
        print(f"| {m} | - | - | - | no figure |"); ok = False; continue
    na, nb = statistics.median(a.values()), statistics.median(b.values())
    d = (na - nb) / nb
    ok &= abs(d) <= 0.10
    print(f"| {m} | {na:.3f} | {nb:.3f} | {d * 100:+.1f}% | {'yes' if abs(d) <= 0.10 else 'NO'} |")
sys.exit(0 if ok else 1)
PY
