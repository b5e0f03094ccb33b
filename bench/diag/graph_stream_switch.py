"""Does a CUDA graph replay slower once it has been launched on another stream? A plain PyTorch graph
(a chain of small bfloat16 matrix products and GELUs, about as many kernels as GPT-2's 6 layers) is
replayed on the default stream, then on a second stream, then on the default stream again; a second
graph of the same work, replayed on the default stream only, is timed after each phase as a control.
Each timing: the median GPU time of replays queued behind a short sleeping kernel, between two CUDA
events on the stream the graph runs on. With a model.nimble, the same is done with its module (called
under torch.cuda.stream for the second stream).

    python3 bench/diag/graph_stream_switch.py [model.nimble]
"""
import statistics
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from graph_timing import gemm_chain_graph, module_inputs, sleep_cycles  # noqa: E402


def gpu_ms(replay, stream, cycles, seconds=0.5):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    t0 = time.perf_counter()
    with torch.cuda.stream(stream):
        while time.perf_counter() - t0 < seconds:
            torch.cuda._sleep(cycles)
            start.record(stream)
            replay()
            stop.record(stream)
            stop.synchronize()
            times.append(start.elapsed_time(stop))
    return statistics.median(times)


def run(name, replay, control, cycles):
    default, other = torch.cuda.current_stream(), torch.cuda.Stream()
    print(f"== {name}")
    for phase, stream in (("default stream", default), ("second stream", other), ("default stream again", default),
                          ("second stream again", other), ("default stream, third time", default)):
        ms = gpu_ms(replay, stream, cycles)
        print(f"  {phase:28} {ms:.4f} ms   control (default stream only) {gpu_ms(control.replay, default, cycles):.4f} ms",
              flush=True)


def main():
    torch.manual_seed(0)
    x = torch.randn(128, 768, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(768, 768, device="cuda", dtype=torch.bfloat16) / 30
    cycles = sleep_cycles(200)
    graph, control = gemm_chain_graph(x, w), gemm_chain_graph(x, w)
    run("PyTorch CUDA graph, 50 x (128x768 @ 768x768, GELU), bfloat16", graph.replay, control, cycles)
    if len(sys.argv) > 1:
        import nimble
        module = nimble.load(sys.argv[1])
        inputs = module_inputs(module)
        run(sys.argv[1], lambda: module(*inputs), control, cycles)


if __name__ == "__main__":
    main()
