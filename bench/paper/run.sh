#!/usr/bin/env bash
# The Nimble paper's figures, reproduced on this machine's GPU, one part per device call:
#   profile    Figure 3: nimble-prof on each model (GPU active ratio, critical path / GPU active, width)
#   inference  Figure 5 and Table 1: PyTorch eager, TorchScript, PyTorch's CUDA graph and torch.compile
#              reduce-overhead (bench/zoo_bench.py and bench/accelerate_bench.py, one process each), then
#              nimble-accelerate --json (single- and multi-stream AoT)
#   training   Figure 7: bench/training_bench.py --out OUT_DIR/training (arguments after -- go to it)
#   figures    make_figures.py OUT_DIR OUT_DIR: paper.md and the PNGs (any machine with matplotlib)
#   all        the four in turn (longer than one device call)
# Inference batch 1, fp32 with TF32 off everywhere (the paper's V100 has no TF32). Raw JSON, run-STAMP.json
# (date, GPU, this command) and a log go to OUT_DIR/PART/; exported models and run databases, too large to
# bring back, to PAPER_WORK (default build-paper/).
# A model that fails is logged and the rest go on. Every step's time limit is cut to what is left of
# PAPER_BUDGET_S (default 540) seconds from the part's start, and models not begun by then are listed as
# skipped, so a part ends, with its files, inside one 10-minute device call.
#   bash bench/paper/run.sh PART BUILD_DIR OUT_DIR [--models "resnet50 ..."] [--iters N] [--no-compile] [-- ARGS]
set -uo pipefail
usage="usage: run.sh profile|inference|training|figures|all BUILD_DIR OUT_DIR [--models LIST] [--iters N] [--no-compile] [-- ARGS]"
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
part=$1 build=$(realpath -m "$2") out=$(realpath -m "$3")
# The exact command, for the tables' headers (arguments with spaces quoted as they were typed).
invocation="bash bench/paper/run.sh"
for arg in "$@"; do
  case $arg in *" "*) invocation+=" \"$arg\"" ;; *) invocation+=" $arg" ;; esac
done
shift 3
models="resnet50 inception_v3 mobilenet_v2 efficientnet_b0 nasnetalarge darts amoebanet nasnet_mobile"
iters=${PAPER_ITERS:-200} compile=1 extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=$2; shift ;;
    --iters) iters=$2; shift ;;
    --no-compile) compile=0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown option $1; $usage" >&2; exit 2 ;;
  esac
  shift
done
cd "$(dirname "$0")/../.." || exit 1
work=$(realpath -m "${PAPER_WORK:-build-paper}")
budget_s=${PAPER_BUDGET_S:-540}
mkdir -p "$out" "$work/models"

# One JSON file per invocation of a part: what make_figures.py prints above each table.
write_meta() {  # PART [SKIPPED...]
  local dir=$out/$1
  shift
  python3 - "$dir/run-$stamp.json" "$invocation" "$part_models" "$*" <<'PY'
import datetime, json, subprocess, sys
path, command, models, skipped = sys.argv[1:5]
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True, timeout=30).stdout.splitlines()[0]
except Exception:  # noqa: BLE001 - a header without the GPU's name still says where it is from
    gpu = "unknown GPU, unknown"
try:
    import torch
    torch_version = torch.__version__
except ImportError:
    torch_version = None
meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "gpu": gpu.split(",")[0].strip(), "driver": gpu.split(",")[-1].strip(), "torch": torch_version,
        "command": command, "models": models.split(), "skipped": skipped.split()}
json.dump(meta, open(path, "w"), indent=1)
PY
}

