"""What do batch norm's counters in one kernel save nimble.accelerate_training, side by side in one
process? The paper's CNNs (torchvision, random weights, 10 classes), batch 32 on 32x32, SGD (lr 0.002,
momentum 0.9), float32, TF32 off. For each model two steps are captured from the same weights: one as the
package makes it, one with the counters left to each module (BatchNormCounters taking no module), both
single-stream (mode="single", so that only the counters differ). Then rounds alternate between them:
wall clock per step over `steps` calls of step(x, y) after a device sync, the median of the rounds.
    python3 bench/diag/bn_counters.py resnet50 mobilenet_v2 efficientnet_b0
"""
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import torchvision

import nimble
from nimble import _train_state

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


class NoCounters(_train_state.BatchNormCounters):
    """Takes no module: every batch norm counts its own, as before the change."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__(torch.nn.Sequential())


def make_step(name: str, hoisted: bool):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(num_classes=10).cuda().train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.002, momentum=0.9)
    x = torch.randn(32, 3, 32, 32, device="cuda")
    y = torch.randint(0, 10, (32,), device="cuda")
    original = _train_state.BatchNormCounters
    _train_state.BatchNormCounters = original if hoisted else NoCounters
    try:
        step = nimble.accelerate_training(model, F.cross_entropy, optimizer, (x, y), mode="single", iters=20,
                                          check_steps=0)
    finally:
        _train_state.BatchNormCounters = original
    return step, x, y, step.report.batch_norm_counters


def ms_per_step(step, x, y, steps: int) -> float:
    for _ in range(3):
        step(x, y)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        step(x, y)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e3 / steps


def main() -> None:
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| model | counters in one kernel | one per module | difference | counters hoisted |")
    print("| --- | --- | --- | --- | --- |")
    for name in sys.argv[1:] or ["resnet50", "mobilenet_v2", "efficientnet_b0"]:
        with_step, x, y, count = make_step(name, True)
        without_step, _, _, none = make_step(name, False)
        assert none == 0
        rounds = {"with": [], "without": []}
        for r in range(5):
            order = [("with", with_step), ("without", without_step)]
            for label, step in (order if r % 2 == 0 else order[::-1]):
                rounds[label].append(ms_per_step(step, x, y, 100))
        a, b = statistics.median(rounds["with"]), statistics.median(rounds["without"])
        print(f"| {name} | {a:.3f} ms | {b:.3f} ms | {100 * (a - b) / b:+.1f} % | {count} |", flush=True)


if __name__ == "__main__":
    main()
