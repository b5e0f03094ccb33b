#!/usr/bin/env bash
# What the peak reserved holds beyond the graph pool: nimble-accelerate (--mode multi, both modes
# captured) and nimble-run of its model.nimble, once with PyTorch's cuBLAS and cuBLASLt workspaces as
# Nimble sets them (32 MiB each on Hopper) and once with 1 MiB each. A part outside the pool that shrinks
# with the workspaces is the workspaces of the capture streams (a cuBLAS workspace is kept per stream).
# On the GPU machine after tools/gpu_check.sh --accelerate-only:
#   bench/diag/outside_pool.sh BUILD_DIR OUT_DIR [MODEL ...]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=${1:?usage: outside_pool.sh BUILD_DIR OUT_DIR [MODEL ...]}
out=${2:?usage: outside_pool.sh BUILD_DIR OUT_DIR [MODEL ...]}
shift 2
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(nasnetalarge googlenet)
mkdir -p "$out"
python3 samples/models/export_models.py --out "$out/models" --device cuda --models "${models[@]}" >"$out/export.log" 2>&1 ||
  { echo "model export failed; see $out/export.log" >&2; exit 1; }
echo "$(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
echo
echo "| model | workspaces | mode | peak reserved MiB | graph pool MiB | outside the pool | nimble-run: peak / pool MiB |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for model in "${models[@]}"; do
  shape=$(python3 -c "import json;print('x'.join(map(str,json.load(open('$out/models/manifest.json'))['models']['$model']['input_shape'])))")
  for variant in nimble small; do
    env_args=()
    [ "$variant" = small ] && env_args=(CUBLASLT_WORKSPACE_SIZE=1024 CUBLAS_WORKSPACE_CONFIG=:1024:1)
    name=${model}_$variant
    if ! env "${env_args[@]}" timeout 200 "$build/cli/nimble-accelerate" "$out/models/$model.pt" --input "$shape" \
         --iters 20 --no-record --mode multi --json -o "$out/$name.nimble" >"$out/$name.json" 2>"$out/$name.log"; then
      echo "| $model | $variant | failed (see $name.log) | | | | |"
      continue
    fi
    env "${env_args[@]}" "$build/cli/nimble-run" "$out/$name.nimble" --iters 20 >"$out/$name.run" 2>&1
    python3 - "$out/$name.json" "$model" "$variant" "$out/$name.run" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
run = open(sys.argv[4]).read()
m = re.search(r"peak memory ([0-9.]+) MiB, graph pool ([0-9.]+) MiB", run)
ran = f"{m.group(1)} / {m.group(2)}" if m else "-"
M = 2**20
for key in ("single", "multi"):
    mode = r.get(key)
    if not mode:
        continue
    peak, pool = mode["peak_memory_bytes"] / M, mode["graph_pool_bytes"] / M
    chosen = ran if r.get("chosen") == mode["mode"] else "-"
    print(f"| {sys.argv[2]} | {sys.argv[3]} | {mode['mode']} | {peak:.0f} | {pool:.0f} | {peak - pool:.0f} | {chosen} |")
PY
    rm -f "$out/$name.nimble"
  done
done
rm -rf "$out/models"
