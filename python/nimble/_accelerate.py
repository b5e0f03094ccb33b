"""``nimble.accelerate``: a model scheduled ahead of time onto streams, captured into one CUDA graph,
checked against the unmodified model and timed, as ``nimble-accelerate`` does; ``nimble.load`` for a
saved ``model.nimble``. The module returned replays the graph."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import tempfile
import warnings
import weakref
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

from . import _C, _inputs, _precision, _progress


class ModeReport:
    """One captured schedule: measured and predicted latency (ms), streams, syncs, output error, memory.
    Memory is GPU memory above the weights and inputs: the peaks of the warm-up and capture
    (``peak_allocated_bytes`` for tensors, ``peak_memory_bytes`` for what the caching allocator reserved)
    and ``graph_pool_bytes``, what the captured graph holds while it is kept.
    ``predicted_graph_pool_bytes``: that pool as predicted from a traced single-stream capture (None
    when none was made: a single-stream model, or this process recording the allocator's history
    already). ``unseeded_graph_pool_bytes``: for a pool seeded per stream (or, for a branch capture, its
    one capture stream), the pool of the same schedule captured unseeded (None otherwise; the seeded one
    is kept only when smaller).
    ``branch_capture``: captured on one stream with its streams as branches of the graph
    (``cross_stream_reuse``); ``reused_blocks`` allocations then reused memory another branch freed,
    ordered after it by ``hazard_edges`` added dependencies. ``branch_release_delay`` and
    ``branch_hold_max_bytes``: the hold it used (as ``accelerate``'s options, or the memory budget's
    choice; 0 and 0: values freed as soon as allowed, a delay with both limits 0: every value held);
    ``branch_hold_max_bytes_per_us``: under ``branch_hold_order="wait"``, the values held are those
    costing at most this many bytes per microsecond of wait saved (0: not chosen that way).
    ``memset_nodes_replaced``: the captured graph's small memset nodes replaced by kernels writing the
    same bytes (a memset node costs a replay more); ``memset_nodes_kept``: those left as they were.
    ``smem_carveout``: the shared-memory carveout asked for on its kernels without shared memory, in
    percent (None: each kernel's own); ``carveout_alternate_ms``: the multi-stream capture instantiated
    with the other carveout and timed beside it, the executable not kept (None: not measured; 100 % is
    kept only where more than 1 % faster)."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data
        self.mode: str = data["mode"]
        self.measured_ms: float = data["measured_ms"]
        self.predicted_ms: float = data["predicted_ms"]
        # The multi-stream mode is predicted from the kernels anchored on the measured single-stream replay
        # (the report's ``duration_scale``); this is its prediction from them as recorded (None: the same).
        unanchored = data.get("predicted_unanchored_ms")
        self.predicted_unanchored_ms: Optional[float] = None if unanchored is None else float(unanchored)
        self.streams: int = data["streams"]
        self.syncs: int = data["syncs"]
        # Largest relative output error of the replays against the frozen graph they were captured from (the
        # check that must pass), and against the model as the file holds it, without the front end's rewrites
        # (None where it was not compared).
        self.max_rel_error: float = data["max_rel_error"]
        unmodified = data.get("max_rel_error_unmodified")  # "inf" where the outputs were not finite
        self.max_rel_error_unmodified: Optional[float] = None if unmodified is None else float(unmodified)
        # Half precision: against the model as the file holds it computed in float32 (None: not compared).
        float32 = data.get("max_rel_error_float32")
        self.max_rel_error_float32: Optional[float] = None if float32 is None else float(float32)
        self.peak_allocated_bytes: int = data["peak_allocated_bytes"]
        self.peak_memory_bytes: int = data["peak_memory_bytes"]
        self.graph_pool_bytes: int = data["graph_pool_bytes"]
        predicted_pool = data.get("predicted_graph_pool_bytes", -1)
        self.predicted_graph_pool_bytes: Optional[int] = predicted_pool if predicted_pool >= 0 else None
        unseeded = data.get("unseeded_graph_pool_bytes", -1)
        self.unseeded_graph_pool_bytes: Optional[int] = unseeded if unseeded >= 0 else None
        self.capture_ns: int = data["capture_ns"]
        self.branch_capture: bool = bool(data.get("branch_capture", False))
        self.reused_blocks: int = int(data.get("reused_blocks", 0))
        self.hazard_edges: int = int(data.get("hazard_edges", 0))
        self.memset_nodes_replaced: int = int(data.get("memset_nodes_replaced", 0))
        self.memset_nodes_kept: int = int(data.get("memset_nodes_kept", 0))
        carveout = int(data.get("smem_carveout", -1))
        self.smem_carveout: Optional[int] = carveout if carveout >= 0 else None
        alternate = float(data.get("carveout_alternate_ms", -1))
        self.carveout_alternate_ms: Optional[float] = alternate if alternate > 0 else None
        self.branch_release_delay: float = float(data.get("branch_release_delay", 0))
        self.branch_hold_max_bytes: int = int(data.get("branch_hold_max_bytes", 0))
        self.branch_hold_max_bytes_per_us: float = float(data.get("branch_hold_max_bytes_per_us", 0))

    @property
    def assignment(self) -> Dict[str, Any]:
        """streams, op_stream (per op id of the frozen graph) and syncs ([src, dst] op ids)."""
        return self._data["assignment"]

    def __repr__(self) -> str:
        return (f"<{self.mode}: {self.measured_ms:.3f} ms measured, {self.predicted_ms:.3f} ms predicted, "
                f"{self.streams} streams, {self.syncs} syncs>")


class AccelerateReport:
    """What ``nimble.accelerate`` measured and predicted: the libtorch baseline, each captured mode,
    the mode chosen and why. ``to_dict()`` has every figure (the keys of ``nimble-accelerate --json``)."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data
        self.baseline_ms: float = data["baseline_ms"]
        self.predicted_eager_ms: float = data["predicted_eager_ms"]
        # The factor the recorded kernel durations were scaled by so that they predict the measured
        # single-stream replay, for the multi-stream prediction (1.0: not anchored), and what was done
        # ("" without a multi-stream schedule).
        self.duration_scale: float = float(data.get("duration_scale", 1.0))
        self.anchor: str = data.get("anchor", "")
        # The convolutions' layout the model was captured in: "channels_last" or "contiguous".
        self.memory_format: str = data.get("memory_format", "contiguous")
        # Convolutions whose bias, residual add and activation ran as one kernel (conv_epilogues=False: 0).
        self.conv_epilogues: int = data.get("conv_epilogues", 0)
        # What each mode's max_rel_error_unmodified was measured against: the model without the front end's
        # rewrites (batch norm folding, channels_last, fusions), run by libtorch; "" where it could not be loaded.
        self.output_reference: str = data.get("output_reference", "")
        # Half precision: how far the model as the file holds it, at its dtype, is from itself computed in
        # float32 (None: not measured); the replays' max_rel_error_float32 is judged against it.
        unmodified_float32 = data.get("unmodified_error_float32")
        self.unmodified_error_float32: Optional[float] = (None if unmodified_float32 is None
                                                          else float(unmodified_float32))
        # GPU memory of the libtorch forward above the weights and inputs (peaks, bytes).
        self.baseline_peak_allocated_bytes: int = data["baseline_peak_allocated_bytes"]
        self.baseline_peak_memory_bytes: int = data["baseline_peak_memory_bytes"]
        self.single: Optional[ModeReport] = ModeReport(data["single"]) if data["single"] else None
        self.multi: Optional[ModeReport] = ModeReport(data["multi"]) if data["multi"] else None
        self.chosen: Optional[str] = data["chosen"]
        self.choice_reason: Optional[str] = data["choice_reason"]
        self.diagnosis: List[str] = list(data["diagnosis"])
        # The memory bound applied (0: none), the multi-stream schedules tried against it (streams,
        # syncs, peak_memory_bytes, predicted_ms, fits...) and what it decided, in words.
        self.memory_budget_bytes: int = data["memory_budget_bytes"]
        self.memory_trials: List[Dict[str, Any]] = list(data["memory_trials"])
        self.memory_choice: str = data["memory_choice"]
        # Several input shapes (``batch_sizes`` / ``buckets``): each one's own report, in the order given
        # (the figures above are the first's); empty for one shape.
        self.buckets: List[AccelerateReport] = [AccelerateReport(b) for b in data.get("buckets", [])]
        # Graph pools: each bucket's chosen mode captured in a pool of its own (as the bucket reports
        # show), together, and the model.nimble captured as its runners capture it, one pool shared by
        # all (bytes; 0 for one shape).
        self.separate_pool_bytes: int = data.get("separate_pool_bytes", 0)
        self.shared_pool_bytes: int = data.get("shared_pool_bytes", 0)

    @property
    def inputs(self) -> str:
        """The inputs as --input writes them ("1x3x224x224")."""
        return self._data["inputs"]

    @property
    def chosen_mode(self) -> Optional[ModeReport]:
        for mode in (self.single, self.multi):
            if mode is not None and mode.mode == self.chosen:
                return mode
        return None

    @property
    def measured_ms(self) -> Optional[float]:
        """Median replay latency of the chosen mode."""
        mode = self.chosen_mode
        return None if mode is None else mode.measured_ms

    @property
    def predicted_ms(self) -> Optional[float]:
        mode = self.chosen_mode
        return None if mode is None else mode.predicted_ms

    @property
    def speedup(self) -> Optional[float]:
        """libtorch baseline / chosen mode, both measured."""
        measured = self.measured_ms
        return None if not measured else self.baseline_ms / measured

    @property
    def assignment(self) -> Optional[Dict[str, Any]]:
        mode = self.chosen_mode
        return None if mode is None else mode.assignment

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(json.dumps(self._data))

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self._data, indent=indent)

    def __repr__(self) -> str:
        return f"<nimble.AccelerateReport {self._data['model']} ({self._data['inputs']}): {self.chosen}>"

    def __str__(self) -> str:
        d = self._data
        layout = " (convolutions channels_last)" if self.memory_format == "channels_last" else ""
        rows = [f"model {d['model']} ({d['inputs']}) on {d['device']}: {d['ops']} ops{layout}",
                "| mode | measured ms | predicted ms | vs libtorch | streams | syncs | max rel err "
                "| peak MiB alloc / reserved | graph pool MiB |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
                f"| libtorch (module.forward) | {self.baseline_ms:.3f} | {self.predicted_eager_ms:.3f} | 1.00x | 1 | 0 | - "
                f"| {self.baseline_peak_allocated_bytes / 2**20:.1f} / {self.baseline_peak_memory_bytes / 2**20:.1f} | - |"]
        for m in (self.single, self.multi):
            if m is not None:
                rows.append(f"| {m.mode} | {m.measured_ms:.3f} | {m.predicted_ms:.3f} | "
                            f"{self.baseline_ms / m.measured_ms:.2f}x | {m.streams} | {m.syncs} | "
                            f"{m.max_rel_error:.3g} | {m.peak_allocated_bytes / 2**20:.1f} / "
                            f"{m.peak_memory_bytes / 2**20:.1f} | {m.graph_pool_bytes / 2**20:.1f} |")
        if self.output_reference:
            rows.append(f"max rel err: against the frozen graph the captures came from; against {self.output_reference}: " +
                        ", ".join(f"{m.mode} {m.max_rel_error_unmodified:.3g}" for m in (self.single, self.multi)
                                  if m is not None and m.max_rel_error_unmodified is not None))
        if self.unmodified_error_float32 is not None:
            rows.append("against it computed in float32: " +
                        ", ".join(f"{m.mode} {m.max_rel_error_float32:.3g}" for m in (self.single, self.multi)
                                  if m is not None and m.max_rel_error_float32 is not None) +
                        f"; the file's model at its dtype {self.unmodified_error_float32:.3g}")
        if self.memory_choice:
            rows.append(self.memory_choice)
        rows.append(f"chosen: {self.chosen}: {self.choice_reason}")
        rows.extend(f"prediction off by more than 15%: {line}" for line in self.diagnosis)
        if self.buckets:
            rows += ["", "| inputs | libtorch ms | aot-single ms | aot-multi ms | multi vs single | runs |",
                     "| --- | --- | --- | --- | --- | --- |"]
            for b in self.buckets:
                multi = f"{b.multi.measured_ms:.3f}" if b.multi else "-"
                gain = f"{b.single.measured_ms / b.multi.measured_ms:.2f}x" if b.multi and b.single else "-"
                single = f"{b.single.measured_ms:.3f}" if b.single else "-"
                rows.append(f"| {b.inputs} | {b.baseline_ms:.3f} | {single} | {multi} | {gain} | {b.chosen} |")
            rows.append(f"graph pools: {self.separate_pool_bytes / 2**20:.1f} MiB a pool per bucket, "
                        f"{self.shared_pool_bytes / 2**20:.1f} MiB in one shared pool")
        return "\n".join(rows)


class AcceleratedModule(torch.nn.Module):
    """A model captured into one CUDA graph. Called with tensors of the captured shapes, dtypes and
    device, it copies them into the graph's input buffers on the current CUDA stream, replays the
    graph there and returns what the model returns. As with ``torch.cuda.CUDAGraph`` and
    ``torch.compile(mode="reduce-overhead")``, the returned tensors are the graph's output buffers,
    overwritten by the next call (with several buckets, a call of any bucket may overwrite the buffers
    another bucket returned: they share one memory pool): ``.clone()`` what you keep, or pass
    ``copy_outputs=True``. They are
    inference tensors (as under ``torch.inference_mode()``): not for in-place changes or autograd
    outside it; clones are ordinary tensors. The call records no autograd graph.
    A wrong shape, dtype, device or number of inputs raises ValueError and launches nothing."""

    def __init__(self, runner: "_C.Runner", artifact: str, report: Optional[AccelerateReport],
                 outputs: Optional[_inputs.OutputSpec], copy_outputs: bool, workdir: Optional[str]) -> None:
        super().__init__()
        self._runner = runner
        self._run = runner.run
        self._artifact = artifact
        self.report = report
        self._outputs = outputs
        self._copy_outputs = bool(copy_outputs)
        self.meta: Dict[str, Any] = json.loads(runner.meta_json)
        if workdir is not None:
            weakref.finalize(self, shutil.rmtree, workdir, True)

    def forward(self, *inputs: torch.Tensor) -> Any:
        outputs = self._run(inputs)
        if self._copy_outputs:
            outputs = [t.clone() for t in outputs]
        if self._outputs is None:
            return _inputs.flat_outputs(outputs)
        return self._outputs.restore(outputs)

    @property
    def input_shapes(self) -> List[List[int]]:
        return [list(s) for s in self._runner.input_shapes]

    @property
    def input_specs(self) -> List[str]:
        """The captured inputs as --input writes them: "1x3x224x224", "1x128:int64:0..50256" (with several
        buckets: of the bucket the last call ran, the first before any; ``buckets`` lists them all)."""
        return list(self._runner.input_specs)

    @property
    def mode(self) -> str:
        """The schedule captured: "aot-single" or "aot-multi" (of the first bucket; see ``buckets``)."""
        return self.meta["mode"]

    @property
    def buckets(self) -> List[List[str]]:
        """The input shapes captured, one list of specs per bucket in --input's form: one bucket unless
        the model.nimble was made with ``batch_sizes`` or ``buckets``. A call runs the bucket whose shapes
        its inputs have; inputs of other shapes raise ValueError naming them all."""
        return [list(b) for b in self._runner.bucket_specs]

    @property
    def capture_stats(self) -> Dict[str, int]:
        """streams, events, warmup_ns, capture_ns, peak_allocated_bytes, peak_memory_bytes (reserved) and
        graph_pool_bytes of this capture, memory above the weights and inputs (with several buckets: of
        the bucket the last call ran, the first before any; graph_pool_bytes is what it added to the
        shared pool), and memset_nodes_replaced and memset_nodes_kept: the capture's small memset nodes
        run as kernels, and those left as they were."""
        return dict(self._runner.capture_stats)

    def latencies_ns(self, iters: int = 200, bucket: Optional[int] = None) -> List[int]:
        """``iters`` replays timed as ``nimble-run`` times them (CUDA events around the input copy and
        the replay, on the graph's own stream), of bucket ``bucket`` (an index into ``buckets``;
        default: the one the last call ran, the first before any)."""
        if iters < 1:
            raise ValueError(f"iters must be at least 1, got {iters}")
        if bucket is None:
            return list(self._runner.latencies(int(iters)))
        if not 0 <= bucket < len(self._runner.bucket_specs):
            raise ValueError(f"bucket {bucket}: this model has {len(self._runner.bucket_specs)} bucket(s)")
        return list(self._runner.bucket_latencies(int(bucket), int(iters)))

    def latency_ms(self, iters: int = 200, bucket: Optional[int] = None) -> float:
        """Median of ``latencies_ns(iters, bucket)``, in ms."""
        return statistics.median_high(self.latencies_ns(iters, bucket)) / 1e6

    def save(self, path: "str | os.PathLike[str]") -> None:
        """Writes the model.nimble that ``nimble-run``, ``nimble::Runner`` and ``nimble.load`` read
        (whole or not at all)."""
        path = os.fspath(path)
        if os.path.isdir(path):
            raise IsADirectoryError(f"{path}: is a directory")
        partial = path + ".partial"
        try:
            shutil.copyfile(self._artifact, partial)
            os.replace(partial, path)
        except BaseException:
            if os.path.exists(partial):
                os.remove(partial)
            raise

    def _apply(self, fn: Any, recurse: bool = True) -> "AcceleratedModule":
        # .to(), .cuda(), .half() and the like would change nothing in a captured graph: say so.
        raise RuntimeError("an AcceleratedModule is captured for its device and dtype: accelerate the model "
                           "again for another one")

    def __reduce__(self) -> Any:
        raise TypeError("an AcceleratedModule holds a captured CUDA graph and cannot be pickled or copied: "
                        "use .save(path) and nimble.load(path)")

    def extra_repr(self) -> str:
        return f"mode={self.mode}, inputs={','.join(self.input_specs)}, source={self.meta.get('source_model', '')!r}"


def accelerate(model: _inputs.ModelArg, example_inputs: _inputs.Inputs, *, mode: str = "auto",
               max_streams: Optional[int] = None, iters: int = 200, tf32: Optional[bool] = None,
               db: "Optional[str | os.PathLike[str]]" = None, device: "Optional[str | torch.device]" = None,
               cuda_fusions: bool = False, copy_outputs: bool = False,
               memory_budget_mib: Optional[float] = None, memory_ratio: Optional[float] = None,
               record_replays: int = 10, batch_sizes: Optional[Sequence[int]] = None,
               buckets: Optional[Sequence[Sequence[str]]] = None,
               calibration: "Optional[str | os.PathLike[str]]" = None, seed_pool: bool = True,
               memory_format: "str | torch.memory_format" = "auto",
               dump_graphs: "Optional[str | os.PathLike[str]]" = None, conv_epilogues: bool = True,
               cross_stream_reuse: bool = False, branch_release_delay: float = 0.0,
               branch_hold_max_mib: Optional[float] = None, branch_hold_order: str = "wait",
               progress: _progress.ProgressArg = None) -> AcceleratedModule:
    """Schedules ``model`` (an nn.Module, traced on ``example_inputs``; a ScriptModule; a
    ``torch.export`` ExportedProgram; or a path to a .pt2 or TorchScript file) ahead of time as ``nimble-accelerate`` does and returns the captured module.

    ``mode``: "auto" (multi-stream only when measured faster by more than 3%), "single" or "multi".
    ``max_streams``: a cap on the streams of the assignment (streams that never overlap share one).
    ``memory_budget_mib`` / ``memory_ratio``: GPU memory the multi-stream mode may take above the
    weights and inputs (peak reserved of its warm-up and capture), in MiB or as a multiple of
    single-stream's; its schedule is folded onto half as many streams until it fits, then onto the
    most streams that fit, else single-stream is chosen (``report.memory_choice`` says what happened). ``iters``: timed replays per mode.
    ``tf32``: TF32 convolutions on every side (default: as this process's
    ``torch.backends.cudnn.allow_tf32``). ``db``: a nimble-prof run database of this model, whose op
    times the prediction then uses and where the results are stored; ``record_replays`` replays of each
    captured mode are then recorded with the collector and stored as its run (0: results only), beside
    the model's own recording when this call makes one, so ``nimble-gui db`` shows eager, single- and
    multi-stream one above another. ``batch_sizes`` (e.g. ``[1, 2, 4, 8]``): several input shapes in
    one module, the example inputs with dimension 0 set to each; ``buckets``: the shapes given whole,
    one list of --input specs per bucket (``[["2x128:int64"], ["4x128:int64"]]``). Each bucket is
    scheduled, captured, checked against the traced model and timed on its own (``report.buckets``),
    and checked against the eager model on the example repeated to its batch size (buckets that
    differ from the example elsewhere only against the traced model); the module runs the one whose
    shapes a call's inputs have. ``calibration``: a file written by ``nimble-prof calibrate``, saying
    how kernels on several streams share this GPU in the multi-stream prediction (default: the one
    built in for the GPU, if any). ``seed_pool``: capture each mode once more with its graph pool
    seeded per stream where the allocator trace predicts a smaller pool, and keep that capture when it
    measures smaller (``ModeReport.unseeded_graph_pool_bytes``); False: one capture per mode.
    ``memory_format``: the convolutions' layout, "auto" (channels_last for float16 or bfloat16
    convolutions when none is depthwise, unless the model needs NCHW strides; with depthwise ones the
    model is recorded in both layouts and the one whose kernels take less time kept), "contiguous",
    "channels_last" (or torch.contiguous_format, torch.channels_last) or "measure" (any model with
    convolutions recorded in both layouts); ``report.memory_format`` says which ran, and
    ``report.to_dict()["memory_format_choice"]`` what each layout took where both were recorded; 4-D
    outputs of a channels_last model come back channels_last, the same values. ``dump_graphs``: a
    directory (made if missing) to write each captured CUDA graph into as Graphviz dot, every node with
    its type, kernel and launch configuration (``aot-single-1-streams.dot``, ``aot-multi-N-streams.dot``),
    as ``nimble-accelerate --dump-graphs`` does. ``conv_epilogues``: each convolution's bias add,
    residual add and activation (relu, relu6, silu) in one kernel of Nimble's own, with the same
    rounding as ATen's separate kernels (``report.conv_epilogues`` counts them); False keeps ATen's,
    as ``--no-conv-epilogues``. ``cross_stream_reuse``: capture the multi-stream schedule on one
    stream with its streams as branches of the graph, so that its memory pool reuses blocks across
    streams (less memory, some concurrency traded; ``--cross-stream-reuse``); ``branch_release_delay``
    (a fraction of the simulated run, 0 to 1) and ``branch_hold_max_mib`` hold values longer before
    their memory is reused, trading memory back for concurrency (``--branch-release-delay``,
    ``--branch-hold-max-mib``; bench/results/memory.md has NASNet-A large measured).
    ``branch_hold_order``: under a memory budget with ``cross_stream_reuse``, which values the budget's
    holds keep first: "wait" (those costing the fewest bytes per microsecond of wait their hold saves in
    a simulated run) or "size" (the smallest outputs); ``--branch-hold-order``. The
    returned module's ``report`` holds the measured and predicted latencies and the assignment."""
    what = "nimble.accelerate"
    inputs = _inputs.as_tuple(example_inputs, what)
    if mode not in ("auto", "single", "multi"):
        raise ValueError(f"{what}: mode {mode!r}: expected 'auto', 'single' or 'multi'")
    if max_streams is not None and max_streams < 1:
        raise ValueError(f"{what}: max_streams must be at least 1, got {max_streams}")
    if iters < 1:
        raise ValueError(f"{what}: iters must be at least 1, got {iters}")
    if record_replays < 0:
        raise ValueError(f"{what}: record_replays must be 0 or more, got {record_replays}")
    for name, value in (("memory_budget_mib", memory_budget_mib), ("memory_ratio", memory_ratio)):
        if value is not None and not value > 0:
            raise ValueError(f"{what}: {name} must be positive, got {value}")
    if not 0 <= branch_release_delay <= 1:
        raise ValueError(f"{what}: branch_release_delay must be between 0 and 1, got {branch_release_delay}")
    if branch_hold_max_mib is not None and not branch_hold_max_mib > 0:
        raise ValueError(f"{what}: branch_hold_max_mib must be positive, got {branch_hold_max_mib}")
    if branch_hold_order not in ("wait", "size"):
        raise ValueError(f"{what}: branch_hold_order {branch_hold_order!r}: expected 'wait' or 'size'")
    if (branch_release_delay or branch_hold_max_mib) and not cross_stream_reuse:
        raise ValueError(f"{what}: branch_release_delay and branch_hold_max_mib apply with cross_stream_reuse=True")
    layout = _inputs.memory_format(memory_format, what)
    if batch_sizes is not None and buckets is not None:
        raise ValueError(f"{what}: batch_sizes and buckets both give the buckets: use one")
    sizes = [int(b) for b in batch_sizes] if batch_sizes is not None else []
    if batch_sizes is not None and (not sizes or any(b < 1 for b in sizes)):
        raise ValueError(f"{what}: batch_sizes must be a non-empty list of sizes of 1 or more, got {list(batch_sizes)}")
    bucket_specs = [[str(spec) for spec in bucket] for bucket in buckets] if buckets is not None else []
    if calibration is not None:
        _C.read_calibration(os.fspath(calibration))  # a bad file fails before any GPU work
    if dump_graphs:
        try:
            os.makedirs(os.fspath(dump_graphs), exist_ok=True)
        except OSError as e:
            raise ValueError(f"{what}: dump_graphs {os.fspath(dump_graphs)}: not a directory that can be made "
                             f"({e.strerror})") from e
    target = _inputs.cuda_device(inputs, device)
    workdir = tempfile.mkdtemp(prefix="nimble-")
    try:
        model_path, outputs, expected = _inputs.torchscript_file(model, inputs, workdir, what)
        artifact = os.path.join(workdir, "model.nimble")
        command = (f"nimble.accelerate({type(model).__name__}, inputs={_inputs.shapes_text(inputs)}, "
                   f"mode={mode}, max_streams={max_streams})")
        with _precision.preserved(), _inputs.on_device(target):
            text = _C.accelerate(model_path, _inputs.specs(inputs), artifact, os.fspath(db) if db else "", int(iters),
                                 int(max_streams or 0), mode, _precision.default_tf32() if tf32 is None else bool(tf32),
                                 bool(cuda_fusions), target, False, command, _progress.callback(progress),
                                 memory_budget_mib=float(memory_budget_mib or 0), memory_ratio=float(memory_ratio or 0),
                                 record_replays=int(record_replays), batch_sizes=sizes, buckets=bucket_specs,
                                 calibration=os.fspath(calibration) if calibration else "",
                                 seed_pool=bool(seed_pool), memory_format=layout,
                                 dump_graphs=os.fspath(dump_graphs) if dump_graphs else "",
                                 conv_epilogues=bool(conv_epilogues), cross_stream_reuse=bool(cross_stream_reuse),
                                 branch_release_delay=float(branch_release_delay),
                                 branch_hold_max_mib=float(branch_hold_max_mib or 0),
                                 branch_hold_order=branch_hold_order)
            runner = _C.Runner(artifact, target)
        if os.path.dirname(model_path) == workdir:
            os.remove(model_path)  # a copy of the weights; the artifact has its own
        module = AcceleratedModule(runner, artifact, AccelerateReport(json.loads(text)), outputs, copy_outputs,
                                   workdir)
        if outputs is not None:
            example = [list(t.shape) for t in inputs]
            for bucket in runner.bucket_shapes:
                shapes = [list(shape) for shape in bucket]
                if shapes == example:
                    _check_against_eager(module, inputs, outputs, expected, target, what)
                    continue
                # Another batch size: the example repeated along dimension 0, against the model run on it.
                batched = _batched(inputs, shapes)
                if batched is not None:
                    _check_against_eager(module, batched, outputs, _eager_output(model, batched), target, what)
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    return module


