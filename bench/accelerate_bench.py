#!/usr/bin/env python3
"""One PyTorch-side latency for accelerate_bench.sh, in its own process (no state shared between
modes): PyTorch eager, TorchScript interpreted, TorchScript under torch.cuda.graph, or
torch.compile(mode="reduce-overhead"). Batch 1, fp32, TF32 off (as nimble-accelerate; --tf32: TF32
convolutions, PyTorch's default, as nimble-accelerate --tf32), median of
--iters CUDA-event timings after warm-up. Prints one JSON line: {"model", "mode", "median_ms"}."""
import argparse
import importlib.util
import json
import pathlib
import statistics

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent


def export_models_module():
    spec = importlib.util.spec_from_file_location("export_models", ROOT / "samples/models/export_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_callable(args, example):
    if args.mode in ("eager", "compile"):
        _, build, _ = export_models_module().MODELS[args.model]
        model = build().eval().cuda()
        if args.mode == "compile":
            model = torch.compile(model, mode="reduce-overhead")
        return model
    scripted = torch.jit.load(args.file, map_location="cuda").eval()
    if args.mode == "script":
        return scripted
    # TorchScript module captured with PyTorch's own CUDA graph API on a side stream, as documented.
    static_input = example.clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            scripted(static_input)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_output = scripted(static_input)

    def replay(x):
        static_input.copy_(x)
        graph.replay()
        return static_output

    return replay


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--file", help="the exported TorchScript file (script and cudagraph modes)")
    parser.add_argument("--mode", required=True, choices=["eager", "script", "cudagraph", "compile"])
    parser.add_argument("--shape", required=True, help="1x3x224x224")
    parser.add_argument("--iters", type=int, default=200)
    parser.add_argument("--tf32", action="store_true", help="TF32 convolutions (PyTorch's default)")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = args.tf32
    example = torch.randn([int(d) for d in args.shape.split("x")], device="cuda")
    with torch.inference_mode() if args.mode != "compile" else torch.no_grad():
        run = make_callable(args, example)
        for _ in range(20):
            run(example)
        torch.cuda.synchronize()
        times = []
        for _ in range(args.iters):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run(example)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
    print(json.dumps({"model": args.model, "mode": args.mode, "median_ms": statistics.median(times)}))


if __name__ == "__main__":
    main()
