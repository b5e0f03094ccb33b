#!/usr/bin/env python3
"""The Python package's figures on the GPU machine, one part per process (run by python_api_bench.sh):

  overhead MODEL   AcceleratedModule calls against nimble-run's replay of the same artifact, in one
                   process, interleaved in blocks: both timed with CUDA events around the input copy and
                   the replay (the call's Python work included), median of every call.
  accelerate MODEL nimble.accelerate on the nn.Module: single and multi measured / predicted.
  compile MODEL BACKEND  torch.compile(model, backend="nimble") or mode="reduce-overhead", or eager:
                   median latency and the time to compile.

Batch 1, fp32, TF32 off on every side. Prints one JSON line."""
import argparse
import importlib.util
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent


class Tiny(torch.nn.Module):
    """Two small convolutions: a replay of a few microseconds, where a per-call cost is not lost in
    the GPU time's spread."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b = torch.nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def build_model(name):
    if name == "tiny":
        torch.manual_seed(0)
        return Tiny().eval().cuda(), torch.randn(1, 3, 32, 32, device="cuda")
    if str(ROOT / "samples/models") not in sys.path:  # export_models imports its neighbours
        sys.path.insert(0, str(ROOT / "samples/models"))
    spec = importlib.util.spec_from_file_location("export_models", ROOT / "samples/models/export_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _, build, shape = module.MODELS[name]
    torch.manual_seed(0)
    return build().eval().cuda(), torch.randn(shape, device="cuda")


def event_times_ms(run, x, iters):
    """Per-call latency with CUDA events on the current stream around run(x), one call at a time."""
    stream = torch.cuda.current_stream()
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for start, stop in pairs:
        start.record(stream)
        run(x)
        stop.record(stream)
        stop.synchronize()
    return [start.elapsed_time(stop) for start, stop in pairs]


def overhead(args):
    """The per-call cost of an AcceleratedModule over the replay nimble-run times, in one process and
    one harness: each variant is timed the same way (events on the current stream around one call),
    in interleaved blocks whose order rotates. Variants: the module call; the binding alone (no
    nn.Module); the module with copy_outputs=True; the replay nimble-run times (the capture's inputs
    copied in, one replay: runner.replay()); and nimble-run's own C++ timing (latencies_ns)."""
    import nimble

    model, x = build_model(args.model)
    fast = nimble.accelerate(model, x, tf32=False, iters=args.iters, progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        artifact = pathlib.Path(tmp) / f"{args.model}.nimble"
        fast.save(artifact)
        copying = nimble.load(artifact, copy_outputs=True)
        runner = fast._runner
        variants = {
            "module_call": lambda t: fast(t),
            "binding_call": lambda t: fast._run((t,)),
            "module_call_copy": lambda t: copying(t),
            "replay_as_nimble_run": lambda t: runner.replay(),
        }
        times = {name: [] for name in variants}
        times["nimble_run_cpp_timing"] = []
        with torch.inference_mode():
            for run in variants.values():
                for _ in range(20):
                    run(x)
            torch.cuda.synchronize()
            names = list(variants)
            for block in range(args.blocks):
                order = names[block % len(names):] + names[:block % len(names)]
                for name in order:
                    times[name] += event_times_ms(variants[name], x, args.iters)
                times["nimble_run_cpp_timing"] += [ns / 1e6 for ns in fast.latencies_ns(args.iters)]
        cli = None
        if args.nimble_run:
            out = subprocess.run([args.nimble_run, str(artifact), "--iters", str(args.iters * args.blocks)],
                                 capture_output=True, text=True)
            cli = out.stdout.strip().splitlines()[-1] if out.returncode == 0 else f"failed: {out.stderr.strip()}"
    med = {name: statistics.median(v) for name, v in times.items()}
    base = med["replay_as_nimble_run"]
    print(json.dumps({"model": args.model, "mode": fast.mode, "calls": len(times["module_call"]),
                      "median_ms": med, "added_us": {k: (v - base) * 1e3 for k, v in med.items()},
                      "nimble_run_process": cli}))


def accelerate(args):
    import nimble

    model, x = build_model(args.model)
    fast = nimble.accelerate(model, x, tf32=False, iters=args.iters, progress=False)
    r = fast.report
    print(json.dumps({"model": args.model, "baseline_ms": r.baseline_ms,
                      "single": [r.single.measured_ms, r.single.predicted_ms],
                      "multi": [r.multi.measured_ms, r.multi.predicted_ms] if r.multi else None,
                      "chosen": r.chosen}))


def compile_(args):
    model, x = build_model(args.model)
    start = time.perf_counter()
    if args.backend == "nimble":
        import nimble  # noqa: F401  (registers the backend)

        run = torch.compile(model, backend="nimble", options={"iters": args.iters, "progress": False})
    elif args.backend == "reduce-overhead":
        run = torch.compile(model, mode="reduce-overhead")
    else:
        run = model
    with torch.no_grad():
        for _ in range(20):
            run(x)
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - start
        times = event_times_ms(run, x, args.iters)
    print(json.dumps({"model": args.model, "backend": args.backend, "median_ms": statistics.median(times),
                      "compile_s": compile_s}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("part", choices=["overhead", "accelerate", "compile"])
    parser.add_argument("model")
    parser.add_argument("backend", nargs="?", default="nimble", choices=["nimble", "reduce-overhead", "eager"])
    parser.add_argument("--iters", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--nimble-run", help="nimble-run binary, for the same artifact in its own process")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    {"overhead": overhead, "accelerate": accelerate, "compile": compile_}[args.part](args)


if __name__ == "__main__":
    sys.exit(main())
