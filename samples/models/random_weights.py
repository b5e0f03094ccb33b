"""Random weights that leave a model's output depending on its input.

At their initial running statistics (mean 0, variance 1), batch norm layers in eval mode scale each
activation by about 1 while the random convolutions before them shrink or grow it: torchvision's
MobileNetV2 and EfficientNet-B0 then output about 1e-9 and 1e-14, zeros in float16, and Inception-v3 its
classifier's bias whatever the input (bench/diag/output_dependence.py), so comparing two runs of such a
model checks little or nothing. Setting the statistics from a
few random batches, as training would, gives each batch norm's output about unit variance on inputs like
those batches, and the model's output depends on its input again.
"""
from __future__ import annotations

from typing import Sequence

import torch


def set_batch_norm_statistics(model: torch.nn.Module, input_shapes: Sequence[Sequence[int]], device="cpu",
                              batches: int = 2, batch_size: int = 4) -> None:
    """Batch norm's running mean and variance averaged over `batches` batches of standard normal float32
    inputs of `input_shapes` (one per model input, all floating point; the first dimension replaced by
    `batch_size`), run in training mode without gradients. Nothing else in the model changes, and it is
    left in eval mode, with or without batch norm."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    momenta = [m.momentum for m in norms]
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average over the batches
    if norms:
        model.train()
        with torch.no_grad():
            for _ in range(batches):
                model(*(torch.randn((batch_size,) + tuple(shape[1:]), device=device) for shape in input_shapes))
    for m, momentum in zip(norms, momenta):
        m.momentum = momentum
    model.eval()
