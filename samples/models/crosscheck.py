#!/usr/bin/env python3
"""Checks `nimble-prof model.pt --json` against torch.profiler, measured in a separate process.

nimble-prof's collector and torch.profiler both drive CUPTI, so they never share a process: this
script runs after nimble-prof, on the same GPU, in the same job. For each model it runs the graph
nimble-prof runs (the module frozen, and optimized unless --no-optimize: conv-batchnorm folding, and
conv-add-relu fusion with --cuda-fusions; the interpreter's own fusion off) for the same warmup and
iteration counts:

- timed (--timed-iters, as nimble-prof's): torch.cuda.synchronize() after each forward, host clock
  around both: the latency compared with nimble-prof's timing of the same module's forward (the same
  executor, in another process). Batch-1 latency is host time, so run both processes on the same CPUs
  (bench/model_profile.sh pins them);
- profiled, after every model was timed: torch.profiler with CPU and CUDA activity, one annotation
  per iteration ending after the synchronize. GPU active time of an iteration is the union of the
  kernel and memset intervals that start inside its annotation (the GPU active time compared); its
  latency is the annotation's length.

It compares medians with nimble-prof's (iteration window, GPU active time, kernels per iteration),
checks the unattributed share, and writes JSON and a markdown table. Usage:

    crosscheck.py --manifest build-models/manifest.json --nimble DIR --iters 20 --warmup 5 --timed-iters 100 \\
        --json crosscheck.json --markdown model_profile.md

where DIR holds <name>.json printed by `nimble-prof <name>.pt --json` with the same counts and, where
nimble-prof was given `--save-module DIR/<name>.profiled.pt`, the module exactly as it ran it (frozen,
optimized, specialized to the input shapes), which is then the one timed and profiled here.
"""

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import time

import torch

ANNOTATION = "nimble_crosscheck_iteration"
GPU_CATEGORIES = ("kernel", "gpu_memset")
TOLERANCE = 0.10          # acceptance: within 10 %
UNATTRIBUTED_LIMIT = 0.01  # acceptance: under 1 % of kernel time


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", required=True, type=pathlib.Path, help="manifest.json of export_models.py")
    parser.add_argument("--nimble", required=True, type=pathlib.Path, help="folder of nimble-prof --json outputs")
    parser.add_argument("--models", nargs="+", help="subset of the manifest's models (default: all)")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--timed-iters", type=int, default=100, help="as nimble-prof --timed-iters")
    parser.add_argument("--no-optimize", action="store_true", help="as nimble-prof --no-optimize")
    parser.add_argument("--cuda-fusions", action="store_true", help="as nimble-prof --cuda-fusions")
    parser.add_argument("--json", type=pathlib.Path, help="write every figure here")
    parser.add_argument("--markdown", type=pathlib.Path, help="write the comparison table here")
    return parser.parse_args(argv)


def frozen_module(path, optimize, fuse):
    """The graph nimble-prof's front end builds, run by the TorchScript interpreter."""
    module = torch.jit.freeze(torch.jit.load(str(path), map_location="cuda").eval(), optimize_numerics=optimize)
    graph = module.graph
    torch._C._jit_pass_constant_propagation(graph)
    if optimize and fuse:
        torch._C._jit_pass_fuse_frozen_conv_add_relu(graph)
    torch._C._jit_pass_dce(graph)
    return module


def union_ns(intervals):
    total, end = 0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def profiled_iterations(module, inputs, iters):
    """Per iteration: (latency_ns, gpu_active_ns, kernels) from torch.profiler's trace."""
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(iters):
            with torch.profiler.record_function(ANNOTATION):
                module(*inputs)
                torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as trace_file:
        prof.export_chrome_trace(trace_file.name)
        events = json.load(open(trace_file.name))["traceEvents"]
    ns = lambda us: int(round(float(us) * 1000))
    windows = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in events
                     if e.get("name") == ANNOTATION and e.get("cat") == "user_annotation")
    gpu = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in events if e.get("cat") in GPU_CATEGORIES]
    kernel_starts = [ns(e["ts"]) for e in events if e.get("cat") == "kernel"]
    out = []
    for start, end in windows:
        inside = [g for g in gpu if start <= g[0] < end]
        kernels = sum(1 for k in kernel_starts if start <= k < end)
        out.append((end - start, union_ns(inside), kernels))
    return out


def load_module(path, args, profiled_module=None):
    # The module exactly as nimble-prof ran it (--save-module), else the same front-end steps redone
    # here (without its specialization to the input shapes).
    if profiled_module is not None and profiled_module.exists():
        return torch.jit.load(str(profiled_module), map_location="cuda").eval()
    return frozen_module(path, not args.no_optimize, args.cuda_fusions)


