"""How far is a zoo model in half precision from itself in float32, with and without batch norm folded
into its convolutions? For each image model of bench/zoo_bench.py (the weights and batch-norm
statistics zoo_bench.py gives it), the normwise relative error (largest absolute difference over the
largest reference magnitude, as nimble-accelerate's output check computes it) between:
  the model in float32 (TF32 off) and the same model cast to the half dtype, as the file holds it;
  the model in float32 and the model with batch norm folded in float32, then cast (what the front end's
  folding gives, up to where it rounds);
  the two half-precision models (what nimble-accelerate's check against the unmodified model reports).
    python3 bench/diag/half_precision_error.py [--device cuda] [--dtype float16] [MODEL ...]
"""
import argparse
import os
import pathlib
import sys

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
parser.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
parser.add_argument("--inputs", type=int, default=3)
parser.add_argument("models", nargs="*", default=["inception_v3", "resnet50", "mobilenet_v2", "efficientnet_b0"])
args = parser.parse_args()
os.environ["NIMBLE_ZOO_DEVICE"] = args.device
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import zoo_bench  # noqa: E402
from torch.fx.experimental.optimization import fuse  # noqa: E402


def error(actual, reference):
    return ((actual.float() - reference.float()).abs().max() / reference.float().abs().max()).item()


def main():
    zoo_bench.ieee()
    half = zoo_bench.DTYPES[args.dtype]
    print(f"device {args.device} ({torch.cuda.get_device_name() if args.device == 'cuda' else 'cpu'}), "
          f"torch {torch.__version__}, {args.dtype}, largest error over {args.inputs} random inputs")
    print()
    print(f"| model | {args.dtype} vs float32 | folded {args.dtype} vs float32 | folded vs unfolded {args.dtype} |")
    print("| --- | --- | --- | --- |")
    for name in args.models:
        model, inputs, _ = zoo_bench.instantiate(name, "float32")
        folded = fuse(model).to(half)
        unfolded = model.to(half)  # after fuse, which copied what it changed
        reference32 = zoo_bench.instantiate(name, "float32")[0]
        worst = [0.0, 0.0, 0.0]
        g = torch.Generator(device=args.device).manual_seed(1)
        with torch.no_grad():
            for _ in range(args.inputs):
                x = torch.randn(inputs[0].shape, device=args.device, generator=g)
                r = reference32(x)
                u = unfolded(x.to(half))
                f = folded(x.to(half))
                for i, e in enumerate((error(u, r), error(f, r), error(f, u))):
                    worst[i] = max(worst[i], e)
        print(f"| {name} | " + " | ".join(f"{e:.1e}" for e in worst) + " |")


main()
