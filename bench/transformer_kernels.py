"""Which kernels a transformer's forward runs under each way of running it, side by side.

Traces GPT-2 (random weights, `inputs_embeds`, fp32) to TorchScript, lets nimble-prof freeze it as
Nimble does (`--save-module`), and records with torch.profiler, in one process:
  eager          the traced module, PyTorch's profiling executor (its fusers on)
  eager-nofuse   the same with the TorchScript fusers off
  frozen         the module as Nimble's front end leaves it, run by PyTorch
  graph          PyTorch's CUDA graph of the traced module
  frozen-graph   PyTorch's CUDA graph of the frozen module
For each: GPU time per iteration, kernels per iteration and the heaviest kernels by total time.

  python3 bench/transformer_kernels.py --build build-gpu --out DIR [--layers 6] [--seq 128]
"""
import argparse
import collections
import pathlib
import sqlite3
import subprocess
import sys

import torch

from zoo_bench import graphed, median_ms  # the timing and capture the zoo table uses


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, type=pathlib.Path)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--iters", type=int, default=5)
    return parser.parse_args(argv)


def profile(fn, iters):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
    kernels = collections.defaultdict(lambda: [0, 0.0])
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        entry = kernels[event.name]
        entry[0] += 1
        entry[1] += event.device_time
    return {name: (count / iters, total / iters) for name, (count, total) in kernels.items()}


def show(name, kernels, latency):
    total = sum(t for _, t in kernels.values())
    count = sum(c for c, _ in kernels.values())
    print(f"\n## {name}: {latency:.3f} ms median latency, {total:.1f} us GPU per iteration, {count:g} kernels")
    for kname, (c, t) in sorted(kernels.items(), key=lambda kv: -kv[1][1])[:14]:
        print(f"  {t:8.1f} us  {c:5g} x {t / max(c, 1):7.2f} us  {kname[:120]}")


def nimble_kernels(db):
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT s.value, COUNT(*), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "JOIN StringIds s ON s.id = k.shortName GROUP BY s.value").fetchall()
    return rows


class Embeds(torch.nn.Module):
    """GPT-2 from input embeddings, returning its last hidden state."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, embeds):
        return self.model(inputs_embeds=embeds)[0]


def main(argv):
    args = parse_args(argv)
    from transformers import GPT2Config, GPT2Model

    args.out.mkdir(parents=True, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print("cuBLAS TF32:", torch.backends.cuda.matmul.allow_tf32, " matmul precision:", torch.get_float32_matmul_precision())
    torch.manual_seed(0)
    model = GPT2Model(GPT2Config(n_layer=args.layers, torchscript=True)).eval().cuda()
    example = torch.randn(1, args.seq, 768, device="cuda")
    path = args.out / "gpt2.pt"
    wrapped = Embeds(model).eval()
    with torch.no_grad():
        traced = torch.jit.trace(wrapped, example, check_trace=False)
    traced.save(str(path))
    frozen_path = args.out / "gpt2_frozen.pt"
    db = args.out / "gpt2.db"
    shape = f"1x{args.seq}x768"
    subprocess.run([str(args.build / "cli/nimble-prof"), str(path), "--input", shape, "-o", str(db), "--no-tf32",
                    "--save-module", str(frozen_path), "-q"], check=True)
    subprocess.run([str(args.build / "cli/nimble-accelerate"), str(path), "--input", shape, "--iters", "200",
                    "-o", str(args.out / "gpt2.nimble")], check=True)
    frozen = torch.jit.load(str(frozen_path), map_location="cuda")
    print(frozen.graph if args.layers <= 1 else "")

    with torch.inference_mode():
        runs = {}
        eager = lambda: traced(example)  # noqa: E731
        runs["eager"] = (profile(eager, args.iters), median_ms(eager, 200))
        with torch.jit.fuser("none"):
            nofuse = torch.jit.load(str(path), map_location="cuda")
            fn = lambda: nofuse(example)  # noqa: E731
            runs["eager-nofuse"] = (profile(fn, args.iters), median_ms(fn, 200))
        fn = lambda: frozen(example)  # noqa: E731
        runs["frozen"] = (profile(fn, args.iters), median_ms(fn, 200))
        replay = graphed(traced, (example,))
        runs["graph"] = (profile(replay, args.iters), median_ms(replay, 200))
        replay = graphed(frozen, (example,))
        runs["frozen-graph"] = (profile(replay, args.iters), median_ms(replay, 200))
        for name, (kernels, latency) in runs.items():
            show(name, kernels, latency)
    print("\n## nimble-prof's recording (all iterations)")
    for name, count, total in sorted(nimble_kernels(db), key=lambda r: -r[2])[:14]:
        print(f"  {total / 1e3:10.1f} us  {count:5d} x {total / count / 1e3:7.2f} us  {name[:120]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
