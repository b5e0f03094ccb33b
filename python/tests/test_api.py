"""The package's surface without a GPU: import and version checks, argument errors raised before any
GPU work, C++ errors as Python exceptions with the tools' messages, the torch.compile backend's
registration and its eager fallback."""

from __future__ import annotations

import os
import pathlib
import tempfile
import warnings

import pytest
import torch

import nimble
from nimble import _C


class TwoBranch(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b = torch.nn.Conv2d(3, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.a(x)) + torch.sigmoid(self.b(x))


def test_versions() -> None:
    assert nimble.__version__ == _C.__version__
    assert _C.torch_version == torch.__version__


def test_public_names_are_documented() -> None:
    for name in nimble.__all__:
        assert getattr(nimble, name).__doc__, name


def test_backend_is_registered() -> None:
    from torch._dynamo.backends.registry import lookup_backend

    assert lookup_backend("nimble") is nimble.backend


@pytest.mark.parametrize(
    "inputs, error, message",
    [
        ([1, 2], TypeError, "input 0 is int"),
        ("x", TypeError, "tensor or a tuple of tensors"),
        ((), ValueError, "empty"),
        ((torch.zeros(1, 3, 8, 8, dtype=torch.float64),), ValueError, "float64; Nimble captures float32, float16"),
        ((torch.tensor(1.0),), ValueError, "scalar"),
    ],
)
def test_bad_example_inputs(inputs, error, message) -> None:
    for call in (nimble.accelerate, nimble.profile):
        with pytest.raises(error, match=message):
            call(TwoBranch(), inputs)


def test_example_batched_to_a_bucket() -> None:
    from nimble._accelerate import _batched
    x = torch.arange(6.0).reshape(2, 3)
    ids = torch.tensor([[1, 2, 3], [4, 5, 6]])
    got = _batched((x, ids), [[5, 3], [5, 3]])
    assert got is not None and got[0].shape == (5, 3) and got[1].dtype == torch.int64
    assert torch.equal(got[0][4], x[0]) and torch.equal(got[1][3], ids[1])
    assert torch.equal(_batched((x,), [[1, 3]])[0], x[:1])
    assert _batched((x,), [[4, 4]]) is None          # differs beyond dimension 0: not made up
    assert _batched((x, ids), [[4, 3]]) is None      # another input count
    assert _batched((torch.tensor(1.0),), [[]]) is None


def test_bad_options() -> None:
    x = torch.randn(1, 3, 8, 8)
    with pytest.raises(ValueError, match="mode 'fast'"):
        nimble.accelerate(TwoBranch(), x, mode="fast")
    with pytest.raises(ValueError, match="max_streams"):
        nimble.accelerate(TwoBranch(), x, max_streams=0)
    with pytest.raises(ValueError, match="iters"):
        nimble.accelerate(TwoBranch(), x, iters=0)
    with pytest.raises(ValueError, match="memory_ratio must be positive"):
        nimble.accelerate(TwoBranch(), x, memory_ratio=0)
    with pytest.raises(ValueError, match="memory_budget_mib must be positive"):
        nimble.accelerate(TwoBranch(), x, memory_budget_mib=-5.0)
    with pytest.raises(ValueError, match="batch_sizes must be a non-empty list"):
        nimble.accelerate(TwoBranch(), x, batch_sizes=[1, 0])
    with pytest.raises(ValueError, match="batch_sizes must be a non-empty list"):
        nimble.accelerate(TwoBranch(), x, batch_sizes=[])
    with pytest.raises(ValueError, match="memory_format 'nhwc'"):
        nimble.accelerate(TwoBranch(), x, memory_format="nhwc")
    with pytest.raises(ValueError, match="memory_format torch.preserve_format"):
        nimble.accelerate(TwoBranch(), x, memory_format=torch.preserve_format)
    with pytest.raises(ValueError, match="branch_release_delay must be between 0 and 1"):
        nimble.accelerate(TwoBranch(), x, cross_stream_reuse=True, branch_release_delay=1.5)
    with pytest.raises(ValueError, match="branch_hold_max_mib must be positive"):
        nimble.accelerate(TwoBranch(), x, cross_stream_reuse=True, branch_hold_max_mib=0)
    with pytest.raises(ValueError, match="branch_hold_order 'bytes'"):
        nimble.accelerate(TwoBranch(), x, cross_stream_reuse=True, branch_hold_order="bytes")
    with pytest.raises(ValueError, match="apply with cross_stream_reuse=True"):
        nimble.accelerate(TwoBranch(), x, branch_release_delay=0.01)
    with pytest.raises(ValueError, match="batch_sizes and buckets both"):
        nimble.accelerate(TwoBranch(), x, batch_sizes=[1, 2], buckets=[["2x3x8x8"]])
    with pytest.raises(ValueError, match="device cpu"):
        nimble.accelerate(TwoBranch(), x, device="cpu")
    with tempfile.NamedTemporaryFile() as f:
        with pytest.raises(ValueError, match="dump_graphs .*: not a directory that can be made"):
            nimble.accelerate(TwoBranch(), x, dump_graphs=os.path.join(f.name, "graphs"))
    with pytest.raises(TypeError, match="progress"):
        nimble.accelerate(TwoBranch(), x, progress="loud")
    with pytest.raises(TypeError, match="model must be"):
        nimble.accelerate(42, x)


def test_model_that_does_not_run() -> None:
    with pytest.raises(ValueError, match="does not run on the example inputs"):
        nimble.accelerate(TwoBranch(), torch.randn(1, 4, 8, 8))


def test_missing_model_file(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError, match="missing.pt"):
        nimble.accelerate(tmp_path / "missing.pt", torch.randn(1, 3, 8, 8))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_no_gpu_is_a_runtime_error() -> None:
    with pytest.raises(RuntimeError, match="no CUDA device"):
        nimble.accelerate(TwoBranch(), torch.randn(1, 3, 8, 8), progress=False)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_model_left_as_it_was() -> None:
    model = TwoBranch().train()
    with pytest.raises(RuntimeError):
        nimble.accelerate(model, torch.randn(1, 3, 8, 8), progress=False)
    assert model.training


def test_load_errors(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError, match="absent.nimble"):
        nimble.load(tmp_path / "absent.nimble")
    bogus = tmp_path / "bogus.nimble"
    bogus.write_bytes(b"PK\x03\x04 not really a zip" * 10)
    with pytest.raises(ValueError, match="bogus.nimble"):
        nimble.load(bogus)


def test_backend_falls_back_with_one_warning_on_cpu() -> None:
    torch._dynamo.reset()
    model = TwoBranch().eval()
    x = torch.randn(1, 3, 8, 8)
    compiled = torch.compile(model, backend="nimble")
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = compiled(x)
        y2 = compiled(x)
    ours = [w for w in caught if issubclass(w.category, nimble.NimbleWarning)]
    assert len(ours) == 1
    assert "on cpu" in str(ours[0].message)
    torch.testing.assert_close(y, model(x))
    torch.testing.assert_close(y2, y)


def test_backend_rejects_unknown_options() -> None:
    torch._dynamo.reset()
    gm = torch.fx.symbolic_trace(TwoBranch())
    with pytest.raises(ValueError, match="unknown options"):
        nimble.backend(gm, [torch.randn(1, 3, 8, 8)], speed="max")  # checked before any fallback


def test_backend_options_are_accelerate_keywords() -> None:
    # Every option the backend takes goes to nimble.accelerate by name (copy_outputs stays with it).
    import inspect

    doc = nimble.backend.__doc__ or ""
    keywords = inspect.signature(nimble.accelerate).parameters
    for option in ("mode", "max_streams", "iters", "tf32", "cuda_fusions", "conv_epilogues", "memory_format",
                   "progress"):
        assert option in doc, option
        assert option in keywords, option
    torch._dynamo.reset()
    gm = torch.fx.symbolic_trace(TwoBranch())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = nimble.backend(gm, [torch.randn(1, 3, 8, 8)], conv_epilogues=False)  # accepted; CPU falls back
    assert callable(run)
    assert any(issubclass(w.category, nimble.NimbleWarning) for w in caught)


def test_progress_callback_forms() -> None:
    from nimble import _progress

    seen = []
    forward = _progress.callback(seen.append)
    forward("step", "", "loading", 0, 0)
    forward("tick", "iteration", "", 3, 10)
    assert seen == [nimble.ProgressUpdate("step", "", "loading", 0, 0),
                    nimble.ProgressUpdate("tick", "iteration", "", 3, 10)]
    with pytest.warns(nimble.NimbleWarning, match="prediction off"):
        _progress.callback(False)("warning", "", "prediction off", 0, 0)


def test_progress_printer(capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from nimble import _progress

    stream = io.StringIO()
    forward = _progress.callback(True, stream)
    forward("step", "", "capturing", 0, 0)
    forward("tick", "replay", "", 5, 10)  # not a terminal: ticks are not drawn
    assert stream.getvalue() == "nimble: capturing\n"
    quiet = io.StringIO()
    _progress.callback(None, quiet)("step", "", "capturing", 0, 0)
    assert quiet.getvalue() == ""


def test_compile_finds_the_backend_without_importing_nimble() -> None:
    """Through the installed entry point: torch imports nimble itself, which must not register twice."""
    import importlib.metadata
    import subprocess
    import sys

    if "nimble" not in importlib.metadata.entry_points(group="torch_dynamo_backends").names:
        pytest.skip("the package is not installed (no torch_dynamo_backends entry point)")
    script = ("import torch, warnings\n"
              "warnings.simplefilter('ignore')\n"
              "m = torch.nn.Linear(3, 3)\n"
              "with torch.no_grad():\n"
              "    y = torch.compile(m, backend='nimble')(torch.ones(2, 3))\n"
              "print(tuple(y.shape))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(2, 3)"


def test_outputs_nimble_cannot_rebuild_are_refused() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Out:
        features: torch.Tensor

    class ReturnsDataclass(torch.nn.Module):
        def forward(self, x):
            return x * 2, Out(x + 1)

    with pytest.raises(ValueError, match="returns a Out"):
        nimble.accelerate(ReturnsDataclass(), torch.randn(1, 3))


def test_models_that_change_their_inputs_are_refused() -> None:
    class InPlace(torch.nn.Module):
        def forward(self, x):
            x.mul_(2)
            return x + 1

    x = torch.ones(1, 3)
    with pytest.raises(ValueError, match="in place"):
        nimble.accelerate(InPlace(), x)


def test_precision_settings_survive() -> None:
    """In a process of its own: the settings it changes are process-wide."""
    import subprocess
    import sys

    script = """
import torch
from nimble import _precision
settings = _precision._settings
# A caller on the new API, with a matmul precision of its own.
torch.set_float32_matmul_precision("medium")
torch.backends.cudnn.conv.fp32_precision = "ieee"
before = [s.fp32_precision for s in settings()]
assert _precision.default_tf32() is False
with _precision.preserved():
    torch._C._set_cublas_allow_tf32(False)  # what the C++ side does while it captures
    torch._C._set_cudnn_allow_tf32(True)
assert [s.fp32_precision for s in settings()] == before, ([s.fp32_precision for s in settings()], before)
assert torch.get_float32_matmul_precision() == "medium"
assert _precision.default_tf32() is False
print("new api ok")
"""
    legacy = """
import torch
from nimble import _precision
# A caller on the legacy flags reads them afterwards as it set them.
torch.backends.cudnn.allow_tf32 = False
with _precision.preserved():
    torch._C._set_cublas_allow_tf32(True)
    torch._C._set_cudnn_allow_tf32(True)
assert torch.backends.cudnn.allow_tf32 is False and torch.backends.cuda.matmul.allow_tf32 is False
assert _precision.default_tf32() is False
print("legacy ok")
"""
    for code, expected in ((script, "new api ok"), (legacy, "legacy ok")):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip().endswith(expected)


def test_star_import_keeps_the_builtin_open() -> None:
    namespace: dict = {}
    exec("from nimble import *", namespace)
    assert "open" not in namespace and "accelerate" in namespace


def test_report_says_the_convolutions_layout() -> None:
    """nimble-accelerate's JSON of two H100 runs (bench/results/zoo): ResNet-50 in float16 captured
    channels_last by default, then asked for NCHW."""
    import json

    runs = pathlib.Path(__file__).resolve().parents[2] / "bench/results/zoo/run-2026-11-27c/layouts-f9bec61"
    nhwc = nimble.AccelerateReport(json.loads((runs / "nimble.jsonl").read_text().splitlines()[0]))
    nchw = nimble.AccelerateReport(json.loads((runs / "nimble-contiguous.jsonl").read_text().splitlines()[0]))
    assert nhwc.memory_format == "channels_last" and "(convolutions channels_last)" in str(nhwc)
    assert nchw.memory_format == "contiguous" and "channels_last" not in str(nchw)


def test_report_reads_the_error_against_the_unmodified_model() -> None:
    """max_rel_error_unmodified: a number, "inf" where outputs were not finite, absent or null where the
    model as the file holds it was not compared (JSON of an H100 run, bench/results/zoo, edited)."""
    import json

    runs = pathlib.Path(__file__).resolve().parents[2] / "bench/results/zoo/run-2026-11-27c/layouts-f9bec61"
    data = json.loads((runs / "nimble.jsonl").read_text().splitlines()[0])
    assert nimble.AccelerateReport(data).single.max_rel_error_unmodified is None
    data["output_reference"] = "the model as the file holds it"
    data["single"]["max_rel_error_unmodified"] = 2.5e-5
    data["multi"]["max_rel_error_unmodified"] = "inf"
    report = nimble.AccelerateReport(data)
    assert report.single.max_rel_error_unmodified == 2.5e-5
    assert report.multi.max_rel_error_unmodified == float("inf")
    assert "against the model as the file holds it: aot-single 2.5e-05, aot-multi inf" in str(report)
    assert report.unmodified_error_float32 is None and "float32" not in str(report)
    # A half-precision model: its replays' and its own distance from its float32 computation.
    data["unmodified_error_float32"] = 0.064
    data["single"]["max_rel_error_float32"] = 0.07
    report = nimble.AccelerateReport(data)
    assert report.unmodified_error_float32 == 0.064 and report.single.max_rel_error_float32 == 0.07
    assert report.multi.max_rel_error_float32 is None
    assert "against it computed in float32: aot-single 0.07; the file's model at its dtype 0.064" in str(report)
