#!/usr/bin/env python3
"""Records the torch.profiler traces that `nimble-prof import` is checked against, on the GPU machine.

Two kinds of trace, each a gzip-compressed Chrome-trace JSON written by torch.profiler itself
(`export_chrome_trace`), with one `ProfilerStep#N` annotation per iteration (a profiler schedule, `prof.step()`
after each forward and its `torch.cuda.synchronize()`: the iteration `nimble-prof model.pt` times):

- `--model PT --input SHAPE`: a TorchScript module (e.g. the one `nimble-prof --save-module` wrote, so
  that both tools run the same graph) for --iters iterations after --warmup unprofiled ones, with CPU
  and CUDA activity (`--out`) and, with `--cuda-only-out`, a second time with CUDA activity only: no CPU
  operator is recorded, so the host that launches the kernels runs as fast as under nimble-prof's
  collector, which records only the CUDA API;
- `--fixtures DIR`: the small test fixtures: a sample CNN (torchvision ResNet-18, batch 1) run eagerly
  and replayed from a CUDA graph, a few steps each, kept small enough to commit.

Never run it in a process where another CUPTI client (nimble-prof) is active.
"""

import argparse
import gzip
import os
import pathlib
import shutil
import sys
import tempfile

import torch


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=pathlib.Path, help="TorchScript module to profile")
    parser.add_argument("--input", help="input shape of --model, e.g. 1x3x299x299")
    parser.add_argument("--iters", type=int, default=20, help="profiled iterations (default 20)")
    parser.add_argument("--warmup", type=int, default=5, help="unprofiled iterations first (default 5)")
    parser.add_argument("--out", type=pathlib.Path, help="trace of --model (.json.gz)")
    parser.add_argument("--cuda-only-out", type=pathlib.Path,
                        help="trace of --model recorded with CUDA activity only (.json.gz)")
    parser.add_argument("--fixtures", type=pathlib.Path, help="folder for the small eager and CUDA-graph traces")
    return parser.parse_args(argv)


def export_gz(prof, path):
    """torch.profiler's own JSON, gzip-compressed into `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as src, gzip.open(path, "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
    print(f"wrote {path} ({path.stat().st_size} bytes)")


def profile_steps(step_fn, iters, warmup, path, cpu=True):
    for _ in range(warmup):
        step_fn()
    torch.cuda.synchronize()
    activities = [torch.profiler.ProfilerActivity.CUDA]
    if cpu:
        activities.insert(0, torch.profiler.ProfilerActivity.CPU)
    # A schedule makes torch.profiler mark each step with a ProfilerStep#N annotation; its one warmup
    # step is not kept.
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=iters, repeat=1)
    with torch.profiler.profile(activities=activities, schedule=schedule) as prof:
        for _ in range(iters + 1):
            step_fn()
            torch.cuda.synchronize()
            prof.step()
    export_gz(prof, path)


def record_model(args):
    shape = [int(d) for d in args.input.split("x")]
    module = torch.jit.load(str(args.model), map_location="cuda").eval()
    x = torch.randn(*shape, device="cuda")
    with torch.inference_mode(), torch.jit.optimized_execution(False):
        profile_steps(lambda: module(x), args.iters, args.warmup, args.out)
        if args.cuda_only_out is not None:
            profile_steps(lambda: module(x), args.iters, args.warmup, args.cuda_only_out, cpu=False)


def record_fixtures(folder):
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).cuda().eval()
    x = torch.randn(1, 3, 224, 224, device="cuda")
    with torch.inference_mode():
        profile_steps(lambda: model(x), 3, 3, folder / "resnet18_eager.json.gz")
    # The same network replayed from one CUDA graph: warm up on a side stream, capture, replay.
    static_x = x.clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.inference_mode():
        with torch.cuda.stream(side):
            for _ in range(3):
                model(static_x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_y = model(static_x)
        profile_steps(graph.replay, 3, 3, folder / "resnet18_cudagraph.json.gz")
    del static_y


def main(argv):
    args = parse_args(argv)
    if not torch.cuda.is_available():
        sys.exit("record_torch_traces.py: no CUDA device")
    if args.model is not None:
        if args.input is None or args.out is None:
            sys.exit("record_torch_traces.py: --model needs --input and --out")
        record_model(args)
    if args.fixtures is not None:
        record_fixtures(args.fixtures)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
