#!/usr/bin/env bash
# The model-zoo table on the GPU machine: for each model and dtype, bench/zoo_bench.py exports a .pt2 and
# a .pt, times PyTorch (eager, torch.cuda.graph of the module, of the .pt2's module, the same with
# cuBLASLt given cuBLAS's workspace, and with --compile torch.compile reduce-overhead), each in its own
# process, then nimble-accelerate on the .pt2 (and with --pt on the .pt), which records the model's
# kernels for its prediction itself. With --layouts, also PyTorch's CUDA graph with the module and its
# inputs in channels_last, and nimble-accelerate once more with --memory-format contiguous (its chosen
# mode's time). With --epilogues, nimble-accelerate once more with --no-conv-epilogues (ATen's separate
# bias, residual-add and activation kernels after each convolution; its chosen mode's time) and the
# number of convolution tails made one kernel. With --memsets, nimble-accelerate once more with
# --keep-memset-nodes (the captured memset nodes left as they are; its chosen mode's time) and the number of
# memset nodes the chosen mode's capture replaced by kernels. With --nimble-only, PyTorch's columns are left out ("-"):
# nimble-accelerate's own columns (its timings, prediction and output check) for every model in one call. Prints a markdown table; nimble-accelerate's JSON (nimble.jsonl), PyTorch's
# (torch.jsonl) and the log go to OUT_DIR.
#   bench/zoo_bench.sh BUILD_DIR OUT_DIR [--compile] [--pt] [--layouts] [--epilogues] [--memsets] [--nimble-only] [--models "gpt2 bert_base"] [--dtypes "float32 bfloat16"]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:?usage: zoo_bench.sh BUILD_DIR OUT_DIR [options]}
out=${2:?usage: zoo_bench.sh BUILD_DIR OUT_DIR [options]}
shift 2
compile=0 pt=0 layouts=0 epilogues=0 memsets=0 nimble_only=0
models="resnet50 inception_v3 mobilenet_v2 efficientnet_b0 nasnetalarge vit_b_16 bert_base gpt2 moe"
dtypes="float32 float16"
while [ $# -gt 0 ]; do
  case $1 in
    --compile) compile=1 ;;
    --pt) pt=1 ;;
    --layouts) layouts=1 ;;
    --epilogues) epilogues=1 ;;
    --memsets) memsets=1 ;;
    --nimble-only) nimble_only=1 ;;
    --models) models=$2; shift ;;
    --dtypes) dtypes=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out/models"
log=$out/zoo_bench.log
iters=${BENCH_ITERS:-200}
lt_kib=32768  # cuBLAS's workspace on Hopper, as nimble gives cuBLASLt

py_ms() {  # model dtype mode [env...]
  local model=$1 dtype=$2 mode=$3
  shift 3
  [ $nimble_only -eq 1 ] && { echo "-"; return; }
  env "$@" python3 bench/zoo_bench.py torch "$model" "$dtype" "$mode" --out "$out/models" --iters "$iters" 2>>"$log" \
    | tail -1 | tee -a "$out/torch.jsonl" \
    | python3 -c "import json,sys;d=json.loads(sys.stdin.read());print('%.3f' % d['median_ms'] + (' (%gs)' % d['compile_s'] if 'compile_s' in d else ''))" \
    2>/dev/null || echo "failed"
}
# nimble-accelerate --json -> "single | multi | width | predicted single / multi (error) | max rel error | chosen";
# the error against the frozen graph the captures came from, then against the model as the file holds it.
nimble_cells() {
  python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("failed | failed | - | - | - | -"); sys.exit()
s, m = d["single"], d["multi"] or {"measured_ms": 0, "predicted_ms": 0, "max_rel_error": 0}
def err(mode):
    return f"{(mode['predicted_ms'] / mode['measured_ms'] - 1) * 100:+.0f}%" if mode["measured_ms"] else "-"
multi = f"{m['measured_ms']:.3f}" if m["measured_ms"] else "-"
pred = f"{s['predicted_ms']:.3f} ({err(s)})" + (f" / {m['predicted_ms']:.3f} ({err(m)})" if m["measured_ms"] else "")
rel = max(s["max_rel_error"], m["max_rel_error"])
file_errors = [float(x["max_rel_error_unmodified"]) for x in (s, m) if x.get("max_rel_error_unmodified") is not None]
rel_file = f"{max(file_errors):.1e}" if file_errors else "-"
float32_errors = [float(x["max_rel_error_float32"]) for x in (s, m) if x.get("max_rel_error_float32") is not None]
if float32_errors and d.get("unmodified_error_float32") is not None:  # half precision: both against float32
    rel_file += f" (float32: {max(float32_errors):.1e}, file {float(d['unmodified_error_float32']):.1e})"
print(f"{s['measured_ms']:.3f} | {multi} | {d['width_streams']} | {pred} | {rel:.1e} / {rel_file} | {d['chosen'] if 'chosen' in d else '-'}")
PY
}

