"""The process's float32 settings, kept as the caller had them across Nimble's C++ work (which sets
the precision a model was checked with while it captures)."""

from __future__ import annotations

import contextlib
from typing import Iterator

import torch


@contextlib.contextmanager
def preserved() -> Iterator[None]:
    cudnn = torch.backends.cudnn.allow_tf32
    matmul = torch.backends.cuda.matmul.allow_tf32
    try:
        yield
    finally:
        torch.backends.cudnn.allow_tf32 = cudnn
        torch.backends.cuda.matmul.allow_tf32 = matmul


def default_tf32() -> bool:
    """What PyTorch itself would use for float32 convolutions in this process."""
    return bool(torch.backends.cudnn.allow_tf32)
