"""nimble.import_trace / export_chrome / diff: torch.profiler traces recorded here on the CPU (so CI
makes its own) and on an H100 (the committed fixtures), read into run databases, written back out as
Chrome JSON, and compared. No GPU needed."""

from __future__ import annotations

import gzip
import json
import pathlib
import subprocess

import pytest
import torch

import nimble
from conftest import ROOT, tool

KINETO = ROOT / "tests" / "data" / "kineto"


def cpu_trace(path: pathlib.Path, steps: int = 4) -> pathlib.Path:
    """A torch.profiler trace of a small network on the CPU, with one ProfilerStep per step."""
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    x = torch.randn(8, 64)
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=steps, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=schedule) as prof:
        for _ in range(steps + 1):
            model(x)
            prof.step()
    prof.export_chrome_trace(str(path))
    return path


def test_cpu_trace_imports_with_its_steps_and_says_what_it_lacks(tmp_path: pathlib.Path) -> None:
    trace = cpu_trace(tmp_path / "cpu.json")
    events = json.loads(trace.read_text())["traceEvents"]
    cpu_ops = sum(1 for e in events if e.get("cat") == "cpu_op")
    report = nimble.import_trace(trace, tmp_path / "cpu.db")
    assert report.run["mode"] == "program"
    assert report.to_dict()["iteration_range"] == "ProfilerStep"
    assert cpu_ops > 0
    # a CPU-only trace has no GPU activity: nothing is invented for it
    assert report.gpu_active_ns in (None, 0)


