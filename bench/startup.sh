#!/usr/bin/env bash
# Start-up time and peak memory of the tools that only read runs (nimble-prof without libtorch),
# beside nimble-prof-model (which loads libtorch) for scale: median wall time of N runs (clock stamps
# around GNU time, whose own start is included) and the largest maximum resident set size it reports. Prints a markdown table.
#   bench/startup.sh BUILD_DIR [N]
set -euo pipefail
build=${1:?usage: bench/startup.sh BUILD_DIR [N]}
n=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$root/samples/recorded/inception_v3.db" "$tmp/run.db"
measure() {  # label, command...
  local label=$1
  shift
  local times=() rss=0
  for _ in $(seq "$n"); do
    local start end
    start=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$tmp/t" "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    read -r kib <"$tmp/t"
    times+=("$(( (end - start) / 1000 ))")  # microseconds, GNU time's own start included
    [ "$kib" -gt "$rss" ] && rss=$kib
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int(NR/2)+1]}')
  printf '| %s | %.1f ms | %.1f MiB |\n' "$label" "$(echo "$median / 1000" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}
echo "| command | median wall time ($n runs) | max RSS |"
echo "| --- | --- | --- |"
measure "nimble-prof --version" "$build/cli/nimble-prof" --version
measure "nimble-prof info (Inception-v3 run)" "$build/cli/nimble-prof" info "$tmp/run.db"
measure "nimble-prof report --no-store (Inception-v3 run)" "$build/cli/nimble-prof" report --no-store "$tmp/run.db"
if [ -x "$build/cli/nimble-prof-model" ]; then
  measure "nimble-prof-model --version (loads libtorch)" "$build/cli/nimble-prof-model" --version
fi
