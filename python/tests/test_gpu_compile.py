"""The torch.compile backend on a GPU: the captured graph against eager, static outputs on request, the
fallback for autograd, and a second instance of the same module."""

from __future__ import annotations

import warnings

import pytest
import torch

import nimble
from gpu_block import Block, close, ieee_fp32  # noqa: F401 (ieee_fp32: an autouse fixture)

pytestmark = pytest.mark.gpu


def test_compile_backend_matches_eager() -> None:
    torch.manual_seed(2)
    model = Block(16).cuda().eval()
    x = torch.randn(1, 16, 14, 14, device="cuda")
    seen = []
    compiled = torch.compile(model, backend="nimble", options={"iters": 20, "progress": seen.append})
    with torch.no_grad():
        expected = model(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error", nimble.NimbleWarning)  # captured: no fallback warning
            got = compiled(x)
            x2 = torch.randn_like(x)
            got2 = compiled(x2)
            expected2 = model(x2)
    # Outputs are copies by default: the first call's survive the second.
    close(got[0], expected[0])
    close(got[1]["features"], expected[1]["features"])
    close(got2[0], expected2[0])
    assert any(u.kind == "step" for u in seen)  # the graph went through nimble.accelerate


def test_compile_backend_static_outputs_when_asked() -> None:
    model = Block(8).cuda().eval()
    x = torch.randn(1, 8, 8, 8, device="cuda")
    compiled = torch.compile(model, backend="nimble", options={"iters": 10, "progress": False,
                                                               "copy_outputs": False})
    with torch.no_grad():
        first = compiled(x)[0]
        kept = first.clone()
        compiled(torch.randn_like(x))
        close(kept, model(x)[0])
    assert not torch.equal(first, kept)  # the buffer was overwritten by the second call


def test_compile_backend_falls_back_for_autograd() -> None:
    model = Block(8).cuda()
    x = torch.randn(1, 8, 8, 8, device="cuda")
    compiled = torch.compile(model, backend="nimble")
    with pytest.warns(nimble.NimbleWarning, match="autograd"):
        out = compiled(x)
    out[0].sum().backward()
    assert model.head.weight.grad is not None


def test_compile_backend_sees_another_instance() -> None:
    torch.manual_seed(4)
    first, second = Block(8).cuda().eval(), Block(8).cuda().eval()
    x = torch.randn(1, 8, 8, 8, device="cuda")

    def run(model):
        return torch.compile(model, backend="nimble", options={"iters": 10, "progress": False})(x)

    with torch.no_grad():
        close(run(first)[0], first(x)[0])
        with pytest.warns(nimble.NimbleWarning, match="not the ones it captured"):
            got = run(second)
        close(got[0], second(x)[0])
