"""How much a CUDA graph's replay time depends on where its activations lie. GPT-2 (6 layers, 128 ids,
bfloat16) single-stream replays measured 0.318-0.325 ms in some nimble-accelerate calls and 0.355 ms in
others with the same kernels and order (bench/results/concurrency.md). This captures the exported
program's module with torch.cuda.graph (PyTorch's own kernels, no Nimble), the capture starting with a
padding tensor of N KiB allocated in the graph's pool and kept, which moves every activation allocated
after it; then times the replays of all captures alternately, untraced.
    python3 bench/zoo_bench.py export gpt2 bfloat16 DIR
    python3 bench/diag/layout_sensitivity.py DIR/gpt2-bfloat16.pt2 [--pads 0,64,...] [--replays 300] [--rounds 5]
"""
import argparse
import statistics
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from graph_timing import time_alternating  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("program")
    parser.add_argument("--pads", default="0,64,128,192,256,320,384,448,512,640,768,1024,2048,4096",
                        help="KiB of padding before the model's first allocation, one capture each")
    parser.add_argument("--replays", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    module = torch.export.load(args.program).module()
    ids = torch.randint(0, 50257, (1, 128), device="cuda", generator=torch.Generator(device="cuda").manual_seed(0))
    with torch.no_grad():
        for _ in range(3):
            module(ids)
    torch.cuda.synchronize()
    pads = [int(p) for p in args.pads.split(",")]
    captures = []
    for pad in pads:
        stream = torch.cuda.Stream()
        graph = torch.cuda.CUDAGraph()
        with torch.no_grad(), torch.cuda.graph(graph, stream=stream):
            padding = torch.empty(pad * 1024, dtype=torch.uint8, device="cuda") if pad else None
            out = module(ids)
        first = out[0] if isinstance(out, (tuple, list)) else out
        captures.append((pad, graph, padding, out, first.data_ptr()))
    times = time_alternating({pad: graph for pad, graph, *_ in captures}, args.replays, args.rounds)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, {args.program}; ms per replay, "
          f"{args.replays} replays x {args.rounds} rounds alternating (median, min-max)")
    base = statistics.median(times[pads[0]])
    for pad, _, _, _, ptr in captures:
        t = times[pad]
        m = statistics.median(t)
        print(f"  pad {pad:5d} KiB  output at 0x{ptr:x}  {m:.4f}  ({min(t):.4f}-{max(t):.4f})  "
              f"{100 * (m / base - 1):+6.1f} % against no pad")


if __name__ == "__main__":
    main()