chosen_ms() {  # nimble-accelerate --json -> the chosen mode's measured ms
  python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
mode = d['multi'] if d.get('chosen') == 'aot-multi' and d['multi'] else d['single']
print('%.3f' % mode['measured_ms'])" "$1" 2>/dev/null || echo failed
}

echo "Model zoo, $(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), batch 1," \
     "median of $iters (ms); float32 rows with TF32 off everywhere; predictions by nimble-accelerate without --db"
echo "command: bench/zoo_bench.sh BUILD OUT$([ $compile -eq 1 ] && echo ' --compile')$([ $pt -eq 1 ] && echo ' --pt')$([ $layouts -eq 1 ] && echo ' --layouts')$([ $epilogues -eq 1 ] && echo ' --epilogues')$([ $memsets -eq 1 ] && echo ' --memsets')$([ $nimble_only -eq 1 ] && echo ' --nimble-only') --models \"$models\" --dtypes \"$dtypes\""
echo
layout_head="" layout_rule=""
[ $layouts -eq 1 ] && layout_head=" CUDA graph, channels_last | Nimble chosen, --memory-format contiguous | memory format |" \
  && layout_rule=" --- | --- | --- |"
[ $epilogues -eq 1 ] && layout_head="$layout_head Nimble chosen, --no-conv-epilogues | epilogues |" \
  && layout_rule="$layout_rule --- | --- |"
[ $memsets -eq 1 ] && layout_head="$layout_head Nimble chosen, --keep-memset-nodes | memset nodes replaced |" \
  && layout_rule="$layout_rule --- | --- |"
