"""Reports of runs: ``nimble.open`` for a recorded run database, ``nimble.profile`` for a model
profiled op by op. The figures are those of ``nimble-prof report --json``, computed in C++."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import Any, Dict, List, Optional

import torch

from . import _C, _inputs, _precision, _progress


def _ms(ns: Optional[float]) -> str:
    return "-" if ns is None else f"{ns / 1e6:.3f} ms"


class Report:
    """The report of one run: GPU active time, idle time by cause, critical path, logical concurrency,
    the optimal stream assignment and the predicted speedups. ``to_dict()`` has every figure under the
    keys of ``nimble-prof report --json``; the properties are the ones most asked for. Times are in ns."""

    def __init__(self, data: Dict[str, Any], database: Optional[str] = None) -> None:
        self._data = data
        self.database = database

    # --- the run -------------------------------------------------------------------------------
    @property
    def run(self) -> Dict[str, Any]:
        """id, mode ("eager", "program", "aot-single", ...), model, inputs, device, iterations."""
        return self._data["run"]

    @property
    def warnings(self) -> List[str]:
        return list(self._data.get("warnings", []))

    def _device(self) -> Optional[Dict[str, Any]]:
        devices = self._data.get("devices") or []
        return devices[0] if devices else None

    def _window(self) -> Optional[Dict[str, Any]]:
        dev = self._device()
        if dev is None:
            return None
        median = dev.get("median_iteration")
        return dev["iterations"][median] if median is not None else dev["run"]

    # --- the timeline --------------------------------------------------------------------------
    @property
    def active_ratio(self) -> Optional[float]:
        """GPU active time / elapsed time of the median iteration (the whole run without iterations)."""
        window = self._window()
        return None if window is None else window["active_ratio"]

    @property
    def gpu_active_ns(self) -> Optional[int]:
        """Union of GPU activity in the median iteration (the whole run without iterations)."""
        window = self._window()
        return None if window is None else window["active_ns"]

    @property
    def idle_by_cause(self) -> Dict[str, int]:
        """Idle ns of the whole run by cause: host_launch_late, synchronization, memory_copy, other."""
        dev = self._device()
        if dev is None:
            return {}
        return {cause: v["idle_ns"] for cause, v in dev["run"]["idle_by_cause"].items()}

    # --- the op graph (models only) ------------------------------------------------------------
    @property
    def critical_path(self) -> Optional[Dict[str, Any]]:
        """length_ns, ratio_to_active and the op ids on it; None without an op graph."""
        graph = self._data.get("graph")
        return None if graph is None else graph["critical_path"]

    @property
    def logical_concurrency(self) -> Optional[int]:
        """Width of the op graph (the most ops that can run at once); None without an op graph."""
        graph = self._data.get("graph")
        return None if graph is None else graph["width"]

    @property
    def assignment(self) -> Optional[Dict[str, Any]]:
        """The optimal stream assignment: streams, op_stream (per op id), syncs ([src, dst] op ids)."""
        graph = self._data.get("graph")
        return None if graph is None else graph["assignment"]

    @property
    def predictions(self) -> Optional[Dict[str, Any]]:
        """measured_ns (one iteration as recorded), eager_ns, aot_single_ns, aot_multi_ns and the
        speedups over measured; None without an op graph."""
        return self._data.get("prediction")

    # --- forms ---------------------------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        return json.loads(json.dumps(self._data))

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self._data, indent=indent)

    def __repr__(self) -> str:
        ratio = self.active_ratio
        return (
            f"<nimble.Report run {self.run['id']} ({self.run['mode']}) of {self.run['model']}: "
            f"GPU active {'-' if ratio is None else f'{ratio:.1%}'}>"
        )

    def __str__(self) -> str:
        run = self.run
        lines = [f"run {run['id']} ({run['mode']}): {run['model']} --input {run['inputs']} on {run['device']}"]
        ratio = self.active_ratio
        if ratio is not None:
            lines.append(f"  GPU active {_ms(self.gpu_active_ns)} ({ratio:.1%} of the median iteration)")
        idle = self.idle_by_cause
        if idle:
            lines.append("  idle by cause (whole run): " + ", ".join(f"{k} {_ms(v)}" for k, v in idle.items()))
        if self.critical_path is not None:
            cp = self.critical_path
            lines.append(
                f"  critical path {_ms(cp['length_ns'])} ({cp['ratio_to_active']:.1%} of GPU active), "
                f"logical concurrency {self.logical_concurrency}, {self.assignment['streams']} streams"
            )
        p = self.predictions
        if p is not None:
            lines.append(
                f"  measured {_ms(p['measured_ns'])}; predicted AoT single {_ms(p['aot_single_ns'])} "
                f"({p['speedup_aot_single']:.2f}x), multi {_ms(p['aot_multi_ns'])} ({p['speedup_aot_multi']:.2f}x)"
            )
        lines.extend(f"  warning: {w}" for w in self.warnings)
        return "\n".join(lines)


class ProfileReport(Report):
    """A model's report from ``nimble.profile``, with what only the profiling measured."""

    def __init__(self, data: Dict[str, Any]) -> None:
        super().__init__(data["report"], data["path"] or None)
        self._profile = data

    @property
    def latency_ms(self) -> float:
        """Median wall time of one iteration with the collector off (op by op, as nimble-prof runs it)."""
        return self._profile["latency_ns"] / 1e6

    @property
    def recorded_ms(self) -> float:
        """Median wall time of one recorded iteration (collector on)."""
        return self._profile["recorded_ns"] / 1e6

    @property
    def predicted_single_ms(self) -> float:
        return self._profile["aot_single_ms"]

    @property
    def predicted_multi_ms(self) -> float:
        return self._profile["aot_multi_ms"]

    def to_dict(self) -> Dict[str, Any]:
        d = super().to_dict()
        d["profile"] = {k: v for k, v in self._profile.items() if k not in ("report", "path")}
        return d

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)


