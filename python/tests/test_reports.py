"""nimble.open / open_all on recorded runs: the same figures as `nimble-prof report --json`, files
never changed, and bad input as exceptions that name the file. No GPU needed."""

from __future__ import annotations

import hashlib
import json
import pathlib
import subprocess

import pytest

import nimble
from conftest import RECORDED, tool


def digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cli_report(path: pathlib.Path) -> dict:
    prof = tool("nimble-prof")
    if prof is None:
        pytest.skip("no nimble-prof in this build")
    out = subprocess.run([str(prof), "report", "--json", "--no-store", str(path)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("name", ["inception_v3.db", "concurrent_streams.db"])
def test_open_equals_the_cli_report(name: str) -> None:
    path = RECORDED / name
    report = nimble.open(path)
    cli = cli_report(path)
    assert report.to_dict() == cli["runs"][0]
    assert report.database == str(path)


def test_properties_read_the_median_iteration(inception_db: pathlib.Path) -> None:
    report = nimble.open(inception_db)
    data = report.to_dict()
    device = data["devices"][0]
    median = device["median_iteration"]
    assert median is not None and 0 <= median < len(device["iterations"])
    window = device["iterations"][median]
    assert report.active_ratio == window["active_ratio"]
    assert report.gpu_active_ns == window["active_ns"]
    assert 0 < report.active_ratio < 1
    spans = sorted(it["end_ns"] - it["start_ns"] for it in device["iterations"])
    assert window["end_ns"] - window["start_ns"] == spans[len(spans) // 2]


def test_model_run_has_graph_figures(inception_db: pathlib.Path) -> None:
    report = nimble.open(inception_db)
    assert report.run["mode"] == "eager"
    assert report.logical_concurrency == report.to_dict()["graph"]["width"] > 1
    assert report.critical_path["length_ns"] > 0
    assignment = report.assignment
    assert assignment["streams"] >= report.logical_concurrency
    assert len(assignment["op_stream"]) == report.to_dict()["graph"]["ops"]
    p = report.predictions
    assert p["aot_multi_ns"] <= p["aot_single_ns"] < p["measured_ns"]
    assert set(report.idle_by_cause) == {"host_launch_late", "synchronization", "memory_copy", "other"}
    assert sum(report.idle_by_cause.values()) > 0


def test_program_run_has_no_graph(streams_db: pathlib.Path) -> None:
    report = nimble.open(streams_db)
    assert report.run["mode"] == "program"
    assert report.critical_path is None and report.assignment is None and report.predictions is None
    assert report.active_ratio > 0


def test_forms_round_trip(inception_db: pathlib.Path) -> None:
    report = nimble.open(inception_db)
    assert json.loads(report.to_json()) == report.to_dict()
    text = str(report)
    assert "critical path" in text and "predicted AoT single" in text
    assert "nimble.Report run 1 (eager)" in repr(report)


def test_reading_never_changes_the_file(inception_db: pathlib.Path) -> None:
    before = digest(inception_db)
    nimble.open(inception_db)
    nimble.open_all(inception_db)
    assert digest(inception_db) == before


def test_open_all_lists_every_run(inception_db: pathlib.Path) -> None:
    reports = nimble.open_all(inception_db)
    assert [r.run["id"] for r in reports] == [1]
    assert reports[0].to_dict() == nimble.open(inception_db, run=1).to_dict()


def test_missing_file(tmp_path: pathlib.Path) -> None:
    missing = tmp_path / "nope.db"
    with pytest.raises(FileNotFoundError, match="nope.db"):
        nimble.open(missing)
    assert not missing.exists()


def test_missing_run(inception_db: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError, match="run 7"):
        nimble.open(inception_db, run=7)


def test_not_a_database(tmp_path: pathlib.Path) -> None:
    bogus = tmp_path / "notes.db"
    bogus.write_text("this is not SQLite\n" * 100)
    with pytest.raises(ValueError, match="notes.db"):
        nimble.open(bogus)
    assert bogus.read_text().startswith("this is not SQLite")


def test_truncated_database(tmp_path: pathlib.Path) -> None:
    cut = tmp_path / "cut.db"
    data = (RECORDED / "inception_v3.db").read_bytes()
    cut.write_bytes(data[: len(data) // 3])
    with pytest.raises((ValueError, RuntimeError), match="cut.db"):
        nimble.open(cut)
