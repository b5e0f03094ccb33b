"""Does a copy kernel of large blocks on a side stream slow the chain it runs beside? GPT-2 (6 layers, 128
tokens) loses 10-12 % in Nimble's multi-stream replay against its single-stream one when timed untraced,
and nothing when traced (bench/results/concurrency.md); its side streams run only the `torch.stack` of
each layer's keys and values (CatArrayBatchedCopy, 512-thread blocks), beside the main chain's attention
and GEMMs. This builds that pattern from PyTorch's own kernels, GPT-2's shapes and random weights, captures
it in CUDA graphs several ways and times their replays untraced:
  single          every op on one stream, the stack where the model runs it
  side            the stack on a side stream forked after the q/k/v projection, joined at the end
  side-late       the same, the fork after the layer's attention (the stack runs beside the projection)
  side-copy       the side stream copies the same bytes with two `copy_` (elementwise, 128-thread blocks)
  single-copy     the two copies on the main stream
and the pattern Nimble's 2-stream capture of GPT-2 has (bench/results/concurrency.md): after the q/k/v
projection, two stacks side by side, one per stream, joined by a one-block kernel reading both:
  pair-single     the two stacks and the join on one stream
  pair-side       the second stack on the side stream
  pair-copy       the same bytes copied by two `copy_` per stream (128-thread blocks), one stream
  pair-side-copy  those copies split across the streams
    python3 bench/diag/side_stream_packing.py [--dtype bfloat16] [--layers 6] [--replays 300] [--rounds 5]
"""
import argparse
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from graph_timing import time_alternating  # noqa: E402


def layer_weights(hidden, dtype, device, gen):
    def w(*shape):
        return (torch.randn(*shape, generator=gen, device=device) * 0.02).to(dtype)
    return {"ln1": (torch.ones(hidden, device=device, dtype=dtype), torch.zeros(hidden, device=device, dtype=dtype)),
            "qkv": (w(3 * hidden), w(hidden, 3 * hidden)), "proj": (w(hidden), w(hidden, hidden)),
            "ln2": (torch.ones(hidden, device=device, dtype=dtype), torch.zeros(hidden, device=device, dtype=dtype)),
            "fc": (w(4 * hidden), w(hidden, 4 * hidden)), "out": (w(hidden), w(4 * hidden, hidden))}


def forward(x, layers, heads, variant, side, outputs):
    """One pass; `outputs` collects the stacked keys and values (the graph's extra outputs)."""
    main = torch.cuda.current_stream()
    tokens, hidden = x.shape
    for p in layers:
        h = F.layer_norm(x, (hidden,), *p["ln1"])
        qkv = torch.addmm(p["qkv"][0], h, p["qkv"][1])
        q, k, v = (t.view(1, tokens, heads, hidden // heads).transpose(1, 2) for t in qkv.split(hidden, dim=1))
        outputs.extend([k, v])  # alive until the graph ends, whichever stream reads them last

        def kv_work():
            if variant.endswith("copy"):
                a = torch.empty_like(k)
                b = torch.empty_like(v)
                a.copy_(k)
                b.copy_(v)
                outputs.extend([a, b])
            else:
                outputs.append(torch.stack((k, v)))

        if variant.startswith("pair"):
            def pair_work(first, second):
                if variant.endswith("copy"):
                    out = torch.empty((2,) + tuple(first.shape), dtype=first.dtype, device=first.device)
                    out[0].copy_(first)
                    out[1].copy_(second)
                    return out
                return torch.stack((first, second))
            a = pair_work(k, v)
            if variant.startswith("pair-side"):
                side.wait_stream(main)
                with torch.cuda.stream(side):
                    b = pair_work(v, k)
                main.wait_stream(side)
            else:
                b = pair_work(v, k)
            outputs.extend([a, b, a.view(-1)[:1] + b.view(-1)[:1]])  # the join: one small kernel reading both
        if variant in ("side", "side-copy"):
            side.wait_stream(main)
            with torch.cuda.stream(side):
                kv_work()
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        if variant == "side-late":
            side.wait_stream(main)
            with torch.cuda.stream(side):
                kv_work()
        if variant in ("single", "single-copy"):
            kv_work()
        attn = attn.transpose(1, 2).reshape(tokens, hidden)
        x = x + torch.addmm(p["proj"][0], attn, p["proj"][1])
        h = F.layer_norm(x, (hidden,), *p["ln2"])
        h = F.gelu(torch.addmm(p["fc"][0], h, p["fc"][1]), approximate="tanh")
        x = x + torch.addmm(p["out"][0], h, p["out"][1])
    if variant.startswith("side"):
        main.wait_stream(side)
    return x


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--replays", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    device = torch.device("cuda")
    hidden, heads = 768, 12
    gen = torch.Generator(device=device).manual_seed(0)
    layers = [layer_weights(hidden, dtype, device, gen) for _ in range(args.layers)]
    x = torch.randn(args.tokens, hidden, generator=gen, device=device).to(dtype)
    side = torch.cuda.Stream()
    variants = ["single", "side", "side-late", "single-copy", "side-copy",
                "pair-single", "pair-side", "pair-copy", "pair-side-copy"]
    graphs = {}
    for variant in variants:
        capture_stream = torch.cuda.Stream()
        with torch.cuda.stream(capture_stream):
            for _ in range(3):  # warm-up: cuBLAS workspaces, attention back end
                forward(x, layers, heads, variant, side, [])
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        kept = []
        with torch.cuda.graph(graph, stream=capture_stream):
            out = forward(x, layers, heads, variant, side, kept)
        graphs[variant] = (graph, out, kept)
    for variant in variants:  # the same values every way
        graphs[variant][0].replay()
    torch.cuda.synchronize()
    reference = graphs["single"][1].float()
    for variant in variants[1:]:  # the pairs add outputs only; the chain's values are the same
        diff = (graphs[variant][1].float() - reference).abs().max().item()
        print(f"{variant}: output differs from single by at most {diff:g}")
    times = time_alternating({v: graphs[v][0] for v in variants}, args.replays, args.rounds)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, {args.dtype}, {args.layers} layers, "
          f"{args.tokens} tokens; ms per replay, {args.replays} replays x {args.rounds} rounds (median, min-max)")
    for variant in variants:
        against = "pair-copy" if variant.endswith("copy") and variant.startswith("pair") else \
            "pair-single" if variant.startswith("pair") else "single"
        base = statistics.median(times[against])
        t = times[variant]
        m = statistics.median(t)
        print(f"  {variant:14s} {m:.4f}  ({min(t):.4f}-{max(t):.4f})  {100 * (m / base - 1):+6.1f} % against {against}")


if __name__ == "__main__":
    main()
