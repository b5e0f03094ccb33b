#!/usr/bin/env bash
# compute-sanitizer racecheck and memcheck on the replay of a multi-stream model.nimble whose streams'
# pools are seeded (nimble::seed_pool in its graph): the model exported by samples/models/export_models.py,
# nimble-accelerate --mode multi, then nimble-run of the artifact in a new process under each tool
# (capture and 2 replays). Prints a markdown section; logs go to OUT_DIR. Exits 1 when a tool reports an
# error or does not finish within its time.
#   bench/seeded_sanitizer.sh BUILD_DIR OUT_DIR [MODEL] [TIMEOUT_S per tool]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:?usage: seeded_sanitizer.sh BUILD_DIR OUT_DIR [MODEL] [TIMEOUT_S]}
out=${2:?usage: seeded_sanitizer.sh BUILD_DIR OUT_DIR [MODEL] [TIMEOUT_S]}
model=${3:-googlenet} limit=${4:-240}
mkdir -p "$out/models"
artifact=$out/$model-multi.nimble
trap 'rm -rf "$out/models" "$artifact"' EXIT
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
python3 samples/models/export_models.py --out "$out/models" --device cuda --models "$model" >"$out/export.log" 2>&1 \
  || { echo "export of $model failed; see $out/export.log"; exit 1; }
shape=$(python3 -c "import json,sys;m=json.load(open(sys.argv[1]))['models'][sys.argv[2]];print('x'.join(map(str,m['input_shape'])))" \
  "$out/models/manifest.json" "$model")
"$build/cli/nimble-accelerate" "$out/models/$model.pt" --input "$shape" --mode multi --iters 20 -o "$artifact" \
  >"$out/accelerate.log" 2>&1 || { echo "nimble-accelerate failed for $model; see $out/accelerate.log"; exit 1; }
echo "## compute-sanitizer on a seeded multi-stream replay: $model ($shape)"
echo
# The device's copy of the checkout may carry stale git metadata: NIMBLE_COMMIT names the commit when given.
echo "$(date -u +%F), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), commit ${NIMBLE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}."
echo
grep -E "pool seeded|model.nimble runs" "$out/accelerate.log" | sed 's/^/    /'
grep -q "pool seeded" "$out/accelerate.log" || echo "(the multi-stream pool was not seeded: this run does not check a seeded capture)"
echo
echo '| tool | exit | summary | seconds |'
echo '| --- | --- | --- | --- |'
status=0
for tool in racecheck memcheck; do
  start=$(date +%s)
  timeout -k 10 "$limit" "$sanitizer" --tool "$tool" --error-exitcode 1 "$build/cli/nimble-run" "$artifact" --iters 2 \
    >"$out/$tool.log" 2>&1
  rc=$?
  summary=$(grep -E "SUMMARY" "$out/$tool.log" | tail -1 | sed 's/=* *//')
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && summary="did not finish within ${limit} s"
  [ $rc -ne 0 ] && status=1
  echo "| $tool | $rc | ${summary:-none} | $(( $(date +%s) - start )) |"
done
exit $status