left_s() { echo $((budget_s - $(date +%s) + part_start)); }
over_budget() { [ "$(left_s)" -lt 30 ]; }  # too little left to start a model
within() {  # WANTED_S -> the smaller of it and the time left, at least 1 (timeout 0 would mean none)
  local left
  left=$(left_s)
  [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"
}

# Each model in its own export process: export_models.py stops at the first model that fails.
ensure_exported() {  # MODEL
  [ -f "$work/models/$1.pt" ] && shape_of "$1" >/dev/null 2>&1 && return 0
  echo "=== export $1" >>"$log"
  timeout "$(within 240)" python3 samples/models/export_models.py --out "$work/models" --device cuda --models "$1" >>"$log" 2>&1
}

shape_of() {  # MODEL -> 1x3x224x224, from the export manifest
  python3 -c "import json,sys;print('x'.join(map(str,json.load(open(sys.argv[1]))['models'][sys.argv[2]]['input_shape'])))" \
    "$work/models/manifest.json" "$1" 2>/dev/null
}

# Runs a tool with a time limit, its stdout to FILE; on failure the file is removed and the log says why.
run_to() {  # FILE LIMIT_S COMMAND...
  local file=$1 limit=$2 rc
  shift 2
  echo "=== $*" >>"$log"
  timeout "$(within "$limit")" "$@" >"$file" 2>>"$log"
  rc=$?
  [ $rc -eq 0 ] && return 0
  echo "FAILED (exit $rc): $*" | tee -a "$log" >&2
  rm -f "$file"
  return 1
}

profile_part() {
  local dir=$out/profile m shape skipped=()
  for m in $models; do
    if over_budget; then skipped+=("$m"); continue; fi
    ensure_exported "$m" || { echo "$m: export failed" | tee -a "$log" >&2; continue; }
    shape=$(shape_of "$m")
    rm -f "$work/$m.db" "$work/$m.db-wal" "$work/$m.db-shm"
    # 20 recorded iterations after 5 warmup; the iteration time from 100 more with the collector off.
    run_to "$dir/$m.profile.json" 300 "$build/cli/nimble-prof" "$work/models/$m.pt" --input "$shape" --no-tf32 \
      --iters 20 --warmup 5 --timed-iters 100 -q -o "$work/$m.db" --json || continue
    run_to "$dir/$m.report.json" 120 "$build/cli/nimble-prof" report "$work/$m.db" --json
  done
  write_meta profile "${skipped[@]}"
}

# One PyTorch baseline in a process of its own, as one JSON line in MODEL.torch.jsonl ("error" on failure).
torch_baseline() {  # MODEL MODE
  local m=$1 mode=$2 line rc limit=180
  [ "$mode" = compile ] && limit=300  # torch.compile takes 10-90 s per model before it is timed
  echo "=== $m $mode" >>"$log"
  if over_budget; then
    line="{\"model\": \"$m\", \"mode\": \"$mode\", \"error\": \"skipped: time budget\"}"
  elif [ "$mode" = script ]; then
    line=$(timeout "$(within $limit)" python3 bench/accelerate_bench.py --model "$m" --mode script --shape "$(shape_of "$m")" \
      --file "$work/models/$m.pt" --iters "$iters" 2>>"$log" | tail -1)
  else
    line=$(timeout "$(within $limit)" python3 bench/zoo_bench.py torch "$m" float32 "$mode" --iters "$iters" 2>>"$log" | tail -1)
  fi
  rc=$?
  case $rc:$line in
    0:*'"median_ms"'* | *'"skipped: time budget"'*) ;;
    *) echo "FAILED (exit $rc): $m $mode" | tee -a "$log" >&2
       line="{\"model\": \"$m\", \"mode\": \"$mode\", \"error\": \"exit $rc, see the log\"}" ;;
  esac
  echo "$line" >>"$out/inference/$m.torch.jsonl"
}

inference_part() {
  local dir=$out/inference m mode modes skipped=()
  for m in $models; do
    if over_budget; then skipped+=("$m"); continue; fi
    rm -f "$dir/$m.torch.jsonl"
    modes="eager cudagraph"
    [ $compile -eq 1 ] && modes="$modes compile"
    for mode in $modes; do torch_baseline "$m" "$mode"; done
    ensure_exported "$m" || { echo "$m: export failed" | tee -a "$log" >&2; continue; }
    torch_baseline "$m" script
    # Without --db nimble-accelerate records the model's kernels for its prediction itself.
    run_to "$dir/$m.accelerate.json" 300 "$build/cli/nimble-accelerate" "$work/models/$m.pt" --input "$(shape_of "$m")" \
      --iters "$iters" --json -o "$work/$m.nimble"
    rm -f "$work/$m.nimble"
  done
  write_meta inference "${skipped[@]}"
}

training_part() {
  # The training benchmark may import the nimble package: take it from BUILD_DIR when built there.
  [ -d "$build/python" ] && export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" NIMBLE_BUILD_DIR="$build"
  echo "=== python3 bench/training_bench.py --out $out/training ${extra[*]}" >>"$log"
  timeout "$(within "$budget_s")" python3 bench/training_bench.py --out "$out/training" "${extra[@]}" 2>&1 \
    | tee -a "$log" | tail -5
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || echo "FAILED (exit $rc): bench/training_bench.py" | tee -a "$log" >&2
  write_meta training
}

run_part() {  # PART
  mkdir -p "$out/$1"
  stamp=$(date -u +%Y%m%dT%H%M%SZ) part_start=$(date +%s) part_models=$models
  log=$out/$1/$1-$stamp.log  # stamped like run-*.json: the folders of split calls merge by copying
  [ "$1" = training ] && part_models=""  # bench/training_bench.py chooses its own
  nvidia-smi -L >>"$log" 2>&1
  echo "$invocation" >>"$log"
  write_meta "$1"  # now, so that a part cut short still has its header; again at its end, with what it skipped
  "$1_part"
  echo "$1: $(($(date +%s) - part_start)) s" | tee -a "$log"
}

figures() {
  "${PAPER_PYTHON:-python3}" bench/paper/make_figures.py "$out" "$out"
}

case $part in
  profile|inference|training) run_part "$part" ;;
  figures) figures ;;
  all) for p in profile inference training; do run_part "$p"; done; figures ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
