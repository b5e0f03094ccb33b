#!/usr/bin/env python3
"""GPU active and idle time per iteration across repeated recordings of one module by two recorders.

    idle_spread.py --prof build/cli/nimble-prof --rounds bench/results/interop/rounds --markdown out.md

`bench/interop_traces.sh --rounds R` records the module R times with each recorder in turn, in separate
processes on the same CPUs: nimble-prof's own collector (`nimble_K.json`) and torch.profiler with CPU
and CUDA activity (`torch_K.json.gz`, imported here with `nimble-prof import`). For each recording the
table gives the median iteration's GPU active and idle time, then, per recorder, the median over rounds
and the spread (max - min) between its rounds. The difference between the recorders is worth reading
only against that spread: in a launch-bound run the idle time is the host's speed, which varies from
process to process.
"""

import argparse
import pathlib
import statistics
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from compare_import import imported_figures, nimble_figures  # noqa: E402


def per_round(prof, rounds_dir):
    """{recorder: [(round, active_ns, idle_ns)]} from the median iteration of each recording."""
    out = {"nimble-prof": [], "torch.profiler (imported)": []}
    for path in sorted(rounds_dir.glob("nimble_*.json")):
        k = int(path.stem.split("_")[1])
        active, idle, _ = nimble_figures(path)["median_iteration"]
        out["nimble-prof"].append((k, active, idle))
    for path in sorted(rounds_dir.glob("torch_*.json.gz")):
        k = int(path.name.split("_")[1].split(".")[0])
        with tempfile.TemporaryDirectory() as tmp:
            figures = imported_figures(prof, path, pathlib.Path(tmp))
        active, idle, _ = figures["median_iteration"]
        out["torch.profiler (imported)"].append((k, active, idle))
    for rows in out.values():
        rows.sort()
    return out


def markdown(rows):
    lines = ["| recorder | round | GPU active (ms) | idle (ms) |", "| --- | --- | --- | --- |"]
    for recorder, values in rows.items():
        for k, active, idle in values:
            lines.append(f"| {recorder} | {k} | {active / 1e6:.3f} | {idle / 1e6:.3f} |")
    lines += ["", "| recorder | rounds | active: median (spread) | idle: median (spread) | idle spread / median |",
              "| --- | --- | --- | --- | --- |"]
    medians = {}
    for recorder, values in rows.items():
        if not values:
            continue
        active = [v[1] for v in values]
        idle = [v[2] for v in values]
        medians[recorder] = (statistics.median(active), statistics.median(idle))
        lines.append(f"| {recorder} | {len(values)} | {medians[recorder][0] / 1e6:.3f} "
                     f"({(max(active) - min(active)) / 1e6:.3f}) | {medians[recorder][1] / 1e6:.3f} "
                     f"({(max(idle) - min(idle)) / 1e6:.3f}) | "
                     f"{100.0 * (max(idle) - min(idle)) / medians[recorder][1]:.1f} % |")
    if len(medians) == 2:
        (a_act, a_idle), (b_act, b_idle) = medians.values()
        lines += ["", f"torch.profiler against nimble-prof, medians over rounds: GPU active "
                      f"{100.0 * (b_act - a_act) / a_act:+.2f} %, idle {100.0 * (b_idle - a_idle) / a_idle:+.2f} %."]
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prof", required=True, help="the nimble-prof binary")
    parser.add_argument("--rounds", required=True, type=pathlib.Path, help="folder of nimble_K.json and torch_K.json.gz")
    parser.add_argument("--markdown", type=pathlib.Path, help="write the table here")
    args = parser.parse_args(argv)
    if not args.rounds.is_dir():
        sys.exit(f"idle_spread.py: {args.rounds} is not a folder")
    table = markdown(per_round(args.prof, args.rounds))
    print(table)
    if args.markdown:
        args.markdown.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
