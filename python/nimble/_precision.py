"""The process's float32 settings, kept as the caller had them across Nimble's C++ work (which sets
the precision a model was checked with while it captures). Saved and restored through PyTorch's
fp32_precision settings, which reading never refuses (the legacy allow_tf32 flags raise once the new
settings have been used)."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional, Tuple

import torch


def _settings() -> List[Any]:
    # Parents before children: setting a parent does not change a child's own value.
    return [torch.backends, torch.backends.cuda.matmul, torch.backends.cudnn, torch.backends.cudnn.conv,
            torch.backends.cudnn.rnn]


def _matmul_precision() -> Optional[str]:
    try:
        return torch.get_float32_matmul_precision()
    except RuntimeError:
        return None


def _legacy() -> Optional[Tuple[bool, bool]]:
    """The legacy flags (cuDNN, cuBLAS), or None where reading them raises (the new API in use)."""
    try:
        return bool(torch.backends.cudnn.allow_tf32), bool(torch.backends.cuda.matmul.allow_tf32)
    except RuntimeError:
        return None


@contextlib.contextmanager
def preserved() -> Iterator[None]:
    matmul = _matmul_precision()
    legacy = _legacy()
    saved: List[Tuple[Any, str]] = [(s, s.fp32_precision) for s in _settings()]
    try:
        yield
    finally:
        if matmul is not None:
            torch.set_float32_matmul_precision(matmul)
        for setting, value in saved:
            setting.fp32_precision = value
        # A caller on the legacy flags must be able to read them afterwards as before.
        if legacy is not None and _legacy() != legacy:
            torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = legacy


def default_tf32() -> bool:
    """Whether PyTorch itself would use TF32 for float32 convolutions in this process."""
    try:
        return bool(torch.backends.cudnn.allow_tf32)
    except RuntimeError:  # the new fp32_precision settings are in use: read those
        pass
    for setting in (torch.backends.cudnn.conv, torch.backends.cudnn, torch.backends):
        value = setting.fp32_precision
        if value != "none":
            return value == "tf32"
    return True
