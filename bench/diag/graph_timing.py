"""Replay times of several captured CUDA graphs, untraced, taken in alternating rounds so that clocks and
caches treat every graph alike: each round replays each graph 20 times unmeasured, then `replays` times
between two CUDA events. Shared by the diagnostics that compare captures of one model.
"""
import torch


def time_alternating(graphs, replays, rounds):
    """{key: [ms per replay, one per round]} for a {key: torch.cuda.CUDAGraph} in its order."""
    times = {key: [] for key in graphs}
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(rounds):
        for key, graph in graphs.items():
            for _ in range(20):
                graph.replay()
            start.record()
            for _ in range(replays):
                graph.replay()
            stop.record()
            stop.synchronize()
            times[key].append(start.elapsed_time(stop) / replays)
    return times