def open_all(path: "str | os.PathLike[str]", *, iteration_range: Optional[str] = None) -> List[Report]:
    """The report of every run in a run database, in run id order. Reading never changes the file."""
    path = os.fspath(path)
    data = json.loads(_C.report(path, -1, False, iteration_range or "", 10))
    return [Report(run, data["database"]) for run in data["runs"]]


def open(path: "str | os.PathLike[str]", run: Optional[int] = None, *, iteration_range: Optional[str] = None
         ) -> Report:  # noqa: A001 - nimble.open, like the built-in's role for files
    """The report of one run of a run database: ``run`` (its id) or, by default, the first run (the
    recorded one, where nimble-accelerate stored its runs beside it). Reading never changes the file.
    FileNotFoundError for a missing file or run; ValueError for a file that is not a run database."""
    path = os.fspath(path)
    data = json.loads(_C.report(path, -1 if run is None else int(run), False, iteration_range or "", 10))
    return Report(data["runs"][0], data["database"])


def profile(model: _inputs.ModelArg, example_inputs: _inputs.Inputs, *, iters: int = 20, warmup: int = 5,
            timed_iters: int = 100, db: "Optional[str | os.PathLike[str]]" = None,
            device: "Optional[str | torch.device]" = None, tf32: Optional[bool] = None, optimize: bool = True,
            memory_format: "str | torch.memory_format" = "auto",
            progress: _progress.ProgressArg = None) -> ProfileReport:
    """Profiles a model op by op on the GPU as ``nimble-prof model.pt`` does: every kernel attributed to
    its op, the op graph stored, and the report returned. ``db``: where the run database goes (kept);
    by default a temporary file, removed once the report is read. ``tf32``: TF32 convolutions (default:
    as this process's ``torch.backends.cudnn.allow_tf32``). ``memory_format``: the convolutions'
    layout, as ``nimble.accelerate`` takes it (a run recorded for its ``db`` must use the same)."""
    what = "nimble.profile"
    inputs = _inputs.as_tuple(example_inputs, what)
    layout = _inputs.memory_format(memory_format, what)
    if iters < 1 or warmup < 0 or timed_iters < 1:
        raise ValueError(f"{what}: iters and timed_iters must be at least 1 and warmup at least 0")
    workdir = tempfile.mkdtemp(prefix="nimble-profile-")
    try:
        model_path, _, _ = _inputs.torchscript_file(model, inputs, workdir, what)
        output = os.fspath(db) if db is not None else os.path.join(workdir, "run.db")
        command = f"nimble.profile({type(model).__name__}, inputs={_inputs.shapes_text(inputs)}, iters={iters})"
        target = _inputs.cuda_device(inputs, device)
        with _precision.preserved(), _inputs.on_device(target):
            text = _C.profile(model_path, _inputs.specs(inputs), output, iters, warmup, timed_iters,
                              target,
                              _precision.default_tf32() if tf32 is None else bool(tf32), optimize, False, command,
                              _progress.callback(progress), memory_format=layout)
        data = json.loads(text)
        if db is None:
            data["path"] = ""
        return ProfileReport(data)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