echo "| model | dtype | file | PyTorch eager | CUDA graph | CUDA graph of .pt2 | CUDA graph, cuBLASLt $((lt_kib / 1024)) MiB | torch.compile r-o | Nimble single | Nimble multi | width | predicted single / multi (error) | max rel err, frozen / file (half precision: replays and file against float32) | chosen |$layout_head"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |$layout_rule"
for model in $models; do
  for dtype in $dtypes; do
    python3 bench/zoo_bench.py export "$model" "$dtype" "$out/models" >>"$log" 2>&1
    info=$out/models/$model-$dtype.json
    [ -f "$info" ] || { echo "| $model | $dtype | export failed | | | | | | | | | | | |"; continue; }
    inputs=$(python3 -c "import json;print(' '.join('--input ' + t for t in json.load(open('$info'))['inputs']))")
    eager=$(py_ms "$model" "$dtype" eager)
    graph=$(py_ms "$model" "$dtype" cudagraph)
    graph_ws=$(py_ms "$model" "$dtype" cudagraph CUBLASLT_WORKSPACE_SIZE=$lt_kib)
    exported="-"
    [ -f "$out/models/$model-$dtype.pt2" ] && exported=$(py_ms "$model" "$dtype" exported-graph)
    compiled="-"; [ $compile -eq 1 ] && compiled=$(py_ms "$model" "$dtype" compile)
    graph_cl="-"; [ $layouts -eq 1 ] && graph_cl=$(py_ms "$model" "$dtype" cudagraph-cl)
    for ext in pt2 pt; do
      [ "$ext" = pt ] && [ $pt -eq 0 ] && continue
      file=$out/models/$model-$dtype.$ext
      if [ ! -f "$file" ]; then
        why=$(python3 -c "import json;print(json.load(open('$info')).get('${ext}_error', 'not exported')[:80])")
        echo "| $model | $dtype | .$ext: $why | $eager | $graph | $exported | $graph_ws | $compiled | - | - | - | - | - | - |"
        continue
      fi
      json=$out/$model-$dtype-$ext.json
      # shellcheck disable=SC2086
      "$build/cli/nimble-accelerate" "$file" $inputs --iters "$iters" --json -o "$out/$model-$dtype.nimble" \
        >"$json" 2>>"$log" || echo "nimble-accelerate failed for $file" >>"$log"
      layout_cells=""
      if [ $layouts -eq 1 ]; then
        # shellcheck disable=SC2086
        "$build/cli/nimble-accelerate" "$file" $inputs --iters "$iters" --json --memory-format contiguous \
          -o "$out/$model-$dtype-contiguous.nimble" >"$json.contiguous" 2>>"$log" \
          || echo "nimble-accelerate --memory-format contiguous failed for $file" >>"$log"
        layout_cells=" $graph_cl | $(chosen_ms "$json.contiguous") | $(python3 -c "import json;print(json.load(open('$json')).get('memory_format', '-'))" 2>/dev/null || echo -) |"
        { tr -d '\n' <"$json.contiguous"; echo; } >>"$out/nimble-contiguous.jsonl"
        rm -f "$json.contiguous" "$out/$model-$dtype-contiguous.nimble"
      fi
      if [ $epilogues -eq 1 ]; then
        # shellcheck disable=SC2086
        "$build/cli/nimble-accelerate" "$file" $inputs --iters "$iters" --json --no-conv-epilogues \
          -o "$out/$model-$dtype-separate.nimble" >"$json.separate" 2>>"$log" \
          || echo "nimble-accelerate --no-conv-epilogues failed for $file" >>"$log"
        layout_cells="$layout_cells $(chosen_ms "$json.separate") | $(python3 -c "import json;print(json.load(open('$json')).get('conv_epilogues', '-'))" 2>/dev/null || echo -) |"
        { tr -d '\n' <"$json.separate"; echo; } >>"$out/nimble-separate.jsonl"
        rm -f "$json.separate" "$out/$model-$dtype-separate.nimble"
      fi
      if [ $memsets -eq 1 ]; then
        # shellcheck disable=SC2086
        "$build/cli/nimble-accelerate" "$file" $inputs --iters "$iters" --json --keep-memset-nodes \
          -o "$out/$model-$dtype-memsets.nimble" >"$json.memsets" 2>>"$log" \
          || echo "nimble-accelerate --keep-memset-nodes failed for $file" >>"$log"
        replaced=$(python3 -c "import json;r=json.load(open('$json'));print((r.get('multi') if r.get('chosen')=='aot-multi' else r.get('single') or {}).get('memset_nodes_replaced', '-'))" 2>/dev/null || echo -)
        layout_cells="$layout_cells $(chosen_ms "$json.memsets") | $replaced |"
        { tr -d '\n' <"$json.memsets"; echo; } >>"$out/nimble-memsets.jsonl"
        rm -f "$json.memsets" "$out/$model-$dtype-memsets.nimble"
      fi
      echo "| $model | $dtype | .$ext | $eager | $graph | $exported | $graph_ws | $compiled | $(nimble_cells "$json") |$layout_cells"
      { tr -d '\n' <"$json"; echo; } >>"$out/nimble.jsonl"
      rm -f "$json"
    done
    rm -f "$out/models/$model-$dtype".pt* "$out/$model-$dtype.nimble"
  done
done
