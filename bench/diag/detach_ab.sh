#!/usr/bin/env bash
# Does a recording made in the process slow the replays timed after it? nimble-accelerate with
# --memory-format measure records both layouts with the in-process collector before it times anything;
# the forced layout records nothing first. Each case: the kept layout forced, measure (CUPTI detached
# after each recording, the default) and measure with NIMBLE_CUPTI_DETACH=0, in alternating rounds.
# Needs build-gpu/cli (tools/gpu_check.sh --accelerate-only). Prints one line per run; JSON under $OUT/detach.
#     OUT=/tmp/out CASES="mobilenet_v2:float16:channels_last" ROUNDS=2 bash bench/diag/detach_ab.sh
set -u
dir=$OUT/detach
mkdir -p "$dir"
for case in ${CASES:-mobilenet_v2:float16:channels_last efficientnet_b0:bfloat16:contiguous}; do
  IFS=: read -r model dtype kept <<< "$case"
  python3 bench/zoo_bench.py export "$model" "$dtype" /tmp/z > /dev/null 2>&1 || { echo "$case: export failed"; continue; }
  mapfile -t inputs < <(python3 -c "import json; print('\n'.join(json.load(open('/tmp/z/$model-$dtype.json'))['inputs']))")
  args=(); for i in "${inputs[@]}"; do args+=(--input "$i"); done
  for round in $(seq "${ROUNDS:-2}"); do
    for variant in forced measure attached; do
      format=measure detach=1
      [ "$variant" = forced ] && format=$kept
      [ "$variant" = attached ] && detach=0
      name="$model-$dtype-$variant-$round"
      NIMBLE_CUPTI_DETACH=$detach build-gpu/cli/nimble-accelerate "/tmp/z/$model-$dtype.pt2" "${args[@]}" --iters 400 \
        --memory-format "$format" --json -o /tmp/z/out.nimble > "$dir/$name.json" 2> "$dir/$name.err"
      python3 -c "
import json; d=json.load(open('$dir/$name.json')); s=d['single']; m=d.get('multi') or {}
print('%-48s single %.4f  multi %s  layout %s' % ('$name', s['measured_ms'], m.get('measured_ms'), d.get('memory_format')))" \
        || tail -3 "$dir/$name.err"
    done
  done
done
