"""Reads what bench/paper/run.sh's parts wrote (IN_DIR/profile, inference, training) into plain rows
for make_figures.py. A part that did not run gives None; a model whose tool failed gives a row whose
values are None and whose "error" says why. Nothing here needs matplotlib or a GPU."""
from __future__ import annotations

import json
import pathlib
from typing import Any, Optional

Json = dict[str, Any]


def read_json(path: pathlib.Path) -> Optional[Json]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def read_jsonl(path: pathlib.Path) -> list[Json]:
    rows = []
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return rows
    for line in lines:
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue  # a line cut short by a time limit
    return rows


def part_runs(part_dir: pathlib.Path) -> list[Json]:
    """The run-*.json of every invocation of a part (several when a part was split with --models)."""
    return [m for m in (read_json(p) for p in sorted(part_dir.glob("run-*.json"))) if m is not None]


def models_of(runs: list[Json], part_dir: pathlib.Path, suffix: str) -> list[str]:
    """Models asked for, in order, then any with a result file but no run record (a copied-in file)."""
    names: list[str] = []
    for run in runs:
        names += [m for m in run.get("models", []) if m not in names]
    names += sorted({p.name[: -len(suffix)] for p in part_dir.glob("*" + suffix)} - set(names))
    return names


def skipped_of(runs: list[Json]) -> set[str]:
    return {m for run in runs for m in run.get("skipped", [])}


def eager_run(report: Optional[Json]) -> Optional[Json]:
    runs = (report or {}).get("runs") or []
    return next((r for r in runs if r.get("run", {}).get("mode") == "eager"), runs[0] if runs else None)


def profile_row(part_dir: pathlib.Path, model: str) -> Json:
    """Figure 3: GPU active time of the median recorded iteration, over the iteration time with the
    collector off (nimble-prof's op-by-op eager run), and the op graph's critical path over active time."""
    row: Json = {"model": model}
    profiled = read_json(part_dir / f"{model}.profile.json")
    # `report --json` is the source; nimble-prof's own --json carries the same report should it fail.
    run = eager_run(read_json(part_dir / f"{model}.report.json")) or eager_run(profiled)
    profile = (eager_run(profiled) or {}).get("profile")
    if run is None or profile is None or not run.get("devices"):
        return {**row, "error": "failed"}
    device = run["devices"][0]
    median = device.get("median_iteration")
    window = device["iterations"][median] if median is not None else device["run"]
    row.update(inputs=run["run"].get("inputs"), active_ms=window["active_ns"] / 1e6,
               recorded_ratio=window["active_ratio"], latency_ms=profile["latency_ns"] / 1e6,
               forward_ms=profile.get("forward_latency_ns", 0) / 1e6)
    row["active_ratio"] = row["active_ms"] / row["latency_ms"] if row["latency_ms"] else None
    graph = run.get("graph")
    if graph:
        row.update(critical_ms=graph["critical_path"]["length_ns"] / 1e6,
                   critical_ratio=graph["critical_path"]["ratio_to_active"], width=graph["width"],
                   streams=graph["assignment"]["streams"], syncs=len(graph["assignment"]["syncs"]))
    return row


def inference_row(part_dir: pathlib.Path, model: str) -> Json:
    """Figure 5 and Table 1: PyTorch's latencies by mode, nimble-accelerate's single and multi."""
    row: Json = {"model": model, "torch": {}, "torch_error": {}}
    for line in read_jsonl(part_dir / f"{model}.torch.jsonl"):
        mode = line.get("mode")
        if "median_ms" in line:
            row["torch"][mode] = line
        else:
            row["torch_error"][mode] = line.get("error", "failed")
    accel = read_json(part_dir / f"{model}.accelerate.json")
    if accel is None:
        row["nimble_error"] = "failed"
        return row
    row.update(inputs=accel.get("inputs"), chains=accel.get("width_streams"), chosen=accel.get("chosen"),
               single=accel.get("single"), multi=accel.get("multi"),
               fallback=accel.get("eager_fallback_reason"))
    chosen = {"aot-single": row["single"], "aot-multi": row["multi"]}.get(row["chosen"] or "")
    row["nimble_ms"] = chosen["measured_ms"] if chosen else None
    if row["nimble_ms"] is None:
        row["nimble_error"] = row["fallback"] or "failed"
    return row


def ratio(num: Optional[float], den: Optional[float]) -> Optional[float]:
    return num / den if num and den else None


def training_speedup(row: Json, key: str) -> Optional[float]:
    """Throughput of "nimble", "compile" or "graphed" over eager's: samples/s, else the step times."""
    rates = row.get("samples_per_s") or {}
    if rates.get(key) and rates.get("eager"):
        return rates[key] / rates["eager"]
    return ratio(row.get("eager_ms"), row.get(f"{key}_ms"))


def training_rows(part_dir: pathlib.Path) -> list[Json]:
    """Figure 7: bench/training_bench.py's lines (every *.jsonl, so split runs can sit side by side)."""
    rows = []
    for path in sorted(part_dir.glob("*.jsonl")):
        rows += [r for r in read_jsonl(path) if "model" in r]
    return rows


def load(in_dir: pathlib.Path) -> Json:
    """Every part's runs and rows; a part without a run record or result files is None."""
    out: Json = {}
    for part, suffix, row_of in (("profile", ".profile.json", profile_row),
                                 ("inference", ".torch.jsonl", inference_row)):
        part_dir = in_dir / part
        runs = part_runs(part_dir)
        names = models_of(runs, part_dir, suffix)
        out[part] = None if not runs and not names else {
            "runs": runs, "skipped": skipped_of(runs), "rows": [row_of(part_dir, m) for m in names]}
    training_dir = in_dir / "training"
    runs, rows = part_runs(training_dir), training_rows(training_dir)
    out["training"] = None if not runs and not rows else {"runs": runs, "skipped": set(), "rows": rows}
    return out
