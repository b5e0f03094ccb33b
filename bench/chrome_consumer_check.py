#!/usr/bin/env python3
"""Checks `nimble-prof export --format chrome` with a consumer that is not ours: Holistic Trace Analysis
(HTA), which reads Kineto (torch.profiler) traces. Every run of samples/recorded/*.db (or the databases
given) is exported, as .json and as .json.gz, and loaded by HTA; HTA must find the same number of kernels
and the same GPU idle time as `nimble-prof report --json` (within 1%), and link kernels to the
cudaLaunchKernel calls that launched them by correlation id.

HTA lives in its own virtual environment, never in the project's (its pins clash with torch's):
    python3 -m venv ~/.cache/nimble/hta-venv
    ~/.cache/nimble/hta-venv/bin/pip install --no-deps HolisticTraceAnalysis==0.5.0
    ~/.cache/nimble/hta-venv/bin/pip install pandas numpy plotly pydot networkx psutil pyyaml
Run it with that interpreter:
    ~/.cache/nimble/hta-venv/bin/python bench/chrome_consumer_check.py --prof build/cli/nimble-prof
Exit status 0 when every run agrees, 1 otherwise; one line per run, then a summary table (Markdown).
"""
from __future__ import annotations

import argparse
import glob
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# HTA rounds ns-resolution timestamps to whole microseconds unless told not to (start up, end down),
# which would shorten every short kernel by up to 2 µs; the export keeps nanoseconds, so keep them.
os.environ.setdefault("HTA_DISABLE_NS_ROUNDING", "1")

TOLERANCE = 0.01


def report_figures(prof: str, db: str) -> list[dict]:
    out = subprocess.run([prof, "report", "--json", "--no-store", db], check=True, capture_output=True, text=True)
    runs = []
    for run in json.loads(out.stdout)["runs"]:
        devices = run["devices"]
        runs.append({
            "id": run["run"]["id"],
            "devices": len(devices),
            "kernels": sum(d["run"]["kernels"] for d in devices),
            "idle_ns": sum(d["run"]["idle_ns"] for d in devices),
        })
    return runs


def export(prof: str, db: str, run: int, out: Path) -> float:
    out.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    subprocess.run([prof, "export", "--format", "chrome", "--quiet", "--run", str(run), db, "-o", str(out)],
                   check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def hta_figures(trace_dir: Path) -> dict:
    from hta.trace_analysis import TraceAnalysis  # imported late: the environment variable must be set first

    analysis = TraceAnalysis(trace_dir=str(trace_dir))
    df = analysis.t.get_trace(0)
    symbols = analysis.t.symbol_table.get_sym_id_map()
    kernels = int((df["cat"] == symbols.get("kernel", -2)).sum())
    temporal = analysis.get_temporal_breakdown(visualize=False)
    launch = analysis.get_cuda_kernel_launch_stats(visualize=False, include_memory_events=False)[0]
    return {
        "kernels": kernels,
        "gpu_events": int((df["stream"] != -1).sum()),
        "idle_ns": float(temporal["idle_time(us)"].iloc[0]) * 1000.0,
        "launched": int(len(launch)),
    }


def relative(a: float, b: float) -> float:
    return abs(a - b) / b if b else float(a != b)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prof", default=os.path.join(os.environ.get("NIMBLE_BUILD_DIR", "build"), "cli/nimble-prof"))
    parser.add_argument("databases", nargs="*", help="run databases (default: samples/recorded/*.db)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # HTA logs every parse at warning level
    try:
        import hta  # noqa: F401
    except ImportError:
        print("Holistic Trace Analysis is not importable here; see this script's docstring", file=sys.stderr)
        return 2
    root = Path(__file__).resolve().parent.parent
    dbs = args.databases or sorted(glob.glob(str(root / "samples/recorded/*.db")))
    rows, ok = [], True
    with tempfile.TemporaryDirectory(prefix="nimble_chrome_check_") as tmp:
        for db in dbs:
            for run in report_figures(args.prof, db):
                for suffix in ("json", "json.gz"):
                    trace_dir = Path(tmp) / f"{Path(db).stem}_run{run['id']}_{suffix.replace('.', '_')}"
                    out = trace_dir / f"trace.{suffix}"
                    seconds = export(args.prof, db, run["id"], out)
                    start = time.perf_counter()
                    hta_run = hta_figures(trace_dir)
                    load_s = time.perf_counter() - start
                    good = (hta_run["kernels"] == run["kernels"] and
                            relative(hta_run["idle_ns"], run["idle_ns"]) <= TOLERANCE and
                            hta_run["launched"] > 0)
                    ok = ok and good
                    rows.append((Path(db).name, run["id"], suffix, run["kernels"], hta_run["kernels"],
                                 hta_run["launched"], run["idle_ns"], hta_run["idle_ns"],
                                 100.0 * relative(hta_run["idle_ns"], run["idle_ns"]), out.stat().st_size,
                                 seconds, load_s, "ok" if good else "MISMATCH"))
                    print(f"{Path(db).name} run {run['id']} .{suffix}: kernels {run['kernels']} / HTA "
                          f"{hta_run['kernels']}, linked to launches {hta_run['launched']}, idle "
                          f"{run['idle_ns']} ns / HTA {hta_run['idle_ns']:.0f} ns: {'ok' if good else 'MISMATCH'}",
                          flush=True)
    print()
    print("| database | run | file | kernels (report) | kernels (HTA) | kernels linked to cudaLaunchKernel (HTA) "
          "| idle ns (report) | idle ns (HTA) | idle diff % | bytes | export s | HTA load+analyze s | |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | .{r[2]} | {r[3]} | {r[4]} | {r[5]} | {r[6]} | {r[7]:.0f} | {r[8]:.4f} | {r[9]} "
              f"| {r[10]:.2f} | {r[11]:.2f} | {r[12]} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