def time_torch(module, inputs, args):
    """Host clock around forward and synchronize, --timed-iters times after the warmup."""
    with torch.inference_mode(), torch.jit.optimized_execution(False):
        for _ in range(max(args.warmup, 1)):
            module(*inputs)
        torch.cuda.synchronize()
        timed = []
        for _ in range(args.timed_iters):
            start = time.perf_counter_ns()
            module(*inputs)
            torch.cuda.synchronize()
            timed.append(time.perf_counter_ns() - start)
    return {"timed_ns": timed, "latency_ns": statistics.median(timed)}


def profile_torch(module, inputs, args, name):
    with torch.inference_mode(), torch.jit.optimized_execution(False):
        profiled = profiled_iterations(module, inputs, args.iters)
    if len(profiled) != args.iters:
        raise RuntimeError(f"{name}: found {len(profiled)} profiled iterations, expected {args.iters}")
    return {
        "profiled_latency_ns": statistics.median(p[0] for p in profiled),
        "gpu_active_ns": statistics.median(p[1] for p in profiled),
        "kernels_per_iteration": statistics.median(p[2] for p in profiled),
    }


def nimble_figures(doc):
    """The figures of nimble-prof's report of one run (its median iteration where there are several)."""
    run = doc["runs"][0]
    device = max(run["devices"], key=lambda d: d["run"]["kernels"])
    its = device["iterations"]
    median_it = sorted(its, key=lambda it: it["end_ns"] - it["start_ns"])[len(its) // 2]
    graph, prediction, profile = run["graph"], run["prediction"], run["profile"]
    return {
        "device_name": run["run"]["device"],
        "latency_ns": profile["latency_ns"],
        "forward_latency_ns": profile["forward_latency_ns"],
        "forward_timed_ns": profile["forward_timed_ns"],
        "recorded_latency_ns": statistics.median(it["end_ns"] - it["start_ns"] for it in its),
        "gpu_active_ns": statistics.median(it["active_ns"] for it in its),
        "active_ratio": statistics.median(it["active_ns"] for it in its) / profile["latency_ns"],
        "recorded_active_ratio": median_it["active_ratio"],
        "idle_by_cause_ns": {k: v["idle_ns"] for k, v in median_it["idle_by_cause"].items()},
        "kernels_per_iteration": statistics.median(it["kernels"] for it in its),
        "critical_path_ns": graph["critical_path"]["length_ns"],
        "critical_path_ratio": graph["critical_path"]["ratio_to_active"],
        "ops": graph["ops"],
        "width": graph["width"],
        "streams": graph["assignment"]["streams"],
        "syncs": len(graph["assignment"]["syncs"]),
        "aot_single_ns": prediction["aot_single_ns"],
        "aot_multi_ns": prediction["aot_multi_ns"],
        "speedup_aot_single": profile["speedup_aot_single_over_latency"],
        "speedup_aot_multi": profile["speedup_aot_multi_over_latency"],
        "recorded_speedup_aot_single": prediction["speedup_aot_single"],
        "recorded_speedup_aot_multi": prediction["speedup_aot_multi"],
        "api_calls_recorded": profile["api_calls_recorded"],
        "unprofiled_latency_ns": profile["warmup_median_wall_ns"],
        "timed_ns": profile["timed_wall_ns"],
        "unattributed_share": profile["attribution"]["unattributed_share"],
        "kernels": profile["attribution"]["kernels"],
    }


def compare(nimble, torch_side):
    """Latency: nimble-prof's timing of the module's forward (collector off) against the plainly timed
    torch run of the same module; GPU active time (recorded) against torch.profiler's. The op-by-op
    executor's latency and the recorded latencies are compared for information: the executor is not the
    interpreter, and each profiler adds its own cost."""
    delta = lambda a, b: (a - b) / b if b else float("inf")
    checks = {
        "gpu_active_delta": delta(nimble["gpu_active_ns"], torch_side["gpu_active_ns"]),
        "latency_delta": delta(nimble["forward_latency_ns"], torch_side["latency_ns"]),
        "executor_latency_delta": delta(nimble["latency_ns"], torch_side["latency_ns"]),
        "recorded_latency_delta": delta(nimble["recorded_latency_ns"], torch_side["latency_ns"]),
        "profiled_latency_delta": delta(nimble["recorded_latency_ns"], torch_side["profiled_latency_ns"]),
        "unprofiled_latency_delta": delta(nimble["unprofiled_latency_ns"], torch_side["latency_ns"]),
        # The fastest iterations: host-bound latency on a shared machine has slow outliers in bursts.
        "min_latency_delta": delta(min(nimble["forward_timed_ns"]), min(torch_side["timed_ns"])),
    }
    checks["recorded_vs_latency"] = delta(nimble["recorded_latency_ns"], nimble["latency_ns"])
    checks["ok"] = (abs(checks["gpu_active_delta"]) <= TOLERANCE and abs(checks["latency_delta"]) <= TOLERANCE
                    and nimble["unattributed_share"] < UNATTRIBUTED_LIMIT)
    return checks


def ms(ns):
    return f"{ns / 1e6:.3f}"


def markdown(results):
    head = ("| model | forward latency (ms) | op-by-op latency (ms) | recorded (collector cost) | GPU active (ms) | active ratio (of latency / recorded) "
            "| idle while recorded: host late / sync / copy / other (ms) "
            "| critical path (ms) | CP / active | width | streams | syncs | AoT single (ms, x) | AoT multi (ms, x) "
            "| torch: latency / active (ms) | delta latency / active | unattributed | check |")
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    for name, r in results.items():
        n, t, c = r["nimble"], r["torch"], r["checks"]
        idle = n["idle_by_cause_ns"]
        lines.append(
            f"| {name} | {ms(n['forward_latency_ns'])} | {ms(n['latency_ns'])} "
            f"| {ms(n['recorded_latency_ns'])} ({c['recorded_vs_latency'] * 100:+.0f}%) "
            f"| {ms(n['gpu_active_ns'])} | {n['active_ratio'] * 100:.1f}% / {n['recorded_active_ratio'] * 100:.1f}% "
            f"| {ms(idle['host_launch_late'])} / {ms(idle['synchronization'])} / {ms(idle['memory_copy'])} / "
            f"{ms(idle['other'])} | {ms(n['critical_path_ns'])} | {n['critical_path_ratio'] * 100:.1f}% "
            f"| {n['width']} | {n['streams']} | {n['syncs']} "
            f"| {ms(n['aot_single_ns'])}, {n['speedup_aot_single']:.2f}x | {ms(n['aot_multi_ns'])}, "
            f"{n['speedup_aot_multi']:.2f}x | {ms(t['latency_ns'])} / {ms(t['gpu_active_ns'])} "
            f"| {c['latency_delta'] * 100:+.1f}% / {c['gpu_active_delta'] * 100:+.1f}% "
            f"| {n['unattributed_share'] * 100:.3f}% | {'ok' if c['ok'] else 'FAILED'} |")
    return "\n".join(lines) + "\n"


def main(argv):
    args = parse_args(argv)
    if not torch.cuda.is_available():
        print("crosscheck.py: torch sees no CUDA device", file=sys.stderr)
        return 2
    manifest = json.loads(args.manifest.read_text())
    names = args.models or list(manifest["models"])
    nimble, modules, torch_side = {}, {}, {}
    # Every model timed before any is profiled: a torch.profiler session leaves its cost in the process.
    for name in names:
        entry = manifest["models"][name]
        nimble[name] = nimble_figures(json.loads((args.nimble / f"{name}.json").read_text()))
        if len(nimble[name]["forward_timed_ns"]) != args.timed_iters:
            print(f"crosscheck.py: {name}: nimble-prof timed {len(nimble[name]['forward_timed_ns'])} forwards, this "
                  f"script {args.timed_iters}: pass the same --timed-iters to both", file=sys.stderr)
        module = load_module(args.manifest.parent / entry["file"], args, args.nimble / f"{name}.profiled.pt")
        inputs = [torch.randn(entry["input_shape"], device="cuda")]
        modules[name] = (module, inputs)
        torch_side[name] = time_torch(module, inputs, args)
    results = {}
    for name in names:
        module, inputs = modules[name]
        torch_side[name].update(profile_torch(module, inputs, args, name))
        n, t = nimble[name], torch_side[name]
        results[name] = {"nimble": n, "torch": t, "checks": compare(n, t)}
        c = results[name]["checks"]
        print(f"{name}: forward latency {ms(n['forward_latency_ns'])} ms vs {ms(t['latency_ns'])} ms "
              f"({c['latency_delta'] * 100:+.1f}%), GPU active {ms(n['gpu_active_ns'])} ms vs "
              f"{ms(t['gpu_active_ns'])} ms ({c['gpu_active_delta'] * 100:+.1f}%), kernels/iter "
              f"{n['kernels_per_iteration']} vs {t['kernels_per_iteration']}, unattributed "
              f"{n['unattributed_share'] * 100:.3f}%: {'ok' if c['ok'] else 'FAILED'}", flush=True)
    doc = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "iters": args.iters,
           "warmup": args.warmup, "timed_iters": args.timed_iters, "models": results}
    if args.json:
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    if args.markdown:
        args.markdown.write_text(markdown(results))
    return 0 if all(r["checks"]["ok"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
