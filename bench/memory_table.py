#!/usr/bin/env python3
"""The tables of bench/results/memory.md from bench/memory_bench.sh's JSON files (one per model and
variant, nimble-accelerate --json). Memory is above the weights and inputs, in MiB: peaks of the
libtorch forward (eager) and of each mode's warm-up and capture, allocated / reserved, and the pool
the captured graph keeps. "gain kept" compares a variant's multi-stream gain over single-stream,
(single / multi - 1), with that of the variant given as --before (default: before).

    memory_table.py OUT_DIR --models googlenet inception_v3 --variants before default cap8
"""

import argparse
import json
import pathlib
import sys

MIB = 2**20


def load(path):
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        return None, f"{path.name}: {error}"
    if not data.get("single"):
        return None, f"{path.name}: no single-stream capture"
    return data, None


def mib(value):
    return f"{value / MIB:.1f}"


def gain(data):
    multi = data.get("multi")
    if not multi or not multi["measured_ms"]:
        return None
    return data["single"]["measured_ms"] / multi["measured_ms"] - 1.0


def row(model, variant, data, before):
    single, multi = data["single"], data.get("multi")
    cells = [model, variant,
             f"{mib(data['baseline_peak_allocated_bytes'])} / {mib(data['baseline_peak_memory_bytes'])}",
             f"{single['measured_ms']:.3f}",
             f"{mib(single['peak_allocated_bytes'])} / {mib(single['peak_memory_bytes'])} / {mib(single['graph_pool_bytes'])}"]
    if multi:
        ratio = multi["peak_memory_bytes"] / max(single["peak_memory_bytes"], 1)
        g, g0 = gain(data), gain(before) if before else None
        kept = f"{100 * g / g0:.0f} %" if g is not None and g0 else "-"
        cells += [f"{multi['measured_ms']:.3f} ({multi['predicted_ms']:.3f})",
                  f"{multi['streams']} / {multi['syncs']}",
                  f"{mib(multi['peak_allocated_bytes'])} / {mib(multi['peak_memory_bytes'])} / {mib(multi['graph_pool_bytes'])}",
                  f"{single['measured_ms'] / multi['measured_ms']:.2f}x", f"{ratio:.2f}x", kept]
    else:
        cells += ["-"] * 6
    cells.append(data.get("chosen") or "-")
    return "| " + " | ".join(cells) + " |"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--models", nargs="+", required=True)
    parser.add_argument("--variants", nargs="+", required=True)
    parser.add_argument("--before", default="before", help="the variant the gain is compared with")
    args = parser.parse_args(argv)
    print("| model | variant | eager peak MiB alloc / reserved | single ms | single MiB alloc / reserved / pool "
          "| multi ms (predicted) | streams / syncs | multi MiB alloc / reserved / pool | multi/single speed "
          "| multi/single peak reserved | gain kept | chosen |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    problems = []
    for model in args.models:
        before, _ = load(args.out / f"{model}.{args.before}.json")
        for variant in args.variants:
            data, problem = load(args.out / f"{model}.{variant}.json")
            if data is None:
                problems.append(problem)
                print(f"| {model} | {variant} | failed |" + " |" * 10)
                continue
            print(row(model, variant, data, before if variant != args.before else None))
            if data.get("memory_choice"):
                print(f"<!-- {model} {variant}: {data['memory_choice']} -->")
    for problem in problems:
        print(f"\n{problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
