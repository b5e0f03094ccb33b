#!/usr/bin/env bash
# One command on a fresh Debian 12 machine with the CUDA 13 toolkit at /usr/local/cuda:
# installs what is missing (Debian packages; PyTorch into a virtual environment outside the clone,
# reused when present), builds Nimble into ./build, installs the `nimble` Python package into that
# environment (from the same build folder), and runs the main job.
#   tools/setup.sh            install, build, run the main job
#   tools/setup.sh --no-run   install and build only (used by tools/test.sh)
# Environment: NIMBLE_VENV (default ~/.cache/nimble/venv), NIMBLE_BUILD_DIR (default ./build),
#              NIMBLE_JOBS (default: number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
run_main=1
[ "${1:-}" = "--no-run" ] && run_main=0

venv=${NIMBLE_VENV:-$HOME/.cache/nimble/venv}
build=${NIMBLE_BUILD_DIR:-$root/build}
jobs=${NIMBLE_JOBS:-$(nproc)}
torch_version=2.11.0

say() { printf '\n== %s\n' "$*"; }

# --- Debian packages (why each is there: README.md, "Dependencies") ---
debs=(build-essential cmake ninja-build pkg-config python3-venv python3-dev
      libboost-graph-dev libsqlite3-dev libgtest-dev libgmock-dev libbenchmark-dev
      libcli11-dev nlohmann-json3-dev libsimdjson-dev zlib1g-dev qt6-base-dev xvfb xauth)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- CUDA toolkit (needed by the collector and by libtorch's CMake files) ---
if [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
else
  echo "warning: no CUDA toolkit at /usr/local/cuda: the collector and accelerate parts will be skipped" >&2
fi

# --- PyTorch (libtorch for accelerate/, Python for exporting sample models) ---
if ! "$venv/bin/python" -c "import torch,sys; sys.exit(torch.__version__.split('+')[0] != '$torch_version')" 2>/dev/null; then
  say "installing PyTorch $torch_version into $venv (once; reused afterwards)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  "$venv/bin/pip" install -q "torch==$torch_version" "torchvision==0.26.0" "timm==1.0.*"
fi
# The Python package's build backend and test runner (README.md, "Dependencies").
if ! "$venv/bin/python" -c "import scikit_build_core, pytest" 2>/dev/null; then
  say "installing scikit-build-core and pytest into $venv"
  "$venv/bin/pip" install -q "scikit-build-core>=0.10" "pytest>=7"
fi
torch_prefix=$("$venv/bin/python" -c 'import torch; print(torch.utils.cmake_prefix_path)')

# --- build ---
say "configuring and building in $build"
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH="$torch_prefix" -DPython_EXECUTABLE="$venv/bin/python" ${NIMBLE_CMAKE_ARGS:-} \
  >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log"; exit 1; }
# The Nimble summary line and CMake's warnings, each whole (a warning runs to the next "-- " or "CMake " line);
# those raised inside torch's own CMake files (kineto, CUDA architectures) are counted, not shown.
awk 'function flush() { if (block != "") { if (block ~ /torch\/share\/cmake/) torch++; else print block } block = "" }
     /^CMake (Deprecation )?Warning/ { flush(); block = $0; next }
     /^-- |^CMake / { flush(); if ($0 ~ /^-- Nimble/) print; next }
     block != "" { block = block "\n" $0 }
     END { flush(); if (torch) printf "(%d warning(s) from torch'"'"'s CMake files: %s)\n", torch, FILENAME }' "$build/configure.log"
cmake --build "$build" -j "$jobs"

# --- the Python package: pip install of this clone, built in the same folder (nothing is compiled twice) ---
if [ -f "$build/python/nimble/_build_info.py" ]; then
  say "installing the nimble Python package into $venv"
  "$venv/bin/pip" install -q --no-build-isolation --no-deps --force-reinstall -C build-dir="$build" "$root" \
    >"$build/pip-install.log" 2>&1 || { cat "$build/pip-install.log"; exit 1; }
  "$venv/bin/python" -c "import nimble; print('nimble', nimble.__version__, 'for torch', nimble._C.torch_version)"
fi

[ "$run_main" = 1 ] || exit 0

# --- the main job ---
# `report` stores its results in the database, so it works on copies, never on the bundled files.
prof="$build/cli/nimble-prof"
bundled="$root/samples/recorded/inception_v3.db"
say "report on the bundled recorded run ${bundled#$root/} (Inception-v3, eager, H100)"
cp "$bundled" "$build/main_job.db"
"$prof" report "$build/main_job.db"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x "$build/samples/cuda/concurrent_streams" ]; then
  say "GPU found: recording and reporting samples/cuda/concurrent_streams"
  rm -f "$build/concurrent_streams.db"
  "$prof" record -o "$build/concurrent_streams.db" -- "$build/samples/cuda/concurrent_streams"
  "$prof" report "$build/concurrent_streams.db"
fi
