#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing and builds (tools/setup.sh --no-run), then ctest
# and the Python package's pytest suite. GPU tests (ctest label gpu, pytest marker gpu) skip without a
# device; GUI tests (label gui) run under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh --no-run
build=${NIMBLE_BUILD_DIR:-$(pwd)/build}
jobs=${NIMBLE_JOBS:-$(nproc)}
venv=${NIMBLE_VENV:-$HOME/.cache/nimble/venv}
# -noreset: without it Xvfb resets whenever its last client closes, and a test process connecting
# during the reset fails to open the display (seen once in a clean-clone run).
if command -v xvfb-run >/dev/null 2>&1 && [ -z "${DISPLAY:-}" ]; then
  xvfb-run -a -s "-screen 0 1600x1000x24 -noreset" ctest --test-dir "$build" --output-on-failure -j "$jobs"
else
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
fi
# The installed package, tested from outside the source tree's python/ folder (so the import is the
# installed one); the build folder gives the command-line tools some tests compare with.
NIMBLE_BUILD_DIR="$build" "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider "$(pwd)/python/tests"
