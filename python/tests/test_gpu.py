"""The package on a GPU: models accelerated and compared with the unmodified model, saved and loaded
in a new process (and by nimble-run), the input checks, the output and stream semantics and profiling
(the torch.compile backend: test_gpu_compile.py; GPU memory: test_gpu_memory.py)."""

from __future__ import annotations

import json
import os
import pathlib
import sqlite3
import subprocess
import sys
import warnings

import pytest
import torch

import nimble
from conftest import ROOT, tool
from gpu_block import Block, close, ieee_fp32  # noqa: F401 (ieee_fp32: an autouse fixture)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def block_module() -> tuple:
    torch.manual_seed(0)
    model = Block().cuda().eval()
    x = torch.randn(2, 32, 28, 28, device="cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nimble.NimbleWarning)
        fast = nimble.accelerate(model, (x,), mode="multi", iters=50, tf32=False, progress=False)
    return model, x, fast


def test_outputs_match_the_model(block_module) -> None:
    model, x, fast = block_module
    with torch.no_grad():
        logits, extra = model(x)
    got_logits, got_extra = fast(x)
    close(got_logits, logits)
    close(got_extra["features"], extra["features"])
    x2 = torch.randn_like(x)
    with torch.no_grad():
        close(fast(x2)[0], model(x2)[0])


def test_inputs_of_any_layout_reach_the_graph(block_module) -> None:
    # A dense input of the buffer's strides is copied in with one cudaMemcpyAsync; a channels_last or
    # a strided one through torch's copy. Each replay must see the new values.
    model, x, fast = block_module
    dense = torch.randn_like(x)
    channels_last = torch.randn_like(x).contiguous(memory_format=torch.channels_last)
    strided = torch.randn(x.shape[0], x.shape[1], x.shape[2], x.shape[3] * 2, device="cuda")[..., ::2]
    offset = torch.randn(x.shape[0] + 1, *x.shape[1:], device="cuda")[1:]  # dense, at a storage offset
    assert not strided.is_contiguous() and not channels_last.is_contiguous() and offset.storage_offset() > 0
    for inp in (dense, channels_last, strided, offset, dense * 2):
        with torch.no_grad():
            expected = model(inp)[0]
        close(fast(inp)[0].clone(), expected)


def test_captured_graphs_are_written_as_dot(tmp_path: pathlib.Path) -> None:
    torch.manual_seed(2)
    model = Block(channels=8).cuda().eval()
    x = torch.randn(1, 8, 16, 16, device="cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nimble.NimbleWarning)
        nimble.accelerate(model, (x,), mode="single", iters=5, record_replays=0, seed_pool=False,
                          dump_graphs=tmp_path / "graphs", progress=False)
    dots = sorted(p.name for p in (tmp_path / "graphs").iterdir())
    assert "aot-single-1-streams.dot" in dots and all(d.startswith("aot-") and d.endswith(".dot") for d in dots), dots
    text = (tmp_path / "graphs" / "aot-single-1-streams.dot").read_text()
    assert text.startswith("digraph") and "KERNEL" in text


def test_batch_sizes_make_one_module_of_several_graphs(tmp_path: pathlib.Path) -> None:
    torch.manual_seed(1)
    model = Block(channels=8).cuda().eval()
    x = torch.randn(1, 8, 16, 16, device="cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nimble.NimbleWarning)
        fast = nimble.accelerate(model, (x,), batch_sizes=[1, 4], iters=20, tf32=False, progress=False)
    assert fast.buckets == [["1x8x16x16"], ["4x8x16x16"]]
    report = fast.report
    assert [b.inputs for b in report.buckets] == ["1x8x16x16", "4x8x16x16"]
    assert all(b.single.measured_ms > 0 for b in report.buckets)
    assert 0 < report.shared_pool_bytes < report.separate_pool_bytes  # the later buckets reuse freed blocks
    assert "one shared pool" in str(report)
    for batch in (4, 1, 4):
        xb = torch.randn(batch, 8, 16, 16, device="cuda")
        with torch.no_grad():
            close(fast(xb)[0], model(xb)[0])
    with pytest.raises(ValueError, match="no bucket was captured for inputs of shape 2x8x16x16; its buckets: "
                                         "1x8x16x16 \\| 4x8x16x16"):
        fast(torch.randn(2, 8, 16, 16, device="cuda"))
    assert fast.latency_ms(5, bucket=1) > 0
    with pytest.raises(ValueError, match="bucket 2"):
        fast.latency_ms(5, bucket=2)
    saved = tmp_path / "buckets.nimble"
    fast.save(saved)
    out = subprocess.run([tool("nimble-run"), str(saved), "--iters", "5"], capture_output=True, text=True, check=True)
    assert "2 buckets captured into one shared memory pool" in out.stdout and "4x8x16x16" in out.stdout


def test_report(block_module) -> None:
    _, _, fast = block_module
    report = fast.report
    assert fast.mode == "aot-multi" and report.chosen == "aot-multi"
    assert report.multi.streams >= 4 and report.multi.syncs >= 1
    assert report.single.streams == 1
    for mode in (report.single, report.multi):
        assert mode.measured_ms > 0 and mode.predicted_ms > 0 and mode.max_rel_error < 1e-3
        assert 0 < mode.peak_allocated_bytes <= mode.peak_memory_bytes
        assert 0 < mode.graph_pool_bytes <= mode.peak_memory_bytes
    assert 0 < report.baseline_peak_allocated_bytes <= report.baseline_peak_memory_bytes
    assert report.output_reference.startswith("the model as the file holds it")
    # The multi-stream prediction is anchored on the single-stream replay measured before it, or says why not
    # (this model's kernels are tiny: a factor outside 0.5-2x is refused, and said so).
    assert report.single.predicted_unanchored_ms is None
    if report.anchor.startswith("multi-stream predicted from the kernel durations x"):
        assert 0.5 <= report.duration_scale <= 2.0 and report.multi.predicted_unanchored_ms is not None
        assert f"x{report.duration_scale:.3f}" in report.anchor
    else:
        assert "(not anchored: " in report.anchor, report.anchor
        assert report.duration_scale == 1.0 and report.multi.predicted_unanchored_ms is None
    for mode in (report.single, report.multi):
        assert mode.max_rel_error_unmodified is not None and mode.max_rel_error_unmodified < 1e-3
    # The pools are predicted from a traced single-stream capture; a seeded multi-stream pool is kept only
    # when it came out smaller than the same schedule captured unseeded.
    assert report.single.predicted_graph_pool_bytes is not None and report.multi.predicted_graph_pool_bytes is not None
    for mode in (report.single, report.multi):
        if mode.unseeded_graph_pool_bytes is not None:
            assert mode.graph_pool_bytes < mode.unseeded_graph_pool_bytes
    assert report.baseline_ms > 0 and report.speedup == report.baseline_ms / report.multi.measured_ms
    d = report.to_dict()
    assert d["multi"]["assignment"]["streams"] == report.multi.streams
    assert json.loads(report.to_json()) == d
    assert "aot-multi" in str(report)


def test_convolution_epilogues_are_counted_and_can_be_turned_off(block_module) -> None:
    model, x, fast = block_module
    # Each branch's first convolution: its bias and ReLU run as one kernel after it.
    assert fast.report.conv_epilogues >= 4
    assert fast.report.to_dict()["conv_epilogues"] == fast.report.conv_epilogues
    separate = nimble.accelerate(model, (x,), mode="single", iters=5, tf32=False, progress=False,
                                 conv_epilogues=False)
    assert separate.report.conv_epilogues == 0
    with torch.no_grad():
        close(separate(x)[0], fast(x)[0])


def test_wrong_inputs_raise_and_launch_nothing(block_module) -> None:
    model, x, fast = block_module
    cases = [
        ((torch.randn(1, 32, 28, 28, device="cuda"),), "has shape 1x32x28x28, the graph was captured for 2x32x28x28"),
        ((x.half(),), "is float16, the graph was captured for float32"),
        ((x.cpu(),), "is on cpu, the graph was captured on cuda:0"),
        ((x, x), "takes 1 input"),
        ((), "takes 1 input"),
    ]
    for args, message in cases:
        with pytest.raises(ValueError, match=message):
            fast(*args)
    with torch.no_grad():
        close(fast(x)[0], model(x)[0])


def test_outputs_are_the_graph_buffers_unless_copied(block_module, tmp_path: pathlib.Path) -> None:
    model, x, fast = block_module
    first = fast(x)[0].clone()
    kept = fast(x)[0]
    fast(torch.randn_like(x))
    assert not torch.equal(kept, first)  # overwritten by the next call, as documented
    fast.save(tmp_path / "block.nimble")
    copying = nimble.load(tmp_path / "block.nimble", copy_outputs=True)
    a = copying(x)[0]
    copying(torch.randn_like(x))
    close(a, first)


def test_runs_on_the_callers_stream(block_module) -> None:
    model, x, fast = block_module
    side = torch.cuda.Stream()
    with torch.no_grad():
        expected = model(x)[0]
    x_side = torch.empty_like(x)
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        x_side.copy_(x)
        out = fast(x_side)[0].clone()
    torch.cuda.current_stream().wait_stream(side)
    close(out, expected)
    close(fast(x)[0], expected)  # back on the default stream, after the side stream's call


def test_save_and_load_in_a_new_process(block_module, tmp_path: pathlib.Path) -> None:
    model, x, fast = block_module
    artifact = tmp_path / "block.nimble"
    fast.save(artifact)
    assert artifact.exists() and not (tmp_path / "block.nimble.partial").exists()
    torch.save(x.cpu(), tmp_path / "x.pt")
    script = (
        "import sys, torch, nimble\n"
        "torch.backends.cudnn.allow_tf32 = False\n"
        "m = nimble.load(sys.argv[1])\n"
        "x = torch.load(sys.argv[2]).cuda()\n"
        "logits, features = m(x)\n"
        "torch.save(logits.cpu(), sys.argv[3])\n"
        "print(m.mode, m.input_shapes)\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(artifact), str(tmp_path / "x.pt"),
                          str(tmp_path / "y.pt")], capture_output=True, text=True, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert "aot-multi [[2, 32, 28, 28]]" in out.stdout
    with torch.no_grad():
        close(torch.load(tmp_path / "y.pt").cuda(), model(x)[0])


def test_nimble_run_reads_the_saved_artifact(block_module, tmp_path: pathlib.Path) -> None:
    run = tool("nimble-run")
    if run is None:
        pytest.skip("no nimble-run in this build")
    _, _, fast = block_module
    artifact = tmp_path / "block.nimble"
    fast.save(artifact)
    out = subprocess.run([str(run), str(artifact), "--iters", "20"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "aot-multi" in out.stdout


def test_save_refuses_a_directory(block_module, tmp_path: pathlib.Path) -> None:
    _, _, fast = block_module
    with pytest.raises(IsADirectoryError):
        fast.save(tmp_path)


def test_latencies_are_timed_like_nimble_run(block_module) -> None:
    _, _, fast = block_module
    ns = fast.latencies_ns(20)
    assert len(ns) == 20 and min(ns) > 0
    assert fast.latency_ms(20) > 0


def test_script_module_and_path(tmp_path: pathlib.Path) -> None:
    torch.manual_seed(1)
    model = Block(16).cuda().eval()
    x = torch.randn(1, 16, 14, 14, device="cuda")

    class Logits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, x):
            return self.inner(x)[0]

    scripted = torch.jit.trace(Logits().eval(), (x,))
    path = tmp_path / "logits.pt"
    torch.jit.save(scripted, path)
    with torch.no_grad():
        expected = model(x)[0]
    for source in (scripted, path, str(path)):
        fast = nimble.accelerate(source, x, mode="single", iters=20, tf32=False, progress=False)
        assert fast.mode == "aot-single"
        close(fast(x), expected)


def test_progress_reaches_a_callback() -> None:
    seen = []
    model = Block(8).cuda().eval()
    nimble.accelerate(model, torch.randn(1, 8, 8, 8, device="cuda"), iters=10, progress=seen.append)
    steps = [u.message for u in seen if u.kind == "step"]
    assert any("checking outputs" in s for s in steps)
    assert len(steps) >= 3 and all(u.kind in ("step", "tick", "warning") for u in seen)


def test_precision_flags_are_restored() -> None:
    torch.backends.cudnn.allow_tf32 = True
    model = Block(8).cuda().eval()
    nimble.accelerate(model, torch.randn(1, 8, 8, 8, device="cuda"), iters=10, tf32=False, progress=False)
    assert torch.backends.cudnn.allow_tf32 is True


def test_profile_and_open(tmp_path: pathlib.Path) -> None:
    model = Block(16).cuda().eval()
    x = torch.randn(1, 16, 14, 14, device="cuda")
    db = tmp_path / "block.db"
    report = nimble.profile(model, x, iters=5, warmup=2, timed_iters=10, db=db, progress=False)
    assert db.exists() and report.database == str(db)
    assert 0 < report.active_ratio <= 1
    assert report.logical_concurrency >= 4
    assert report.predictions["aot_multi_ns"] > 0
    assert report.latency_ms > 0 and report.predicted_multi_ms > 0
    reopened = nimble.open(db)
    assert reopened.to_dict()["graph"] == report.to_dict()["graph"]
    assert reopened.active_ratio == report.active_ratio
    # Without a db the report is read from a temporary database, which the report does not name.
    temp = nimble.profile(model, x, iters=3, warmup=1, timed_iters=5, progress=False)
    assert temp.database is None and temp.logical_concurrency == report.logical_concurrency
    # Each recording detaches CUPTI from the process; the next one attaches it again and records alike.
    again = nimble.profile(model, x, iters=3, warmup=1, timed_iters=5, db=tmp_path / "again.db", progress=False)
    assert again.logical_concurrency == report.logical_concurrency
    for path in (db, tmp_path / "again.db"):
        with sqlite3.connect(path) as con:
            rows = con.execute("SELECT value, description FROM stats WHERE name = 'collector.cupti_left_attached'").fetchall()
        assert rows and all(value == 0 for value, _ in rows), rows


def test_accelerate_with_the_profiled_db(tmp_path: pathlib.Path) -> None:
    model = Block(16).cuda().eval()
    x = torch.randn(1, 16, 14, 14, device="cuda")
    db = tmp_path / "block.db"
    nimble.profile(model, x, iters=5, warmup=2, timed_iters=10, db=db, progress=False, tf32=False)
    fast = nimble.accelerate(model, x, db=db, iters=20, tf32=False, progress=False)
    assert "block.db" in fast.report.to_dict()["op_time_source"]
    assert len(fast.report.to_dict()["stored_runs"]) >= 1
    assert len(nimble.open_all(db)) == 1 + len(fast.report.to_dict()["stored_runs"])


def test_torchvision_googlenet() -> None:
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(3)
    model = torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=False).cuda().eval()
    x = torch.randn(1, 3, 224, 224, device="cuda")
    fast = nimble.accelerate(model, x, iters=50, tf32=False, progress=False)
    with torch.no_grad():
        close(fast(x), model(x))
    assert fast.report.multi.streams > 1


def test_wrong_call_in_a_fresh_process_is_an_exception(tmp_path: pathlib.Path) -> None:
    """A wrong call in a fresh process exits with a Python exception, not a crash."""
    model = Block(8).cuda().eval()
    fast = nimble.accelerate(model, torch.randn(1, 8, 8, 8, device="cuda"), iters=10, progress=False)
    artifact = tmp_path / "b.nimble"
    fast.save(artifact)
    script = ("import sys, torch, nimble\nm = nimble.load(sys.argv[1])\n"
              "m(torch.randn(3, 8, 8, 8, device='cuda'))\n")
    out = subprocess.run([sys.executable, "-c", script, str(artifact)], capture_output=True, text=True)
    assert out.returncode == 1
    assert "ValueError" in out.stderr and "the graph was captured for 1x8x8x8" in out.stderr


def test_a_call_on_another_stream_waits_for_the_last_one(block_module) -> None:
    """No wait between the two calls but the runner's own: the second call, on the default stream,
    must not overwrite the buffers while the side stream's replay still reads them."""
    model, x, fast = block_module
    side = torch.cuda.Stream()
    a, b = torch.randn_like(x), torch.randn_like(x)
    with torch.no_grad():
        expected_a, expected_b = model(a)[0], model(b)[0]
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # keeps the side stream busy, so its replay starts late
        out_a = fast(a)[0].clone()
    out_b = fast(b)[0].clone()  # default stream: ordered after the side stream's call by the runner
    torch.cuda.synchronize()
    close(out_a, expected_a)
    close(out_b, expected_b)


def test_module_cannot_be_moved_or_copied(block_module) -> None:
    import copy

    _, _, fast = block_module
    with pytest.raises(RuntimeError, match="accelerate the model again"):
        fast.to("cpu")
    with pytest.raises(TypeError, match="nimble.load"):
        copy.deepcopy(fast)


def test_accelerate_keeps_the_current_device() -> None:
    before = torch.cuda.current_device()
    nimble.accelerate(Block(8).cuda().eval(), torch.randn(1, 8, 8, 8, device="cuda"), iters=5, progress=False)
    assert torch.cuda.current_device() == before


class TokenModel(torch.nn.Module):
    """Token ids and a boolean mask in, two projections of the embeddings out: int64 and bool inputs."""

    def __init__(self, vocab: int = 1000, dim: int = 64) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.left = torch.nn.Linear(dim, dim)
        self.right = torch.nn.Linear(dim, dim)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor):
        h = self.embed(ids) * mask.unsqueeze(-1)
        return self.left(h).relu() + self.right(h).sigmoid()


def test_token_ids_and_mask() -> None:
    torch.manual_seed(0)
    model = TokenModel().cuda().eval()
    ids = torch.randint(0, 1000, (2, 16), device="cuda")
    mask = torch.rand(2, 16, device="cuda") > 0.2
    fast = nimble.accelerate(model, (ids, mask), iters=5)
    lo, hi = int(ids.min()), int(ids.max())
    assert fast.input_specs == [f"2x16:int64:{lo}..{hi}", "2x16:bool"]
    with torch.no_grad():
        expected = model(ids, mask)
    other = torch.randint(0, 1000, (2, 16), device="cuda")
    close(fast(ids, mask), expected)
    with torch.no_grad():
        close(fast(other, mask), model(other, mask))
    with pytest.raises(ValueError, match="input 0 is int32, the graph was captured for int64"):
        fast(ids.int(), mask)


@pytest.mark.parametrize("dtype, tolerance", [(torch.float16, 1e-2), (torch.bfloat16, 5e-2)])
def test_half_precision_model(dtype: torch.dtype, tolerance: float) -> None:
    torch.manual_seed(0)
    model = Block().cuda().eval().to(dtype)
    x = torch.randn(2, 32, 28, 28, device="cuda", dtype=dtype)
    fast = nimble.accelerate(model, x, iters=5)
    name = str(dtype).replace("torch.", "")
    assert fast.input_specs == [f"2x32x28x28:{name}"]
    assert fast.report.multi.max_rel_error <= tolerance
    # The model as the file holds it, computed in float32: the model at its dtype rounds away from it (not
    # zero: it did compute in float32), and the replays stay within the dtype's tolerance of it.
    assert fast.report.unmodified_error_float32 is not None and 0 < fast.report.unmodified_error_float32 <= tolerance
    assert fast.report.multi.max_rel_error_float32 is not None and fast.report.multi.max_rel_error_float32 <= tolerance
    # Half-precision convolutions, none depthwise: captured channels_last (memory_format="auto").
    assert fast.report.memory_format == "channels_last"
    with torch.no_grad():
        expected, expected_features = model(x)
    got, features = fast(x)
    assert got.dtype == dtype and features["features"].dtype == dtype
    # The check nimble-accelerate makes, norm-wise: the largest difference over the largest value; the
    # 4-D features come back channels_last, with the module's values.
    assert ((got - expected).abs().max() / expected.abs().max()).item() <= tolerance
    ref = expected_features["features"]
    assert features["features"].is_contiguous(memory_format=torch.channels_last)
    assert ((features["features"] - ref).abs().max() / ref.abs().max()).item() <= tolerance
    # The same model asked for NCHW: 4-D outputs as PyTorch's.
    nchw = nimble.accelerate(model, x, iters=5, mode="single", memory_format=torch.contiguous_format)
    assert nchw.report.memory_format == "contiguous"
    assert nchw(x)[1]["features"].is_contiguous()
    # Both layouts recorded, the one whose kernels took less kept.
    measured = nimble.accelerate(model, x, iters=5, mode="single", memory_format="measure")
    choice = measured.report.to_dict()["memory_format_choice"]
    assert choice.startswith("contiguous ") and choice.endswith(": " + measured.report.memory_format), choice
    with pytest.raises(ValueError, match=f"is float32, the graph was captured for {name}"):
        fast(x.float())


def test_exported_program_and_pt2_path(tmp_path: pathlib.Path) -> None:
    torch.manual_seed(0)
    model = Block().cuda().eval()
    x = torch.randn(2, 32, 28, 28, device="cuda")
    program = torch.export.export(model, (x,))
    with torch.no_grad():
        expected, features = model(x)
    fast = nimble.accelerate(program, x, iters=5)
    assert fast.report.memory_format == "contiguous"  # float32 convolutions stay NCHW
    got, got_features = fast(x)
    close(got, expected)
    close(got_features["features"], features["features"])
    path = tmp_path / "block.pt2"
    torch.export.save(program, str(path))
    from_file = nimble.accelerate(path, x, iters=5)
    outputs = from_file(x)  # a path gives flat outputs: the program's tensors in order
    close(outputs[0], expected)
    close(outputs[1], features["features"])
