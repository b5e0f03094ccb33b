"""How a captured graph's GPU time evolves over the first seconds of a fresh process: a model.nimble is
loaded and replayed for `seconds`, each replay queued behind a short sleeping kernel and timed between two
CUDA events (GPU only: the host's launch is not in it), and the medians are printed per `bin` of
wall-clock time. With --control, a CUDA graph of plain PyTorch work (a chain of small matrix products,
about as many kernels as GPT-2's graph) is replayed the same way in the same process afterwards, to tell
a property of the model's graph from one of the GPU or process.

With --phases (e.g. "gpu,call,gpu"), the model's replays are timed in phases of `seconds` each: "gpu" as
above, "call" as nimble-run times them (module.latencies_ns in chunks of 50: CUDA events around each
call on an idle GPU, the host's copy and launch inside), to see whether one way of replaying changes the
other's time.

    python3 bench/diag/replay_transient.py model.nimble [--seconds 4] [--bin 0.1] [--control] [--phases gpu,call,gpu]
"""
import argparse
import statistics
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from graph_timing import gemm_chain_graph, module_inputs, sleep_cycles  # noqa: E402

import nimble


def timeline(replay, seconds, bin_s, cycles):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    bins = {}
    t0 = time.perf_counter()
    while (now := time.perf_counter() - t0) < seconds:
        torch.cuda._sleep(cycles)
        start.record()
        replay()
        stop.record()
        stop.synchronize()
        bins.setdefault(int(now / bin_s), []).append(start.elapsed_time(stop))
    return bins


def call_timeline(module, seconds, bin_s):
    bins = {}
    t0 = time.perf_counter()
    while (now := time.perf_counter() - t0) < seconds:
        bins.setdefault(int(now / bin_s), []).extend(ns / 1e6 for ns in module.latencies_ns(50))
    return bins


def show(name, bins, bin_s):
    print(f"== {name}: median GPU ms per {bin_s:g} s of wall-clock time (replays in the bin)")
    for k in sorted(bins):
        print(f"{k * bin_s:6.2f} s  {statistics.median(bins[k]):.4f}  ({len(bins[k])})")


def control_graph():
    x = torch.randn(128, 768, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(768, 768, device="cuda", dtype=torch.bfloat16) / 30
    return gemm_chain_graph(x, w)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("artifact")
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--bin", type=float, default=0.1)
    parser.add_argument("--control", action="store_true")
    parser.add_argument("--phases", default="gpu")
    args = parser.parse_args()
    module = nimble.load(args.artifact)
    inputs = module_inputs(module)
    cycles = sleep_cycles(200)
    for i, kind in enumerate(args.phases.split(",")):
        if kind == "call":
            bins = call_timeline(module, args.seconds, args.bin)
        else:
            bins = timeline(lambda: module(*inputs), args.seconds, args.bin, cycles)
        show(f"phase {i + 1}, {kind}: {args.artifact}", bins, args.bin)
    if args.control:
        graph = control_graph()
        show("control: 50 x (128x768 @ 768x768, GELU), bfloat16", timeline(graph.replay, args.seconds, args.bin, cycles),
             args.bin)


if __name__ == "__main__":
    main()