@pytest.mark.parametrize("name", ["resnet18_eager.json.gz", "resnet18_cudagraph.json.gz"])
def test_h100_fixture_matches_its_own_kernels(tmp_path: pathlib.Path, name: str) -> None:
    events = json.loads(gzip.decompress((KINETO / name).read_bytes()))["traceEvents"]
    kernels = [e for e in events if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")]
    spans = sorted((float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in kernels)
    union_us, end = 0.0, None
    for start, stop in spans:
        if end is None or start >= end:
            union_us, end = union_us + stop - start, stop
        elif stop > end:
            union_us, end = union_us + stop - end, stop
    report = nimble.import_trace(KINETO / name, tmp_path / "run.db")
    whole = report.to_dict()["devices"][0]["run"]
    assert whole["kernels"] == sum(1 for e in events if e.get("cat") == "kernel")
    assert whole["active_ns"] == pytest.approx(union_us * 1000, rel=1e-6, abs=len(spans))
    assert report.to_dict()["iteration_range"] == "ProfilerStep"
    assert len(report.to_dict()["devices"][0]["iterations"]) == 3


def test_import_threads_give_the_same_run_and_are_checked(tmp_path: pathlib.Path) -> None:
    one = nimble.import_trace(KINETO / "resnet18_eager.json.gz", tmp_path / "one.db", threads=1)
    three = nimble.import_trace(KINETO / "resnet18_eager.json.gz", tmp_path / "three.db", threads=3)
    assert one.to_dict()["devices"] == three.to_dict()["devices"]
    for bad in (-1, 1.5, True, 5000):
        with pytest.raises(ValueError, match="threads"):
            nimble.import_trace(KINETO / "resnet18_eager.json.gz", tmp_path / "bad.db", threads=bad)
    assert not (tmp_path / "bad.db").exists()


def test_export_chrome_writes_what_was_imported(tmp_path: pathlib.Path) -> None:
    report = nimble.import_trace(KINETO / "resnet18_eager.json.gz", tmp_path / "run.db")
    written = nimble.export_chrome(tmp_path / "run.db", tmp_path / "out.json")
    doc = json.loads((tmp_path / "out.json").read_text())
    kernels = sum(1 for e in doc["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X")
    assert kernels == report.to_dict()["devices"][0]["run"]["kernels"]
    assert written["events"] == len(doc["traceEvents"])


def test_diff_of_a_run_with_itself_changes_nothing(tmp_path: pathlib.Path) -> None:
    nimble.import_trace(KINETO / "resnet18_eager.json.gz", tmp_path / "a.db")
    nimble.import_trace(KINETO / "resnet18_eager.json.gz", tmp_path / "b.db")
    same = nimble.diff(tmp_path / "a.db", tmp_path / "b.db", fail_above=1.0)
    assert not same.regressed
    assert not same.total["iteration"]["significant"]


def test_diff_eager_against_cuda_graph_gates_the_slower_one(tmp_path: pathlib.Path) -> None:
    nimble.import_trace(KINETO / "resnet18_cudagraph.json.gz", tmp_path / "graph.db")
    nimble.import_trace(KINETO / "resnet18_eager.json.gz", tmp_path / "eager.db")
    slower = nimble.diff(tmp_path / "graph.db", tmp_path / "eager.db", fail_above=5.0)
    assert slower.regressed
    faster = nimble.diff(tmp_path / "eager.db", tmp_path / "graph.db", fail_above=5.0)
    assert not faster.regressed


def test_cli_and_python_import_agree(tmp_path: pathlib.Path) -> None:
    prof = tool("nimble-prof")
    if prof is None:
        pytest.skip("no nimble-prof in this build")
    subprocess.run([str(prof), "import", str(KINETO / "resnet18_eager.json.gz"), "-o", str(tmp_path / "cli.db")],
                   check=True, capture_output=True)
    cli = json.loads(subprocess.run([str(prof), "report", "--json", "--no-store", str(tmp_path / "cli.db")],
                                    check=True, capture_output=True, text=True).stdout)["runs"][0]
    py = nimble.import_trace(KINETO / "resnet18_eager.json.gz", tmp_path / "py.db").to_dict()
    assert py["devices"] == cli["devices"]


@pytest.mark.parametrize("content", [b"", b"{\"traceEvents\": [", b"not a trace", b"\x1f\x8b\x08garbage"])
def test_bad_traces_raise_naming_the_file_and_write_nothing(tmp_path: pathlib.Path, content: bytes) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    with pytest.raises((ValueError, RuntimeError)) as error:
        nimble.import_trace(bad, tmp_path / "out.db")
    assert "bad.json" in str(error.value)
    assert not (tmp_path / "out.db").exists()
    assert not (tmp_path / "out.db.partial").exists()


def test_missing_trace_is_file_not_found(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError):
        nimble.import_trace(tmp_path / "nope.json", tmp_path / "out.db")


def test_calibrate_fits_the_bundled_recording_and_the_file_feeds_accelerate(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "compare.db"
    db.write_bytes((ROOT / "samples" / "recorded" / "inception_v3_compare.db").read_bytes())
    out = tmp_path / "h100.json"
    # Stored before anchoring: the kernels as recorded rebuild the stored prediction.
    fit = nimble.calibrate([db], output=out, anchor=False)
    assert fit["device"] == "NVIDIA H100 80GB HBM3" and fit["anchored"] is False
    [case] = fit["cases"]
    assert case["streams"] == 5 and case["measured_ns"] == 2099647 and case["duration_scale"] == 1.0
    assert abs(case["uncalibrated_ns"] - case["stored_predicted_ns"]) <= 1  # the stored prediction, rebuilt
    assert abs(case["fitted_ns"] - case["measured_ns"]) <= abs(case["uncalibrated_ns"] - case["measured_ns"])
    assert json.loads(out.read_text())["model"] == fit["model"]
    model = nimble._C.read_calibration(str(out))
    source = model.pop("source")
    assert model == fit["model"]  # floor, exponent, dispatch, crowding and knee, as the fit wrote them
    assert model["dispatch"] in ("shared", "in-order") and str(out) in source
    floor = model["floor"]
    assert fit["built_in_model"]["source"].startswith("calibrated on NVIDIA H100") and "compared_model" not in fit
    assert fit["precision"] == "float32" and case["precision"] == "float32"  # from its float32 inputs
    with pytest.raises(RuntimeError, match="a float32 model, not half"):
        nimble.calibrate([db], precision="half")
    with pytest.raises(ValueError, match="precision 'bfloat16'"):
        nimble.calibrate([db], precision="bfloat16")
    again = nimble.calibrate([db], compare=out, anchor=False)  # the file's model, as it is, predicts what the fit did
    assert again["cases"][0]["compared_ns"] == case["fitted_ns"] and again["compared_model"]["floor"] == floor
    # Anchored (the default) on the single-stream replay stored beside it, by a factor it reports.
    anchored = nimble.calibrate([db])
    [scaled] = anchored["cases"]
    assert anchored["anchored"] is True and scaled["not_anchored"] is None
    assert 0.5 <= scaled["duration_scale"] <= 2.0 and scaled["duration_scale"] != 1.0
    assert scaled["uncalibrated_ns"] != case["uncalibrated_ns"]


def test_calibrate_and_accelerate_refuse_bad_inputs(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match="at least one"):
        nimble.calibrate([])
    db = tmp_path / "eager.db"
    db.write_bytes((ROOT / "samples" / "recorded" / "inception_v3.db").read_bytes())
    with pytest.raises(RuntimeError, match="no aot-multi run"):
        nimble.calibrate([db])
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "nimble-sharing-calibration", "format": 1, "model": {"floor": 2, "exponent": 1}}')
    model = torch.nn.Linear(4, 4)
    with pytest.raises(ValueError, match="must lie in"):
        nimble.accelerate(model, torch.randn(1, 4), calibration=bad)
    with pytest.raises(FileNotFoundError, match="missing.json"):
        nimble.accelerate(model, torch.randn(1, 4), calibration=tmp_path / "missing.json")
