#!/usr/bin/env python3
"""The bucket tables of bench/results/memory.md from bench/buckets_bench.sh's output: per model and
bucket (input shape), the libtorch forward and both captured modes (median ms), the multi-stream gain
measured and predicted, the mode model.nimble runs, capture times and the pool the chosen capture
keeps; then per model the graph pools with a pool per bucket and with one shared pool: nimble-accelerate's
own figures (the buckets' pools summed, the written model.nimble captured into one pool) and nimble-run's,
each capture set in a new process.

    buckets_table.py OUT_DIR --models inception_v3 googlenet
"""

import argparse
import json
import pathlib
import re
import sys

MIB = 2**20


def ms(value):
    return f"{value:.3f}"


def pool_line(path):
    """'N buckets captured into ..., X MiB of graph pool in all' from nimble-run's output."""
    try:
        text = path.read_text()
    except OSError:
        return None
    match = re.search(r"([0-9.]+) MiB of graph pool in all", text)
    return float(match.group(1)) if match else None


def run_medians(path):
    """{inputs: median ms} from nimble-run's per-bucket table."""
    medians = {}
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return medians
    for line in lines:
        match = re.match(r"(\S+)\s+aot-\S+\s.*\s([0-9.]+) ms$", line)
        if match:
            medians[match.group(1)] = float(match.group(2))
    return medians


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--models", nargs="+", required=True)
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    rows, pools, problems = [], [], []
    for model in args.models:
        path = out / f"{model}.buckets.json"
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            problems.append(f"{path.name}: {error}")
            continue
        shared_ms = run_medians(out / f"{model}.run_shared.txt")
        separate_ms = run_medians(out / f"{model}.run_separate.txt")
        for b in data["buckets"]:
            run = (f"{shared_ms[b['inputs']]:.3f} / {separate_ms[b['inputs']]:.3f}"
                   if b["inputs"] in shared_ms and b["inputs"] in separate_ms else "-")
            single, multi = b["single"], b["multi"]
            chosen = multi if b["chosen"] == "aot-multi" and multi else single
            gain = f"{single['measured_ms'] / multi['measured_ms']:.2f}x" if multi else "-"
            predicted = f"{single['predicted_ms'] / multi['predicted_ms']:.2f}x" if multi else "-"
            rows.append(f"| {model} | {b['inputs']} | {ms(b['baseline_ms'])} | {ms(single['measured_ms'])} | "
                        f"{ms(multi['measured_ms']) if multi else '-'} | {gain} | {predicted} | "
                        f"{b['baseline_ms'] / chosen['measured_ms']:.2f}x | {b['chosen']} | "
                        f"{single['capture_ns'] / 1e6:.0f} / {multi['capture_ns'] / 1e6 if multi else 0:.0f} | "
                        f"{chosen['graph_pool_bytes'] / MIB:.1f} | {run} |")
        seconds = (out / f"{model}.accelerate_seconds")
        elapsed = seconds.read_text().strip() if seconds.exists() else "-"
        shared_run = pool_line(out / f"{model}.run_shared.txt")
        separate_run = pool_line(out / f"{model}.run_separate.txt")
        pools.append(f"| {model} | {len(data['buckets'])} | {data['separate_pool_bytes'] / MIB:.1f} | "
                     f"{data['shared_pool_bytes'] / MIB:.1f} | "
                     f"{separate_run if separate_run is not None else '-'} / "
                     f"{shared_run if shared_run is not None else '-'} | "
                     f"{data['shared_capture_ns'] / 1e6:.0f} | {data['artifact_bytes'] / MIB:.1f} | "
                     f"{data['shared_weights']} | {elapsed} |")
    print("| model | inputs | libtorch ms | aot-single ms | aot-multi ms | multi vs single | predicted | "
          "chosen vs libtorch | runs | capture ms single / multi | pool MiB (chosen) | "
          "nimble-run ms, shared pool / a pool each |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    print()
    print("| model | buckets | pools MiB, a pool each | one shared pool | nimble-run: a pool each / shared | "
          "capture of all, shared, ms | model.nimble MiB | weights stored once | nimble-accelerate s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(pools))
    for problem in problems:
        print(f"\n{problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
