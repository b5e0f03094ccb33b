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


def sleep_cycles(us):
    """The argument of torch.cuda._sleep that keeps the GPU busy for about `us` microseconds."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(10_000_000)
    stop.record()
    stop.synchronize()
    return int(10_000_000 / start.elapsed_time(stop) * us / 1e3)


def module_inputs(module):
    """Inputs for a nimble module of the captured specs: zeros for int64 (valid token ids), normal
    values of the spec's dtype otherwise."""
    tensors = []
    for shape, spec in zip(module.input_shapes, module.input_specs):
        parts = spec.split(":")
        dtype = getattr(torch, parts[1]) if len(parts) > 1 else torch.float32
        if dtype == torch.int64:
            tensors.append(torch.zeros(shape, device="cuda", dtype=dtype))
        else:
            tensors.append(torch.randn(shape, device="cuda", dtype=dtype))
    return tuple(tensors)


def gemm_chain_graph(x, w, links=50):
    """A CUDA graph of `links` products with `w`, each followed by a GELU, starting from `x`: plain PyTorch
    work of about as many kernels as a small transformer's graph (warmed up on a side stream first)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            y = x
            for _ in range(links):
                y = torch.nn.functional.gelu(y @ w)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = x
        for _ in range(links):
            y = torch.nn.functional.gelu(y @ w)
    return graph
