"""Does a zoo model's output depend on its input? For each model of bench/zoo_bench.py (float32, on the
CPU, the weights `export` gives it: torch.manual_seed(0)), the largest output magnitude and the largest
difference between the outputs for two random inputs, with batch norm at its initial statistics and
with the statistics zoo_bench.py now sets (samples/models/random_weights.py). A model whose outputs do
not depend on its input leaves an output check nothing to compare.
    python3 bench/diag/output_dependence.py [MODEL ...]
"""
import os
import pathlib
import sys

import torch

os.environ.setdefault("NIMBLE_ZOO_DEVICE", "cpu")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import zoo_bench  # noqa: E402
from random_weights import set_batch_norm_statistics  # noqa: E402  (zoo_bench put samples/models on the path)


def first(output):
    return output[0] if isinstance(output, (tuple, list)) else output


def main(names):
    print("| model | batch norm statistics | largest output | largest difference, two inputs |")
    print("| --- | --- | --- | --- |")
    for name in names:
        for calibrated in (False, True):
            torch.manual_seed(0)
            model, specs = zoo_bench.build(name)
            if calibrated:
                set_batch_norm_statistics(model, [shape for shape, _, _ in specs], "cpu", batches=4, batch_size=8)
            model.eval()
            g = torch.Generator().manual_seed(1)
            x1 = [torch.randn(shape, generator=g) for shape, _, _ in specs]
            x2 = [torch.randn(shape, generator=g) for shape, _, _ in specs]
            with torch.no_grad():
                a, b = first(model(*x1)), first(model(*x2))
            label = "from random batches" if calibrated else "initial (mean 0, variance 1)"
            print(f"| {name} | {label} | {a.abs().max().item():.3g} | {(a - b).abs().max().item():.3g} |")


if __name__ == "__main__":
    main(sys.argv[1:] or ["resnet50", "inception_v3", "mobilenet_v2", "efficientnet_b0", "vit_b_16", "moe"])
