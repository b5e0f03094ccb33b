#!/usr/bin/env bash
# Downloads (here, where Debian's archive is reachable) the headers the GPU machine lacks, into .deps/,
# which the device call carries. tools/gpu_check.sh unpacks them there. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/debs
cd .deps/debs
pkgs=(libsqlite3-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev libbenchmark1debian)
missing=()
for p in "${pkgs[@]}"; do ls "${p}"_*.deb >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get download "${missing[@]}"
fi
ls -la
