#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing and builds (tools/setup.sh --no-run), then ctest.
# GPU tests (label gpu) skip without a device; GUI tests (label gui) run under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh --no-run
build=${NIMBLE_BUILD_DIR:-$(pwd)/build}
jobs=${NIMBLE_JOBS:-$(nproc)}
# -noreset: without it Xvfb resets whenever its last client closes, and a test process connecting
# during the reset fails to open the display (seen once in a clean-clone run).
if command -v xvfb-run >/dev/null 2>&1 && [ -z "${DISPLAY:-}" ]; then
  xvfb-run -a -s "-screen 0 1600x1000x24 -noreset" ctest --test-dir "$build" --output-on-failure -j "$jobs"
else
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
fi
