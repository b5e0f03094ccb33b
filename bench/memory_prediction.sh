#!/usr/bin/env bash
# The graph pool each captured schedule reserves against the pool predicted before capturing it
# (analysis/memory_prediction.h: the single-stream capture's allocator requests replayed per stream),
# on the GPU machine after tools/gpu_check.sh --accelerate-only. One nimble-accelerate run per case
# MODEL:MAX_STREAMS[:RATIO] (0: no cap; RATIO: --memory-ratio, whose every trial is printed too).
# A multi-stream mode whose pool nimble-accelerate seeded per stream shows the same schedule's pool
# captured unseeded beside it, and model.nimble's pool as nimble-run captures it in a new process.
# Writes <out>/<case>.json, .log and .run (nimble-run's output), and a markdown table to stdout.
#   bench/memory_prediction.sh BUILD_DIR OUT_DIR [CASES...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: memory_prediction.sh BUILD_DIR OUT_DIR [CASES...]}
out=${2:?usage: memory_prediction.sh BUILD_DIR OUT_DIR [CASES...]}
shift 2
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(googlenet:0 inception_v3:0 nasnetalarge:0 nasnetalarge:4 nasnetalarge:2 nasnetalarge:0:1.5)
mkdir -p "$out"
models=$(printf '%s\n' "${cases[@]}" | cut -d: -f1 | sort -u)
# shellcheck disable=SC2086  # a list of names
python3 samples/models/export_models.py --out "$out/models" --device cuda --models $models >"$out/export.log" 2>&1 ||
  { echo "model export failed; see $out/export.log" >&2; exit 1; }
echo "$(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
echo
echo "| case | mode | streams | graph pool MiB measured | predicted | error | predicted in use at once | sum of the streams' own peaks | unseeded MiB (replay ms seeded / unseeded) | nimble-run's pool MiB |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for c in "${cases[@]}"; do
  IFS=: read -r model cap ratio <<<"$c"
  name=${model}_cap${cap}${ratio:+_ratio$ratio}
  shape=$(python3 -c "import json;print('x'.join(map(str,json.load(open('$out/models/manifest.json'))['models']['$model']['input_shape'])))")
  extra=(); [ -n "$ratio" ] && extra=(--memory-ratio "$ratio")
  if ! timeout 240 "$build/cli/nimble-accelerate" "$out/models/$model.pt" --input "$shape" --iters 20 --no-record \
       --max-streams "$cap" --mode multi "${extra[@]}" --json -o "$out/$name.nimble" >"$out/$name.json" 2>"$out/$name.log"; then
    echo "| $name | failed (see $name.log) | | | | | | | | |"
    continue
  fi
  "$build/cli/nimble-run" "$out/$name.nimble" --iters 20 >"$out/$name.run" 2>&1
  python3 - "$out/$name.json" "$name" "$out/$name.run" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
run = re.search(r"graph pool ([0-9.]+) MiB", open(sys.argv[3]).read())
rows = [(k, r[k]) for k in ("single", "multi") if r.get(k)]
rows += [(f"trial", t) for t in r.get("memory_trials", [])]
for key, m in rows:
    measured, predicted = m["graph_pool_bytes"], m.get("predicted_graph_pool_bytes", -1)
    err = f"{(predicted - measured) / measured * 100:+.1f} %" if predicted >= 0 and measured > 0 else "-"
    pred = f"{predicted / 2**20:.1f}" if predicted >= 0 else "-"
    at_once = m.get("predicted_pool_peak_allocated_bytes", -1)
    own = sum(s["peak_allocated_bytes"] for s in m.get("predicted_pool_streams", []))
    at_once = f"{at_once / 2**20:.1f}" if at_once >= 0 else "-"
    own = f"{own / 2**20:.1f}" if m.get("predicted_pool_streams") else "-"
    unseeded = "-"
    if m.get("unseeded_graph_pool_bytes", -1) >= 0:
        unseeded = f"{m['unseeded_graph_pool_bytes'] / 2**20:.1f} ({m['measured_ms']:.3f} / {m['unseeded_measured_ms']:.3f})"
    ran = run.group(1) if run and key == "multi" else "-"
    print(f"| {sys.argv[2]} | {key} | {m['streams']} | {measured / 2**20:.1f} | {pred} | {err} | {at_once} | {own} | {unseeded} | {ran} |")
PY
  rm -f "$out/$name.nimble"
done
rm -rf "$out/models"
