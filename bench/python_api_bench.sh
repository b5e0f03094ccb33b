#!/usr/bin/env bash
# The Python package's figures for bench/results/python_api.md, in one GPU call (the `nimble` package
# importable, e.g. PYTHONPATH=BUILD/python; tools/gpu_check.sh --python-bench runs it):
#   1. the per-call cost of an AcceleratedModule over nimble-run's replay of the same artifact;
#   2. the five-model table through nimble.accelerate beside nimble-accelerate's on the same models;
#   3. torch.compile(backend="nimble") beside torch.compile(mode="reduce-overhead") and eager.
# Every part runs in its own process. Prints markdown; logs go to OUT/python_api_bench.log.
#   bench/python_api_bench.sh BUILD_DIR OUT_DIR    (PY_BENCH_PARTS="overhead table compile", BENCH_ITERS)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: python_api_bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: python_api_bench.sh BUILD_DIR OUT_DIR}
mkdir -p "$out/models"
log=$out/python_api_bench.log
iters=${BENCH_ITERS:-200}
parts=${PY_BENCH_PARTS:-overhead table compile}
table_models=${PY_TABLE_MODELS:-resnet50 inception_v3 mobilenet_v2 efficientnet_b0 nasnetalarge}
compile_models=${PY_COMPILE_MODELS:-inception_v3 nasnetalarge}
py() { python3 bench/python_api_bench.py "$@" --iters "$iters" 2>>"$log" | tail -1; }
field() { python3 -c "import json,sys;d=json.loads(sys.argv[1]);v=d$2;print($3)" "$1" 2>/dev/null || echo failed; }

echo "Python package, $(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)," \
     "batch 1, fp32, TF32 off everywhere, medians of $iters"
echo "command: bench/python_api_bench.sh BUILD OUT (PY_BENCH_PARTS=\"$parts\")"
case " $parts " in *" overhead "*)
  echo
  echo "### Per-call cost: AcceleratedModule vs the replay nimble-run times (one process per model)"
  echo
  echo "Each row timed the same way (CUDA events on the current stream around one call, then a wait), in"
  echo "interleaved blocks of $iters calls whose order rotates; 'added' is over the replay nimble-run times"
  echo "(the capture's inputs copied in, one replay). 'tiny' is two small convolutions (1x3x32x32), whose replay"
  echo "takes microseconds, so that a per-call cost is not lost in the spread of a long replay."
  for model in tiny inception_v3; do
    r=$(py overhead "$model" --blocks 10 --nimble-run "$build/cli/nimble-run")
    echo "$r" >>"$log"
    echo
    echo "$model ($(field "$r" '["mode"]' 'v')):"
    echo
    echo "| what is called | calls | median | added |"
    echo "| --- | --- | --- | --- |"
    for v in replay_as_nimble_run module_call binding_call module_call_copy; do
      echo "| $v | $(field "$r" '["calls"]' 'v') | $(field "$r" "[\"median_ms\"][\"$v\"]" '"%.4f ms" % v') | $(field "$r" "[\"added_us\"][\"$v\"]" '"%+.1f us" % v') |"
    done
    echo
    echo "nimble-run's own C++ timing in the same process: $(field "$r" '["median_ms"]["nimble_run_cpp_timing"]' '"%.4f ms" % v');" \
         "nimble-run on the same artifact in its own process: $(field "$r" '["nimble_run_process"]' 'v')"
  done
;; esac
case " $parts " in *" table "*)
  echo
  echo "### Five models: nimble.accelerate (Python) beside nimble-accelerate (CLI), measured / predicted ms"
  echo
  echo "| model | CLI libtorch | Python libtorch | CLI AoT single | Python AoT single | CLI AoT multi | Python AoT multi | Python vs CLI (multi, else single) |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  python3 samples/models/export_models.py --out "$out/models" --device cuda --models $table_models >>"$log" 2>&1
  for model in $table_models; do
    shape=$(python3 -c "import json;print('x'.join(map(str,json.load(open('$out/models/manifest.json'))['models']['$model']['input_shape'])))")
    cli=$("$build/cli/nimble-accelerate" "$out/models/$model.pt" --input "$shape" --iters "$iters" --json \
          -o "$out/$model.nimble" 2>>"$log" | python3 -c "import json,sys;print(json.dumps(json.load(sys.stdin)))" 2>>"$log")
    pyr=$(py accelerate "$model")
    echo "$cli" >>"$log"; echo "$pyr" >>"$log"
    echo "| $model | $(field "$cli" '["baseline_ms"]' '"%.3f" % v') | $(field "$pyr" '["baseline_ms"]' '"%.3f" % v') |" \
         "$(field "$cli" '["single"]' '"%.3f / %.3f" % (v["measured_ms"], v["predicted_ms"])') |" \
         "$(field "$pyr" '["single"]' '"%.3f / %.3f" % tuple(v)') |" \
         "$(field "$cli" '["multi"]' '"%.3f / %.3f" % (v["measured_ms"], v["predicted_ms"]) if v else "- (width 1)"') |" \
         "$(field "$pyr" '["multi"]' '"%.3f / %.3f" % tuple(v) if v else "- (width 1)"') |" \
         "$(python3 -c "import json,sys;c=json.loads(sys.argv[1]);p=json.loads(sys.argv[2]);m=(p['multi'][0],c['multi']['measured_ms']) if p['multi'] else (p['single'][0],c['single']['measured_ms']);print('%+.1f%%' % (100*(m[0]/m[1]-1)))" "$cli" "$pyr" 2>/dev/null || echo failed) |"
    rm -f "$out/$model.nimble"
  done
  rm -f "$out"/models/*.pt
;; esac
case " $parts " in *" compile "*)
  echo
  echo "### torch.compile backends (median ms; compile s = first call to the 20th, compile and warm-up)"
  echo
  echo "| model | eager | reduce-overhead | compile s | backend=\"nimble\" | compile s | nimble vs reduce-overhead |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for model in $compile_models; do
    e=$(py compile "$model" eager); r=$(py compile "$model" reduce-overhead); n=$(py compile "$model" nimble)
    echo "$e" >>"$log"; echo "$r" >>"$log"; echo "$n" >>"$log"
    echo "| $model | $(field "$e" '["median_ms"]' '"%.3f" % v') | $(field "$r" '["median_ms"]' '"%.3f" % v') |" \
         "$(field "$r" '["compile_s"]' '"%.0f" % v') | $(field "$n" '["median_ms"]' '"%.3f" % v') | $(field "$n" '["compile_s"]' '"%.0f" % v') |" \
         "$(python3 -c "import json,sys;r=json.loads(sys.argv[1]);n=json.loads(sys.argv[2]);print('%.2fx' % (r['median_ms']/n['median_ms']))" "$r" "$n" 2>/dev/null || echo failed) |"
  done
;; esac
