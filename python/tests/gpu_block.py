"""What the package's GPU tests share: a small model of four parallel branches, IEEE float32 for the
duration of each test, and the tolerance its outputs are compared with."""

from __future__ import annotations

import pytest
import torch


class Block(torch.nn.Module):
    """Four independent branches joined by a sum: width 4, so multi-stream has room."""

    def __init__(self, channels: int = 32) -> None:
        super().__init__()
        self.branches = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Conv2d(channels, channels, k, padding=k // 2), torch.nn.ReLU(),
                                torch.nn.Conv2d(channels, channels, 3, padding=1))
            for k in (1, 3, 5, 7))
        self.head = torch.nn.Linear(channels, 10)

    def forward(self, x: torch.Tensor):
        y = sum(b(x) for b in self.branches)
        pooled = y.mean(dim=(2, 3))
        return self.head(pooled), {"features": y}


@pytest.fixture(autouse=True)
def ieee_fp32():
    """TF32 off for the test (import it into a test module, where it applies to every test)."""
    cudnn, matmul = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch._dynamo.reset()
    yield
    torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = cudnn, matmul


def close(a: torch.Tensor, b: torch.Tensor) -> None:
    # IEEE fp32 on both sides, but cuDNN may pick other algorithms (e.g. Winograd) for the captured
    # convolutions than for eager ones: differences of a few 1e-4 on values of order 1.
    torch.testing.assert_close(a, b, rtol=1e-3, atol=2e-3)
