"""Traces other tools wrote, and runs compared: the ``nimble-prof import``, ``export --format chrome``
and ``diff`` workflows from Python. None of them needs a GPU."""

import json
import os
from typing import Any, Dict, List, Optional, Sequence

from . import _C
from ._report import Report

PathArg = "str | os.PathLike[str]"


def import_trace(trace: PathArg, output: PathArg, threads: int = 0) -> Report:
    """Imports a torch.profiler trace (``prof.export_chrome_trace(...)``, ``.json`` or ``.json.gz``) or an
    Nsight Systems SQLite export into the run database ``output`` (a new run is added when it exists) and
    returns the imported run's report. What the trace lacks is stored with the run as a data warning
    (``nimble-prof info``), never invented. ``threads`` parse a large JSON trace (0: one per core; the
    run is the same for any number). ValueError for a damaged or unknown file or a negative
    ``threads``, FileNotFoundError for a missing one; nothing is left half-written."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= 1024:
        raise ValueError(f"threads must be an integer from 0 (one per core) to 1024, not {threads!r}")
    summary = json.loads(_C.import_trace(os.fspath(trace), os.fspath(output), threads))
    from ._report import open as open_report

    return open_report(summary["database"], summary["run"])


def export_chrome(database: PathArg, output: PathArg, run: Optional[int] = None) -> Dict[str, Any]:
    """Writes the runs of a run database (or one, ``run``) as Chrome / Perfetto JSON (gzip when
    ``output`` ends in ``.gz``): GPU work per stream, host API calls and ranges, launch arrows, and tracks
    of idle gaps by cause, the critical path and the stream assignment. Returns the path, the number of
    events and the bytes written."""
    return json.loads(_C.export_chrome(os.fspath(database), os.fspath(output), -1 if run is None else int(run)))


class RunDiff:
    """Two runs compared as ``nimble-prof diff --json`` compares them: per kernel name, per op, per idle
    cause and in total, medians over iterations with their spread; ``significant`` marks changes larger
    than both runs' noise."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    @property
    def total(self) -> Dict[str, Any]:
        return self._data["total"]

    @property
    def kernels(self) -> List[Dict[str, Any]]:
        return self._data["kernels"]

    @property
    def idle_by_cause(self) -> Dict[str, Any]:
        return self._data["idle_by_cause"]

    @property
    def warnings(self) -> List[str]:
        return list(self._data.get("warnings", []))

    @property
    def gate(self) -> Optional[Dict[str, Any]]:
        """The regression gate's verdict when ``fail_above`` was given, else None."""
        return self._data.get("gate")

    @property
    def regressed(self) -> bool:
        """True when ``fail_above`` was given and the gate failed (as ``diff --fail-above`` exits 1)."""
        gate = self.gate
        return bool(gate and gate.get("failed"))

    def to_dict(self) -> Dict[str, Any]:
        return self._data

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self._data, indent=indent)


def calibrate(databases: Sequence[PathArg], output: Optional[PathArg] = None, *,
              compare: Optional[PathArg] = None, anchor: bool = True,
              precision: Optional[str] = None) -> Dict[str, Any]:
    """Fits how kernels on several streams share the GPU (``nimble-prof calibrate``) to the multi-stream
    replays that ``nimble.accelerate(..., db=)`` or ``nimble-accelerate --db`` stored in ``databases``
    (all from one GPU). Returns the fit as a dict: ``model`` (floor, exponent, dispatch, crowding and knee), ``device``,
    and per case its measured latency and the prediction uncalibrated, fitted and held out (fitted on
    the other cases alone), and as the model built in for that GPU predicts it (``built_in_ns``, where
    there is one). With ``output`` the calibration file is written there, for
    ``nimble.accelerate(..., calibration=output)``; ``compare`` names a calibration file whose model
    predicts every case too, as it is (``compared_ns``). Each case's kernel durations are first scaled
    so that they predict its measured single-stream replay, as ``nimble.accelerate`` predicts the
    multi-stream one (``duration_scale`` per case); ``anchor=False`` takes them as recorded. The fit
    keeps the model that leaves the fewest cases beyond ``tolerance`` (10 %), then the least mean error.
    ``precision`` ("float32", "half" or "unknown") fits only the cases of models computing in it, as the
    H200's float32 and half models were fitted; each case says its ``precision``, and ``built_in_ns`` uses
    the built-in model for it (``built_in_models``: the model per precision)."""
    paths = [os.fspath(d) for d in databases]
    if not paths:
        raise ValueError("nimble.calibrate: needs at least one run database")
    if precision not in (None, "float32", "half", "unknown"):
        raise ValueError(f"nimble.calibrate: precision {precision!r}: expected 'float32', 'half' or 'unknown'")
    return json.loads(_C.calibrate(paths, os.fspath(output) if output is not None else "",
                                   os.fspath(compare) if compare is not None else "", bool(anchor),
                                   precision or ""))


def diff(base: PathArg, new: PathArg, *, base_run: Optional[int] = None, new_run: Optional[int] = None,
         fail_above: Optional[float] = None) -> RunDiff:
    """Compares the last run of ``new`` against the last run of ``base`` (or the runs named). With
    ``fail_above`` (percent) the result carries the regression gate: ``.regressed`` is True when the
    median iteration time grew by more than that and the change is significant."""
    if fail_above is not None and fail_above < 0:
        raise ValueError("nimble.diff: fail_above must be a percentage >= 0")
    text = _C.diff(os.fspath(base), os.fspath(new), -1 if base_run is None else int(base_run),
                   -1 if new_run is None else int(new_run), 0.0 if fail_above is None else float(fail_above))
    data = json.loads(text)
    if fail_above is None:
        data.pop("gate", None)
    return RunDiff(data)
