#!/usr/bin/env python3
"""GPU active and idle time of an imported torch.profiler trace, side by side with nimble-prof's own
recording of the same model and with Holistic Trace Analysis (HTA) on the same trace.

    compare_import.py --prof build/cli/nimble-prof --trace bench/results/interop/inception_v3_torch.json.gz \
        --nimble-json bench/results/interop/inception_v3_nimble.json --hta-python ~/.cache/nimble/hta-venv/bin/python \
        --markdown out.md

Figures, all over the profiled iterations:
- imported: `nimble-prof import TRACE` then `nimble-prof report --json`: the run window (first GPU
  activity to last), its GPU active time (union of kernel, copy and memset intervals) and idle time;
  and the median ProfilerStep iteration;
- nimble-prof: the same figures from `nimble-prof model.pt --json` of the same module, recorded by
  Nimble's own collector in another process (the recorders cost the host different time, so idle time
  is compared as a figure of each recording, not expected to be equal);
- HTA: `TraceAnalysis(include_last_profiler_step=True)` temporal breakdown (idle = span of GPU work -
  union of it), with HTA's default rounding of ns timestamps to whole µs, and with it disabled
  (HTA_DISABLE_NS_ROUNDING=1).
HTA runs in its own virtual environment (it needs pandas and plotly), through --hta-python.
"""

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

HTA_SNIPPET = r"""
import json, logging, sys
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
from hta.analyzers.breakdown_analysis import BreakdownAnalysis
analysis = TraceAnalysis(trace_dir=sys.argv[1], include_last_profiler_step=True)
frame = analysis.t.get_trace(0)
gpu = frame[frame["stream"].ne(-1)].copy()
idle_us, span_us = BreakdownAnalysis._get_idle_time_for_kernels(gpu)
print(json.dumps({"gpu_events": int(len(gpu)), "idle_us": float(idle_us), "span_us": float(span_us)}))
"""


def run(cmd, **kwargs):
    done = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        sys.exit(f"compare_import.py: {' '.join(map(str, cmd))} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def window_figures(device):
    """(active_ns, idle_ns, span_ns) of the run window and of the median iteration."""
    runs = device["run"]
    out = {"run": (runs["active_ns"], runs["idle_ns"], runs["end_ns"] - runs["start_ns"])}
    iterations = device.get("iterations") or []
    if iterations:
        spans = sorted(iterations, key=lambda w: w["end_ns"] - w["start_ns"])
        median = spans[(len(spans) - 1) // 2]
        out["median_iteration"] = (median["active_ns"], median["idle_ns"], median["end_ns"] - median["start_ns"])
        out["iterations"] = len(iterations)
    return out


def imported_figures(prof, trace, workdir):
    db = workdir / "imported.db"
    run([prof, "import", str(trace), "-o", str(db)])
    report = json.loads(run([prof, "report", "--no-store", "--json", str(db)]))
    return window_figures(report["runs"][0]["devices"][0])


def nimble_figures(path):
    doc = json.loads(pathlib.Path(path).read_text())
    return window_figures(doc["runs"][0]["devices"][0])


def hta_figures(python, trace, workdir, rounding):
    folder = workdir / ("hta_rounded" if rounding else "hta_exact")
    folder.mkdir()
    shutil.copy(trace, folder / pathlib.Path(trace).name)
    env = dict(os.environ)
    if not rounding:
        env["HTA_DISABLE_NS_ROUNDING"] = "1"
    fig = json.loads(run([python, "-c", HTA_SNIPPET, str(folder)], env=env).strip().splitlines()[-1])
    span_ns = fig["span_us"] * 1000
    idle_ns = fig["idle_us"] * 1000
    return {"run": (span_ns - idle_ns, idle_ns, span_ns), "gpu_events": fig["gpu_events"]}


def pct(value, reference):
    return f"{100.0 * (value - reference) / reference:+.2f}%" if reference else "n/a"


def markdown(rows):
    ref = rows["imported"]["run"]
    lines = ["| source | window | GPU active (ms) | idle (ms) | span (ms) | active vs imported | idle vs imported |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for label, figures in rows.items():
        for window in ("run", "median_iteration"):
            if window not in figures:
                continue
            active, idle, span = figures[window]
            versus = (pct(active, ref[0]), pct(idle, ref[1])) if window == "run" else ("", "")
            lines.append(f"| {label} | {window.replace('_', ' ')} | {active / 1e6:.3f} | {idle / 1e6:.3f} | "
                         f"{span / 1e6:.3f} | {versus[0]} | {versus[1]} |")
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prof", required=True, help="the nimble-prof binary")
    parser.add_argument("--trace", required=True, type=pathlib.Path, help="torch.profiler trace (.json or .json.gz)")
    parser.add_argument("--nimble-json", type=pathlib.Path, help="`nimble-prof model.pt --json` of the same model")
    parser.add_argument("--hta-python", help="python of a virtual environment with HolisticTraceAnalysis")
    parser.add_argument("--markdown", type=pathlib.Path, help="write the table here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = pathlib.Path(tmp)
        rows = {"imported": imported_figures(args.prof, args.trace, workdir)}
        if args.nimble_json:
            rows["nimble-prof (own recording)"] = nimble_figures(args.nimble_json)
        if args.hta_python:
            rows["HTA, default (µs rounding)"] = hta_figures(args.hta_python, args.trace, workdir, True)
            rows["HTA, HTA_DISABLE_NS_ROUNDING=1"] = hta_figures(args.hta_python, args.trace, workdir, False)
    table = markdown(rows)
    print(table)
    if args.markdown:
        args.markdown.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
