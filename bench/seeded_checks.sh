#!/usr/bin/env bash
# Two GPU checks of the pool seeding (accelerate/README.md, "pool seeds"), on a sample model:
# 1. compute-sanitizer memcheck and racecheck on `nimble-run` of a multi-stream artifact whose graph pool
#    is seeded (the artifact's JSON says how many streams were seeded), two replays;
# 2. a memory budget under the seeded multi-stream peak, so that the budget search captures the seeded
#    trial, finds it over, and captures the same schedule once more unseeded before taking fewer streams
#    (the log's "memory budget" lines, one per trial, seeded or not).
# Prints markdown; logs and JSON to OUT_DIR.
#   bench/seeded_checks.sh BUILD_DIR OUT_DIR [--model googlenet]
set -uo pipefail
build=$(realpath "${1:?usage: seeded_checks.sh BUILD_DIR OUT_DIR [--model NAME]}")
out=${2:?usage: seeded_checks.sh BUILD_DIR OUT_DIR [--model NAME]}
mkdir -p "$out" && out=$(realpath "$out")
shift 2
cd "$(dirname "$0")/.."
model=googlenet
while [ $# -gt 0 ]; do
  case $1 in
    --model) model=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out/models"
log=$out/seeded_checks.log
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
python3 samples/models/export_models.py --out "$out/models" --device cuda --models "$model" >>"$log" 2>&1 \
  || { echo "model export failed; see $log" >&2; exit 1; }
shape=$(python3 -c "import json,sys;m=json.load(open(sys.argv[1]))['models'][sys.argv[2]];print('x'.join(map(str,m['input_shape'])))" \
  "$out/models/manifest.json" "$model")
echo "$(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo

# 1. The sanitizers on a seeded multi-stream artifact.
artifact=$out/$model-multi.nimble
"$build/cli/nimble-accelerate" "$out/models/$model.pt" --input "$shape" --mode multi --iters 50 --json -o "$artifact" \
  >"$out/$model-multi.json" 2>>"$log" || { echo "nimble-accelerate --mode multi failed; see $log"; exit 1; }
python3 - "$out/$model-multi.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))["multi"]
seeds = [b for b in m.get("pool_seed_bytes", []) if b > 0]
unseeded = m.get("unseeded_graph_pool_bytes", -1)
print(f"- {m.get('streams')} streams, pool seeded on {len(seeds)} of them ({sum(seeds) / 2**20:.1f} MiB of seeds); "
      f"graph pool {m.get('graph_pool_bytes', 0) / 2**20:.1f} MiB, "
      + (f"unseeded {unseeded / 2**20:.1f} MiB" if unseeded >= 0 else "no unseeded capture kept for comparison"))
EOF
for tool in memcheck racecheck; do
  if timeout 150 "$sanitizer" --tool "$tool" --error-exitcode 1 "$build/cli/nimble-run" "$artifact" --iters 2 \
       >"$out/$tool.log" 2>&1; then
    echo "- compute-sanitizer $tool on nimble-run (2 replays): clean ($(grep -c 'ERROR SUMMARY: 0 errors' "$out/$tool.log") summary line with 0 errors)"
  else
    echo "- compute-sanitizer $tool on nimble-run (2 replays): FAILED (exit $?); $(grep -m1 'ERROR SUMMARY' "$out/$tool.log")"
  fi
done

# 2. A budget under the seeded peak: the seeded trial, then the unseeded retry.
peak=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['multi']['peak_memory_bytes'] // 2**20)" "$out/$model-multi.json")
budget=$((peak - 1))
"$build/cli/nimble-accelerate" "$out/models/$model.pt" --input "$shape" --memory-budget "$budget" --iters 50 --json \
  -o "$out/$model-budget.nimble" \
  >"$out/$model-budget.json" 2>"$out/$model-budget.log" || echo "- nimble-accelerate --memory-budget $budget failed"
echo "- \`--memory-budget $budget\` (the seeded multi-stream peak, $peak MiB, less 1): its trials as the log says them:"
echo
grep "memory budget" "$out/$model-budget.log" | sed 's/^/    /'
echo
python3 - "$out/$model-budget.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
trials = r.get("memory_trials", [])
seeded = [t for t in trials if any(b > 0 for b in t.get("pool_seed_bytes", []))]
print(f"- {len(trials)} trials ({len(seeded)} seeded, {len(trials) - len(seeded)} unseeded); chosen {r.get('chosen')}; "
      f"{r.get('memory_choice', '')}")
EOF