def _batched(inputs: Sequence[torch.Tensor], shapes: List[List[int]]) -> Optional[Tuple[torch.Tensor, ...]]:
    """The example inputs repeated (or cut) along dimension 0 to ``shapes``; None when the bucket's
    shapes differ from the example's elsewhere (its inputs would have to be made up)."""
    if len(shapes) != len(inputs):
        return None
    out = []
    for tensor, shape in zip(inputs, shapes):
        if tensor.dim() == 0 or list(tensor.shape[1:]) != shape[1:] or tensor.shape[0] == 0:
            return None
        copies = -(-shape[0] // tensor.shape[0])
        out.append(torch.cat([tensor] * copies)[:shape[0]])
    return tuple(out)


def _eager_output(model: Any, inputs: Sequence[torch.Tensor]) -> Any:
    """What the unmodified model (in eval mode, without autograd) returns on ``inputs``."""
    run = model.module() if isinstance(model, torch.export.ExportedProgram) else model
    was_training = bool(getattr(run, "training", False))
    if was_training:
        run.eval()
    try:
        with torch.no_grad():
            return run(*inputs)
    finally:
        if was_training:
            run.train()


def _check_against_eager(module: AcceleratedModule, inputs: Sequence[torch.Tensor], outputs: _inputs.OutputSpec,
                         expected: Any, device: str, what: str) -> None:
    """The capture on ``inputs`` (the example, or the example batched to a bucket's shape) against the
    eager model's output on them. The C++ workflow
    checked the capture against the traced TorchScript; this catches a trace that does not follow
    the model (control flow on values, which tracing records as one path)."""
    with _inputs.on_device(device):
        flat = module._run(tuple(t.to(device) for t in inputs))
    if len(flat) != outputs.num_tensors:
        raise ValueError(f"{what}: the model returns {outputs.num_tensors} tensors but its TorchScript form "
                         f"{len(flat)}: return tensors, or tuples, lists or dicts of them")
    eager = [t for t in torch.utils._pytree.tree_leaves(expected) if isinstance(t, torch.Tensor)]
    worst = 0.0
    for got, want in zip(flat, eager):
        want = want.to(got.device, got.dtype)
        scale = want.abs().max().item() if want.numel() else 0.0
        if scale > 0:
            worst = max(worst, (got - want).abs().max().item() / scale)
    if worst > 1e-2:
        warnings.warn(f"{what}: on the example inputs the captured model differs from the eager one by "
                      f"{worst:.3g} of its largest output value: the traced graph may not follow the model "
                      "(control flow on tensor values is traced as one path)", _progress.NimbleWarning,
                      stacklevel=3)


def load(path: "str | os.PathLike[str]", *, device: "str | torch.device" = "cuda",
         copy_outputs: bool = False) -> AcceleratedModule:
    """A ``model.nimble`` (from ``nimble-accelerate`` or ``AcceleratedModule.save``) captured in this
    process. It returns a tensor for one output, a tuple for several. FileNotFoundError for a missing
    file, ValueError for one that is not a model.nimble, RuntimeError for one built for another GPU or
    torch, or without a GPU."""
    path = os.fspath(path)
    target = str(torch.device(device))
    with _precision.preserved(), _inputs.on_device(target):
        runner = _C.Runner(path, target)
    return AcceleratedModule(runner, os.path.abspath(path), None, None, copy_outputs, None)
