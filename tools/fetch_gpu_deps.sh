#!/usr/bin/env bash
# Downloads (here, where Debian's archive is reachable) the headers the GPU machine lacks, into .deps/,
# which the device call carries. tools/gpu_check.sh unpacks them there. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/debs
cd .deps/debs
pkgs=(libsqlite3-dev libcli11-dev nlohmann-json3-dev libsimdjson-dev libsimdjson14 libbenchmark-dev libbenchmark1debian)
missing=()
for p in "${pkgs[@]}"; do ls "${p}"_*.deb >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get download "${missing[@]}"
fi
ls -la

# The GPU machine (Ubuntu 24.04, Python 3.12) may lack Python's headers, which the `nimble` Python
# module needs: Ubuntu's own package, unpacked there only when its python3 has no Python.h.
py_deb=libpython3.12-dev_3.12.3-1ubuntu0.17_amd64.deb
if [ ! -f "../python/$py_deb" ]; then
  mkdir -p ../python
  curl -sSf --max-time 120 -o "../python/$py_deb" "http://archive.ubuntu.com/ubuntu/pool/main/p/python3.12/$py_deb"
fi
# pytest for the Python suite there, as wheels (pure Python).
if ! ls ../python/wheels/pytest-*.whl >/dev/null 2>&1; then
  python3 -m pip download -q --only-binary=:all: --python-version 3.12 -d ../python/wheels pytest
fi
ls -la ../python ../python/wheels
