"""Does a captured graph's replay time depend on what the process ran before it? Two model.nimble files
of one model (single- and multi-stream, from nimble-accelerate --mode single / --mode multi) are loaded
in a fresh process and timed in phases: the single-stream graph alone, several times with pauses (a pace
that drifts with time shows here), then the multi-stream graph, then the single-stream one again (a
process that runs slower once a multi-stream graph has replayed shows here). Each phase: the median of
`calls` calls, GPU only (queued behind a sleeping kernel, so the host's launch is not in it) and per call
(CUDA events around the call on an idle GPU, as nimble-run times it).

    python3 bench/diag/graph_pace_state.py single.nimble multi.nimble
"""
import argparse
import statistics
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from graph_timing import module_inputs, sleep_cycles  # noqa: E402

import nimble


def phase(module, inputs, calls, cycles):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    gpu, call = [], []
    for _ in range(10):
        module(*inputs)
    torch.cuda.synchronize()
    for _ in range(calls):
        torch.cuda._sleep(cycles)
        start.record()
        module(*inputs)
        stop.record()
        stop.synchronize()
        gpu.append(start.elapsed_time(stop))
    call = module.latencies_ns(calls)
    return statistics.median(gpu), statistics.median(call) / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("single")
    parser.add_argument("multi")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--pause", type=float, default=1.0, help="seconds between the first phases")
    args = parser.parse_args()
    single = nimble.load(args.single)
    inputs = module_inputs(single)
    cycles = sleep_cycles(1000)
    t0 = time.perf_counter()

    def show(name, module):
        gpu, call = phase(module, inputs, args.calls, cycles)
        print(f"{time.perf_counter() - t0:6.1f} s  {name:28} gpu {gpu:.4f} ms  call {call:.4f} ms", flush=True)

    for i in range(4):
        show(f"single, alone ({i + 1})", single)
        time.sleep(args.pause)
    multi = nimble.load(args.multi)
    show("single, multi loaded", single)
    for i in range(2):
        show(f"multi ({i + 1})", multi)
        show(f"single after multi ({i + 1})", single)


if __name__ == "__main__":
    main()
