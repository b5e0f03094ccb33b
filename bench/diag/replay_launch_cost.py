"""Where a captured model's replay time goes between the host's launch and the GPU's work: one model
captured by nimble.accelerate single-stream and multi-stream, the two timed in alternating rounds in four
ways, so that a difference between the modes can be placed on the host or on the GPU.

  call     CUDA events around one call on an idle GPU (nimble-accelerate's and nimble-run's latency: the
           host's copy and graph launch are inside it, the GPU waiting on them)
  gpu      the same call queued behind a sleeping kernel of about 1 ms, the start event after the sleep:
           the host has launched the graph before the GPU reaches it, so only the GPU's time is left
  host     the host's time in that call (perf_counter around it, the GPU busy with the sleep)
  stream   `burst` calls in a row between two events, divided by `burst`: the host runs ahead

    python3 bench/diag/replay_launch_cost.py MODEL.pt2 1x128:int64:0..50256 [--max-streams 2]
"""
import argparse
import statistics
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from graph_timing import sleep_cycles  # noqa: E402

import nimble


def example_inputs(specs):
    tensors = []
    for spec in specs:
        parts = spec.split(":")
        shape = [int(d) for d in parts[0].split("x")]
        dtype = getattr(torch, parts[1]) if len(parts) > 1 else torch.float32
        if dtype == torch.int64:
            high = int(parts[2].split("..")[1]) + 1 if len(parts) > 2 else 2
            tensors.append(torch.randint(0, high, shape, device="cuda"))
        else:
            tensors.append(torch.randn(shape, device="cuda", dtype=dtype))
    return tuple(tensors)


def time_round(module, inputs, calls, burst, cycles):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    out = {"call": [], "gpu": [], "host": [], "stream": []}
    for _ in range(20):
        module(*inputs)
    torch.cuda.synchronize()
    for _ in range(calls):
        start.record()
        module(*inputs)
        stop.record()
        stop.synchronize()
        out["call"].append(start.elapsed_time(stop))
    for _ in range(calls):
        torch.cuda._sleep(cycles)
        start.record()
        t0 = time.perf_counter()
        module(*inputs)
        host_ms = (time.perf_counter() - t0) * 1e3
        stop.record()
        stop.synchronize()
        out["gpu"].append(start.elapsed_time(stop))
        out["host"].append(host_ms)
    for _ in range(max(1, calls // burst)):
        start.record()
        for _ in range(burst):
            module(*inputs)
        stop.record()
        stop.synchronize()
        out["stream"].append(start.elapsed_time(stop) / burst)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--max-streams", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--burst", type=int, default=20)
    args = parser.parse_args()
    inputs = example_inputs(args.inputs)
    modules = {
        "single": nimble.accelerate(args.model, inputs, mode="single", iters=50),
        "multi": nimble.accelerate(args.model, inputs, mode="multi", max_streams=args.max_streams, iters=50),
    }
    for name, m in modules.items():
        modes = [x for x in (m.report.single, m.report.multi) if x is not None]
        print(f"{name}: captured {m.mode}, streams {m.capture_stats.get('streams')}; nimble-accelerate: " + "; ".join(
            f"{x.mode} measured {x.measured_ms:.4f} ms, predicted {x.predicted_ms:.4f} ms" for x in modes))
    cycles = sleep_cycles(1000)
    totals = {name: {"call": [], "gpu": [], "host": [], "stream": []} for name in modules}
    for rnd in range(args.rounds):
        order = list(modules) if rnd % 2 == 0 else list(reversed(modules))
        for name in order:
            for kind, values in time_round(modules[name], inputs, args.calls, args.burst, cycles).items():
                totals[name][kind].extend(values)
    print(f"{args.rounds} alternating rounds of {args.calls} calls; medians in ms (stream: per call in "
          f"bursts of {args.burst})")
    print(f"{'':8} {'call':>8} {'gpu':>8} {'host':>8} {'stream':>8}")
    for name, kinds in totals.items():
        print(f"{name:8} " + " ".join(f"{statistics.median(kinds[k]):8.4f}" for k in ("call", "gpu", "host", "stream")))
    s, m = totals["single"], totals["multi"]
    print("multi - single, us: " + "  ".join(
        f"{k} {1e3 * (statistics.median(m[k]) - statistics.median(s[k])):+.1f}" for k in ("call", "gpu", "host", "stream")))


if __name__ == "__main__":
    main()
