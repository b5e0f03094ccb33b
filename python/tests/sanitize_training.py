"""Run under compute-sanitizer (racecheck, memcheck) on a GPU machine: a multi-stream training step
captured by nimble.accelerate_training (three convolution branches with batch norm, SGD with momentum,
then Adam with capturable=True), replayed for a few steps and compared with the same steps trained
eagerly from the same weights. Not a pytest test (it is slow under the sanitizer); exit code 0 when
every loss and parameter matched. Usage:
    compute-sanitizer --tool racecheck python3 python/tests/sanitize_training.py"""

import copy
import sys

import torch
import torch.nn.functional as F

import nimble
from nimble import _training


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8),
                                        torch.nn.ReLU(inplace=True))
        self.branches = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Conv2d(8, 8, k, padding=k // 2), torch.nn.BatchNorm2d(8),
                                torch.nn.ReLU(inplace=True)) for k in (1, 3, 5))
        self.head = torch.nn.Linear(24, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        return self.head(torch.cat([b(x) for b in self.branches], dim=1).mean(dim=(2, 3)))


def check(name: str, factory) -> bool:
    torch.manual_seed(0)
    model = Net().cuda()
    twin = copy.deepcopy(model)
    optimizer, twin_optimizer = factory(model.parameters()), factory(twin.parameters())
    batches = [(torch.randn(4, 3, 8, 8, device="cuda"), torch.randint(0, 10, (4,), device="cuda"))
               for _ in range(3)]
    step = nimble.accelerate_training(model, F.cross_entropy, optimizer, batches[0], mode="multi", iters=2,
                                      warmup=2, check_steps=2, cudnn_benchmark=False)
    if step.mode != "aot-multi" or step.report.streams < 3:
        print(f"{name}: expected a multi-stream capture on >= 3 streams, got {step.report}")
        return False
    got = [step(*batches[k % len(batches)]) for k in range(4)]
    expected = []
    for k in range(4):
        x, y = batches[k % len(batches)]
        twin_optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(twin(x), y)
        loss.backward()
        twin_optimizer.step()
        expected.append(loss.detach())
    torch.cuda.synchronize()
    loss_diff = max(_training.relative_difference(a, b) for a, b in zip(got, expected))
    param_diff = _training.parameter_distance(list(model.parameters()), list(twin.parameters()))
    ok = loss_diff < 1e-4 and param_diff < 1e-4
    print(f"{name}: {step.report.streams} streams, {step.report.syncs} syncs; after 4 steps loss {loss_diff:.1e}, "
          f"parameters {param_diff:.1e}: {'match' if ok else 'differ'}")
    return ok


def main() -> int:
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.deterministic = True
    ok = check("sgd-momentum", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9))
    ok &= check("adam", lambda p: torch.optim.Adam(p, lr=1e-3, capturable=True))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
