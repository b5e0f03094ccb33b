#!/usr/bin/env bash
# Multi-stream capture on real streams against the branch capture (nimble-accelerate
# --cross-stream-reuse: the schedule's streams as branches of one capture stream, so that the graph's
# pool reuses memory across them), on the GPU machine after tools/gpu_check.sh --accelerate-only.
# Per model: one nimble-accelerate run of each (--no-record: the prediction is not what is compared),
# then nimble-run on the branch capture's model.nimble (a new process captures it again).
# VARIANTS (default "streams reuse"): "streams", "reuse", "reuse:F" (--branch-release-delay F),
# "reuse:F:MIB" (and --branch-hold-max-mib MIB), "budget:R" (--cross-stream-reuse --memory-ratio R:
# the budget chooses the capture and hold, in the default order: size before 2026-11-28's change to
# wait), "budgetw:R" or "budgets:R" (the same with --branch-hold-order wait or size).
# Writes <out>/<model>_<variant>.json, .log, .run (nimble-run), and a markdown table to stdout.
#   [VARIANTS=...] bench/branch_capture.sh BUILD_DIR OUT_DIR ITERS [MODELS...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: branch_capture.sh BUILD_DIR OUT_DIR ITERS [MODELS...]}
out=${2:?usage: branch_capture.sh BUILD_DIR OUT_DIR ITERS [MODELS...]}
iters=${3:?usage: branch_capture.sh BUILD_DIR OUT_DIR ITERS [MODELS...]}
shift 3
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(googlenet inception_v3 nasnetalarge)
mkdir -p "$out"
python3 samples/models/export_models.py --out "$out/models" --device cuda --models "${models[@]}" >"$out/export.log" 2>&1 ||
  { echo "model export failed; see $out/export.log" >&2; exit 1; }
echo "$(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
echo "| model | capture | single ms | multi ms | multi/single speed | gain kept | single peak MiB | multi peak MiB | multi/single peak | multi pool MiB (unseeded) | hold | reused blocks / added deps | max rel error | nimble-run |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for model in "${models[@]}"; do
  shape=$(python3 -c "import json;print('x'.join(map(str,json.load(open('$out/models/manifest.json'))['models']['$model']['input_shape'])))")
  for variant in ${VARIANTS:-streams reuse}; do
    extra=()
    case $variant in
      reuse) extra=(--cross-stream-reuse) ;;
      reuse:*:*) rest=${variant#reuse:}
                 extra=(--cross-stream-reuse --branch-release-delay "${rest%%:*}" --branch-hold-max-mib "${rest#*:}") ;;
      reuse:*) extra=(--cross-stream-reuse --branch-release-delay "${variant#reuse:}") ;;
      budget:*) extra=(--cross-stream-reuse --memory-ratio "${variant#budget:}") ;;
      budgetw:*) extra=(--cross-stream-reuse --memory-ratio "${variant#budgetw:}" --branch-hold-order wait) ;;
      budgets:*) extra=(--cross-stream-reuse --memory-ratio "${variant#budgets:}" --branch-hold-order size) ;;
    esac
    timeout 280 "$build/cli/nimble-accelerate" "$out/models/$model.pt" --input "$shape" --iters "$iters" --no-record \
      "${extra[@]}" --json -o "$out/${model}_$variant.nimble" >"$out/${model}_$variant.json" 2>"$out/${model}_$variant.log" ||
      echo "| $model | $variant: failed (see ${model}_$variant.log) | | | | | | | | | | | | |"
    if [ "$variant" != streams ] && [ -f "$out/${model}_$variant.nimble" ]; then
      "$build/cli/nimble-run" "$out/${model}_$variant.nimble" --iters "$iters" >"$out/${model}_$variant.run" 2>&1
    fi
  done
  python3 - "$out" "$model" ${VARIANTS:-streams reuse} <<'PY'
import json, os, re, sys
out, model = sys.argv[1], sys.argv[2]
runs = {}
for v in sys.argv[3:]:
    try:
        runs[v] = json.load(open(f"{out}/{model}_{v}.json"))
    except Exception:
        pass
def gain(r):
    return r["single"]["measured_ms"] / r["multi"]["measured_ms"] - 1 if r.get("multi") else None
base = gain(runs["streams"]) if "streams" in runs else None
for v, r in runs.items():
    s, m = r["single"], r.get("multi")
    if not m:
        print(f"| {model} | {v} | {s['measured_ms']:.3f} | - | | | | | | | | | | |")
        continue
    g = gain(r)
    kept = f"{g / base * 100:.0f} %" if base else "-"
    sp, mp = s["peak_memory_bytes"] / 2**20, m["peak_memory_bytes"] / 2**20
    reuse = f"{m['reused_blocks']} / {m['hazard_edges']}" if m.get("branch_capture") else "-"
    pool = f"{m['graph_pool_bytes'] / 2**20:.0f}"
    if m.get("unseeded_graph_pool_bytes", -1) >= 0:
        pool += f" ({m['unseeded_graph_pool_bytes'] / 2**20:.0f}, {m['unseeded_measured_ms']:.3f} ms)"
    hold = "-"
    if m.get("branch_capture"):
        delay, most = m.get("branch_release_delay", 0), m.get("branch_hold_max_bytes", 0)
        per_us = m.get("branch_hold_max_bytes_per_us", 0)
        hold = "none" if delay <= 0 else f"F {delay:g}, " + (
            f"up to {per_us / 1024:.0f} KiB per us of wait" if per_us else f"ops up to {most / 2**20:.2f} MiB" if most else "all")
    if m.get("delayed_values"):
        reuse += f" ({m['delayed_values']} held longer)"
    ran = "-"
    if v != "streams" and os.path.exists(f"{out}/{model}_{v}.run"):
        text = open(f"{out}/{model}_{v}.run").read()
        found = re.search(r"graph pool ([0-9.]+) MiB", text)
        ran = f"pool {found.group(1)} MiB" if found else "see .run"
    print(f"| {model} | {v} | {s['measured_ms']:.3f} | {m['measured_ms']:.3f} | {s['measured_ms'] / m['measured_ms']:.2f}x | {kept} | "
          f"{sp:.0f} | {mp:.0f} | {mp / sp:.2f}x | {pool} | {hold} | {reuse} | {m['max_rel_error']:.1e} | {ran} |")
PY
  rm -f "$out/$model"_*.nimble
done
rm -rf "$out/models"
