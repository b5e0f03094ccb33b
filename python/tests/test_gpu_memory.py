"""GPU memory from the package: the allocator's history left alone, pools seeded per stream, and the
multi-stream schedule captured as branches of one stream, with and without a memory budget."""

from __future__ import annotations

import subprocess
import warnings

import pytest
import torch

import nimble
from conftest import tool
from gpu_block import Block, close, ieee_fp32  # noqa: F401 (ieee_fp32: an autouse fixture)

pytestmark = pytest.mark.gpu


def test_memory_prediction_leaves_a_running_allocator_history_alone() -> None:
    """The pools are predicted from the allocator's history, turned on for one traced capture and off
    again; a history this process records already is left as it is, and memory is then not predicted."""
    torch.manual_seed(0)
    model = Block(16).cuda().eval()
    x = torch.randn(1, 16, 20, 20, device="cuda")
    torch.cuda.memory._record_memory_history(max_entries=100000)
    try:
        with pytest.warns(nimble.NimbleWarning, match="not all recorded"):
            fast = nimble.accelerate(model, (x,), mode="multi", iters=5, tf32=False, progress=False)
        assert fast.report.multi.predicted_graph_pool_bytes is None
        assert fast.report.multi.unseeded_graph_pool_bytes is None
        torch.empty(1 << 20, device="cuda")
        assert torch.cuda.memory._snapshot()["device_traces"][torch.cuda.current_device()], "still recording"
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)
    fast = nimble.accelerate(model, (x,), mode="multi", iters=5, tf32=False, progress=False)
    assert fast.report.multi.predicted_graph_pool_bytes is not None
    assert not torch.cuda.memory._snapshot()["device_traces"][torch.cuda.current_device()], "history left on"


def test_pools_seeded_per_stream_are_smaller_and_compute_the_same() -> None:
    """Activations above 1 MiB (32 x 96 x 96 floats) start a 20 MiB segment per stream unseeded; the
    seeded captures are kept only when they measure smaller, and compute what the model does."""
    torch.manual_seed(0)
    model = Block(32).cuda().eval()
    x = torch.randn(1, 32, 96, 96, device="cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nimble.NimbleWarning)
        fast = nimble.accelerate(model, (x,), mode="multi", iters=5, tf32=False, progress=False)
        plain = nimble.accelerate(model, (x,), mode="multi", iters=5, tf32=False, progress=False, seed_pool=False)
    multi = fast.report.multi
    assert multi.unseeded_graph_pool_bytes is not None, "the branches' pools were not seeded"
    assert multi.graph_pool_bytes < multi.unseeded_graph_pool_bytes
    assert plain.report.multi.unseeded_graph_pool_bytes is None
    assert multi.graph_pool_bytes < plain.report.multi.graph_pool_bytes
    with torch.no_grad():
        logits, extra = model(x)
    got_logits, got_extra = fast(x)
    close(got_logits, logits)
    close(got_extra["features"], extra["features"])


def test_cross_stream_reuse(tmp_path) -> None:
    """The multi-stream schedule captured as branches of one stream: the same outputs as the model,
    memory reused across branches, and a saved module that nimble-run captures the same way."""
    torch.manual_seed(0)
    model = Block().cuda().eval()
    x = torch.randn(2, 32, 28, 28, device="cuda")
    fast = nimble.accelerate(model, x, mode="multi", iters=20, cross_stream_reuse=True, branch_release_delay=0.002)
    multi = fast.report.multi
    assert multi.branch_capture and multi.streams >= 4
    assert multi.reused_blocks > 0 and multi.hazard_edges >= multi.reused_blocks
    assert multi.max_rel_error < 1e-3
    with torch.no_grad():
        expected = model(x)
    for _ in range(3):
        got = fast(x)
        close(got[0], expected[0])
        close(got[1]["features"], expected[1]["features"])
    saved = tmp_path / "branches.nimble"
    fast.save(saved)
    out = subprocess.run([tool("nimble-run"), str(saved), "--iters", "5"], capture_output=True, text=True, check=True)
    assert "aot-multi" in out.stdout
    assert multi.branch_release_delay == 0.002 and multi.branch_hold_max_bytes == 0


def test_cross_stream_reuse_under_a_memory_budget() -> None:
    """Under a budget each stream count tries real streams first, then branches holding every value,
    fewer, none; the first that fits is the multi-stream mode, and each trial says what it was."""
    torch.manual_seed(0)
    model = Block().cuda().eval()
    x = torch.randn(2, 32, 28, 28, device="cuda")
    # A budget nothing fits: every capture of the plan's stream count is tried, in order, before fewer streams.
    tight = nimble.accelerate(model, x, iters=20, cross_stream_reuse=True, memory_budget_mib=1)
    trials = tight.report.memory_trials
    assert trials and not any(t["fits"] for t in trials)
    start = trials[0]["streams"]
    at_start = [t for t in trials if t["streams"] == start]
    assert not at_start[0]["branch_capture"], "real streams first"
    kinds = [t["branch_capture"] for t in at_start]
    assert kinds == sorted(kinds), "branches only after real streams"
    # The default order ranks values by the wait their hold saves: each rung's key is bytes per us.
    rungs = [(t["branch_release_delay"], t["branch_hold_max_bytes"] or t["branch_hold_max_bytes_per_us"])
             for t in at_start if t["branch_capture"] and not t["pool_seed_bytes"]]
    assert rungs[0][0] > 0 and rungs[0][1] == 0 and rungs[-1] == (0, 0), rungs
    held = [most for _, most in rungs[1:-1]]
    assert all(most > 0 for most in held) and held == sorted(held, reverse=True), rungs
    assert any(t["streams"] < start for t in trials)
    # A budget between the two: the streams are over it, a branch capture of as many streams fits.
    streams_peak = min(t["peak_memory_bytes"] for t in at_start if not t["branch_capture"])
    branch_peak = min(t["peak_memory_bytes"] for t in at_start if t["branch_capture"])
    assert branch_peak < streams_peak, (branch_peak, streams_peak)
    budget_mib = (branch_peak + streams_peak) / 2 / 2**20
    fast = nimble.accelerate(model, x, mode="multi", iters=20, cross_stream_reuse=True, memory_budget_mib=budget_mib)
    multi = fast.report.multi
    assert multi.branch_capture and multi.streams == start
    assert multi.peak_memory_bytes <= fast.report.memory_budget_bytes
    chosen = [t for t in fast.report.memory_trials if t["fits"] and t["branch_capture"]]
    assert chosen and (multi.branch_release_delay, multi.branch_hold_max_bytes, multi.branch_hold_max_bytes_per_us) == (
        chosen[-1]["branch_release_delay"], chosen[-1]["branch_hold_max_bytes"], chosen[-1]["branch_hold_max_bytes_per_us"])
    assert multi.max_rel_error < 1e-3
    with torch.no_grad():
        expected = model(x)
    got = fast(x)
    close(got[0], expected[0])
