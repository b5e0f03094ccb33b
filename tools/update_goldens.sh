#!/usr/bin/env bash
# Rewrites the golden tests' expected files (tests/golden/expected/) from what nimble-prof prints now,
# checks them, and lists what changed. Review that diff: expected files change only in a commit that
# says why. Usage: tools/update_goldens.sh [build dir]  (default $NIMBLE_BUILD_DIR, else build-cpu).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-${NIMBLE_BUILD_DIR:-build-cpu}}
if [ ! -f "$build/CMakeCache.txt" ]; then
  # The golden tests need no GPU: a CPU-only tree builds in minutes.
  generator=()
  if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNIMBLE_WITH_TORCH=OFF \
    -DNIMBLE_WITH_CUDA=OFF -DNIMBLE_WITH_QT=OFF -DNIMBLE_BUILD_BENCHMARKS=OFF
fi
cmake --build "$build" --target nimble_golden_tests
tests="$build/tests/golden/nimble_golden_tests"
# Only the cases write; the self-tests then run against the new files with everything else.
NIMBLE_UPDATE_GOLDENS=1 "$tests" --gtest_brief=1 --gtest_filter='Cases/*:GoldenCasesFile.*'
"$tests" --gtest_brief=1
echo
echo "Changed expected files (new ones are marked ??):"
git status --short --untracked-files=all -- tests/golden/expected
git diff --stat -- tests/golden/expected
