"""``nimble.accelerate_training``: a whole training step (forward, loss, backward and the optimizer
update) captured ahead of time into one CUDA graph and replayed for every batch, the batch copied into
the capture's static buffers. Where the model's torch.fx graph has width, the forward runs on the
streams of Nimble's assignment (the C++ plan step), and autograd runs each backward op on its forward
op's stream; the single- and multi-stream captures are both measured and the faster one is kept.
Before it returns, the capture is checked against eager training from the same weights and batches."""

from __future__ import annotations

import json
import statistics
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import torch

from . import _C, _progress, _train_graph, _train_state

# Largest relative difference from eager training, after the check's steps, that passes silently in
# float32. Replays run the eager step's kernels, so what differs is the order of atomic adds in some
# backward kernels (cuDNN weight gradients), which a few SGD steps amplify.
_CHECK_TOLERANCE = {torch.float32: 1e-3, torch.float16: 1e-2, torch.bfloat16: 5e-2}

# The shared-memory carveout the multi-stream capture is also made with, on its kernel nodes that use no
# shared memory (accelerate/src/smem_carveout.h), and the gain it must measure to be kept, as
# nimble-accelerate and the C++ TrainingStep choose.
_TRIED_CARVEOUT = 100
_MIN_CARVEOUT_GAIN = 0.01
_CARVEOUT_ALTERNATE = "aot-multi carveout"


class TrainingReport:
    """What ``accelerate_training`` measured: one step's latency (ms, wall clock over ``iters`` steps)
    in eager PyTorch and in each captured schedule, the schedule kept and why, the assignment's
    streams and syncs, and the parity check against eager training."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data
        self.eager_ms: float = data["eager_ms"]
        self.single_ms: float = data["single_ms"]
        self.multi_ms: Optional[float] = data["multi_ms"]
        self.chosen: str = data["chosen"]
        self.choice_reason: str = data["choice_reason"]
        self.batch_size: int = data["batch_size"]
        self.streams: int = data["streams"]
        self.syncs: int = data["syncs"]
        self.logical_concurrency: Optional[int] = data["logical_concurrency"]
        self.check: Dict[str, Any] = data["check"]
        # Batch-norm modules whose step counters the captures add in one kernel (_train_state.BatchNormCounters).
        self.batch_norm_counters: int = data.get("batch_norm_counters", 0)
        # The kept capture's small memset nodes replaced by kernels writing the same bytes, and those left.
        self.memset_nodes_replaced: int = data.get("memset_nodes_replaced", 0)
        self.memset_nodes_kept: int = data.get("memset_nodes_kept", 0)
        # The kept capture's shared-memory carveout on its kernel nodes without shared memory (-1: each
        # kernel's own), how many there are, and the multi-stream step measured with the other carveout
        # (None: not measured).
        self.smem_carveout: int = data.get("smem_carveout", -1)
        self.carveout_nodes: int = data.get("carveout_nodes", 0)
        self.carveout_other_ms: Optional[float] = data.get("carveout_other_ms")
        self.multi_smem_carveout: Optional[int] = data.get("multi_smem_carveout")  # the multi-stream capture's

    @property
    def step_ms(self) -> float:
        """Latency of one step of the schedule kept."""
        return self.multi_ms if self.chosen == "aot-multi" and self.multi_ms is not None else self.single_ms

    @property
    def speedup(self) -> float:
        """Eager step time / captured step time."""
        return self.eager_ms / self.step_ms

    @property
    def samples_per_s(self) -> float:
        return self.batch_size / self.step_ms * 1e3

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(json.dumps(self._data))

    def __repr__(self) -> str:
        return f"<nimble.TrainingReport {self.chosen}: {self.step_ms:.3f} ms/step, {self.speedup:.2f}x over eager>"

    def __str__(self) -> str:
        d = self._data
        rows = [f"training step of {d['model']} (batch {self.batch_size}, {d['ops']} traced ops) on {d['device']}",
                "| schedule | ms/step | samples/s | vs eager | streams | syncs |",
                "| --- | --- | --- | --- | --- | --- |",
                f"| PyTorch eager | {self.eager_ms:.3f} | {self.batch_size / self.eager_ms * 1e3:.0f} | 1.00x | 1 | 0 |",
                f"| aot-single | {self.single_ms:.3f} | {self.batch_size / self.single_ms * 1e3:.0f} | "
                f"{self.eager_ms / self.single_ms:.2f}x | 1 | 0 |"]
        if self.multi_ms is not None:
            rows.append(f"| aot-multi | {self.multi_ms:.3f} | {self.batch_size / self.multi_ms * 1e3:.0f} | "
                        f"{self.eager_ms / self.multi_ms:.2f}x | {self.streams} | {self.syncs} |")
        rows.append(f"chosen: {self.chosen}: {self.choice_reason}")
        if self.carveout_other_ms is not None and self.multi_ms is not None:
            kept = "100 %" if self.multi_smem_carveout == _TRIED_CARVEOUT else "each kernel's own"
            other = "each kernel's own" if self.multi_smem_carveout == _TRIED_CARVEOUT else "100 %"
            rows.append(f"multi-stream shared-memory carveout: {kept} ({self.multi_ms:.3f} ms), "
                        f"{other} {self.carveout_other_ms:.3f} ms")
        if self.memset_nodes_replaced or self.memset_nodes_kept:
            rows.append(f"memset nodes: {self.memset_nodes_replaced} run as kernels, {self.memset_nodes_kept} kept")
        c = self.check
        if c["steps"]:
            rows.append(f"check: {c['steps']} steps against eager training: loss within {c['max_loss_rel_diff']:.2g}, "
                        f"parameters within {c['max_param_rel_diff']:.2g} (relative, L2 over all parameters)")
        return "\n".join(rows)


class _Capture:
    """One captured step: the graph, the loss it writes and the gradients it fills."""

    def __init__(self, graph: torch.cuda.CUDAGraph, loss: torch.Tensor, grads: List[Optional[torch.Tensor]],
                 capture_s: float, memsets: Dict[str, int], carveout: int, carveout_nodes: int) -> None:
        self.graph = graph
        self.loss = loss
        self.grads = grads
        self.capture_s = capture_s
        self.memsets = memsets  # memset_nodes_replaced / memset_nodes_kept
        self.carveout = carveout  # asked of its kernel nodes without shared memory; -1: each kernel's own
        self.carveout_nodes = carveout_nodes


class TrainingStep:
    """A captured training step. ``step(*batch)`` copies the batch (model inputs, then targets, of the
    captured shapes, dtypes and device) into the capture's buffers, replays forward, backward and the
    optimizer update, and returns the loss (a fresh tensor; ``copy_loss=False`` returns the capture's
    own, overwritten by the next step). The model's parameters and ``.grad`` are updated in place, as
    an eager step would. Changing the optimizer's settings (a learning-rate schedule) after the capture
    raises RuntimeError: the capture replays the values it was made with, so capture again."""

    def __init__(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, static: List[torch.Tensor],
                 capture: _Capture, hyper: List[Dict[str, Any]], report: TrainingReport, copy_loss: bool,
                 keep_alive: Sequence[Any]) -> None:
        self.model = model
        self.optimizer = optimizer
        self.report = report
        self._static = static
        self._graph = capture.graph
        self._loss = capture.loss
        self._hyper = hyper
        self._copy_loss = copy_loss
        self._keep_alive = list(keep_alive)

    @property
    def mode(self) -> str:
        """The schedule captured: "aot-single" or "aot-multi"."""
        return self.report.chosen

    def __call__(self, *batch: torch.Tensor) -> torch.Tensor:
        static = self._static
        if len(batch) != len(static):
            raise ValueError(f"the step was captured for {len(static)} tensors (inputs, then targets), got {len(batch)}")
        for i, (t, s) in enumerate(zip(batch, static)):
            if not isinstance(t, torch.Tensor) or t.shape != s.shape or t.dtype != s.dtype or t.device != s.device:
                got = (f"{type(t).__name__}" if not isinstance(t, torch.Tensor)
                       else f"{tuple(t.shape)} {t.dtype} on {t.device}")
                raise ValueError(f"batch tensor {i}: captured as {tuple(s.shape)} {s.dtype} on {s.device}, got {got}")
        changed = _train_state.changed_hyperparameter(self.optimizer, self._hyper)
        if changed is not None:
            raise RuntimeError(f"the optimizer changed since the capture ({changed}): a captured step replays "
                               "the settings it was captured with; call nimble.accelerate_training again")
        for s, t in zip(static, batch):
            s.copy_(t, non_blocking=True)
        self._graph.replay()
        return self._loss.clone() if self._copy_loss else self._loss

    def __repr__(self) -> str:
        return f"<nimble.TrainingStep {self.mode}, {self.report.step_ms:.3f} ms/step>"


def accelerate_training(model: torch.nn.Module, loss_fn: Callable[..., torch.Tensor],
                        optimizer: torch.optim.Optimizer, example_batch: Sequence[torch.Tensor], *,
                        num_inputs: int = 1, mode: str = "auto", max_streams: Optional[int] = None,
                        iters: int = 50, warmup: int = 3, check_steps: int = 3, cudnn_benchmark: bool = True,
                        copy_loss: bool = True, smem_carveout: Union[str, int] = "measure") -> TrainingStep:
    """Captures ``model``'s training step ahead of time and returns it as a callable.

    ``example_batch``: the batch tensors, the model's ``num_inputs`` inputs first, then what
    ``loss_fn(output, *rest)`` takes besides the output (e.g. ``(images, labels)``). All on the
    model's CUDA device; every later batch must have the same shapes and dtypes.
    ``optimizer``: torch.optim.SGD (dampening 0 with momentum), Adam or AdamW (capturable=True or
    fused=True) over the model's parameters; others are refused with the reason.
    ``mode``: "auto" (multi-stream forward only when measured faster by more than 3%), "single" or
    "multi"; ``max_streams`` caps the forward's streams. ``iters``: steps timed per schedule.
    ``check_steps``: steps of the parity check against eager training (0 to skip); a difference above
    the tolerance of the parameters' dtype warns. ``cudnn_benchmark``: let cuDNN time its convolution
    algorithms during the warm-up, so that the capture holds the fastest for these shapes (the
    process's own ``torch.backends.cudnn.benchmark`` is set back afterwards). ``smem_carveout``: the
    shared-memory carveout of the kernels that use no shared memory (SMs running such kernels otherwise
    turn away the blocks of a concurrent kernel that needs shared memory); "measure" captures the
    multi-stream step with each kernel's own and again (in the same memory pool) with 100 %, and keeps
    the second only where it is more than 1 % faster; a percentage (0-100) or "keep" is asked of every
    capture. The model, its buffers and the optimizer state are left as they were given: the warm-up,
    the timing and the check do not train it."""
    what = "nimble.accelerate_training"
    carveout = _carveout_percent(smem_carveout, what)
    params, batch, device = _validate(model, loss_fn, optimizer, example_batch, num_inputs, mode, max_streams,
                                      iters, warmup, check_steps, what)
    inputs, targets = list(batch[:num_inputs]), list(batch[num_inputs:])
    graph, assignment, no_multi = _plan(model, mode, max_streams, what)
    static = [t.detach().clone() for t in batch]
    snapshot = _train_state.Snapshot(model, optimizer)
    reference = _train_state.reference_copy(model, optimizer) if check_steps else None
    counters = _train_state.BatchNormCounters(model)
    forwards: Dict[str, Callable[..., Any]] = {"aot-single": model}
    if assignment is not None and no_multi is None:
        forwards["aot-multi"] = _train_graph.StreamForward(graph, assignment, device)

    def body(forward: Callable[..., Any], tensors: Sequence[torch.Tensor]) -> torch.Tensor:
        output = forward(*tensors[:num_inputs])
        counters.add()  # in the captures: batch norm's counters in one kernel
        loss = loss_fn(output, *tensors[num_inputs:])
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise ValueError(f"{what}: loss_fn must return a one-element tensor, got "
                             f"{type(loss).__name__ if not isinstance(loss, torch.Tensor) else tuple(loss.shape)}")
        loss.backward()
        optimizer.step()
        return loss

    user_benchmark = torch.backends.cudnn.benchmark
    torch.backends.cudnn.benchmark = cudnn_benchmark or user_benchmark
    try:
        with counters:
            _warm_up(forwards, body, optimizer, static, warmup, what)
            snapshot.restore()
            captures = _capture_all(forwards, body, optimizer, params, static, what, carveout)
    finally:
        torch.backends.cudnn.benchmark = user_benchmark

    def eager() -> None:
        optimizer.zero_grad(set_to_none=True)
        body(model, static)

    timed = _time_side_by_side({"eager": eager, **{name: _replay_run(c.graph, static, batch)
                                                   for name, c in captures.items()}}, iters)
    eager_ms = timed.pop("eager")
    carveout_other_ms = _keep_faster_carveout(captures, timed)
    snapshot.restore()
    chosen, reason = _choose(mode, timed, no_multi)
    check = _check(reference, loss_fn, inputs, targets, captures[chosen], params, static, check_steps, what)
    snapshot.restore()
    for p, g in zip(params, captures[chosen].grads):
        p.grad = g
    multi = assignment if "aot-multi" in captures else None
    report = TrainingReport({
        "model": type(model).__name__, "device": str(device), "batch_size": int(batch[0].shape[0]) if batch[0].dim() else 1,
        "ops": len(graph.nodes) if graph is not None else None,
        "eager_ms": eager_ms, "single_ms": timed["aot-single"], "multi_ms": timed.get("aot-multi"),
        "chosen": chosen, "choice_reason": reason,
        "streams": multi["streams"] if chosen == "aot-multi" and multi else 1,
        "syncs": len(multi["syncs"]) if chosen == "aot-multi" and multi else 0,
        "multi_streams": multi["streams"] if multi else None, "multi_syncs": len(multi["syncs"]) if multi else None,
        "logical_concurrency": assignment["logical_concurrency"] if assignment else None,
        "capture_s": {name: c.capture_s for name, c in captures.items()},
        "check": check, "iters": iters, "batch_norm_counters": len(counters.counters),
        **captures[chosen].memsets, "smem_carveout": captures[chosen].carveout,
        "carveout_nodes": captures[chosen].carveout_nodes, "carveout_other_ms": carveout_other_ms,
        "multi_smem_carveout": captures["aot-multi"].carveout if "aot-multi" in captures else None})
    kept = captures[chosen]
    return TrainingStep(model, optimizer, static, kept, _train_state.hyperparameters(optimizer), report, copy_loss,
                        keep_alive=[forwards.get(chosen)])


def _validate(model: Any, loss_fn: Any, optimizer: Any, example_batch: Any, num_inputs: int, mode: str,
              max_streams: Optional[int], iters: int, warmup: int, check_steps: int, what: str
              ) -> Tuple[List[torch.nn.Parameter], List[torch.Tensor], torch.device]:
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"{what}: model must be a torch.nn.Module, got {type(model).__name__}")
    if not callable(loss_fn):
        raise TypeError(f"{what}: loss_fn must be callable, got {type(loss_fn).__name__}")
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"{what}: optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    if mode not in ("auto", "single", "multi"):
        raise ValueError(f"{what}: mode {mode!r}: expected 'auto', 'single' or 'multi'")
    for name, value, least in (("num_inputs", num_inputs, 1), ("iters", iters, 1), ("warmup", warmup, 1),
                               ("check_steps", check_steps, 0), ("max_streams", max_streams or 1, 1)):
        if value < least:
            raise ValueError(f"{what}: {name} must be at least {least}, got {value}")
    if isinstance(example_batch, torch.Tensor) or not isinstance(example_batch, (tuple, list)):
        raise TypeError(f"{what}: example_batch must be a tuple of tensors (inputs, then targets), "
                        f"got {type(example_batch).__name__}")
    batch = list(example_batch)
    if len(batch) < num_inputs:
        raise ValueError(f"{what}: example_batch has {len(batch)} tensors but num_inputs is {num_inputs}")
    for i, t in enumerate(batch):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{what}: batch item {i} is {type(t).__name__}, not a tensor")
    refusal = _train_state.optimizer_refusal(optimizer)
    if refusal is not None:
        raise NotImplementedError(f"{what}: {refusal}")
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError(f"{what}: the model has no parameter that requires grad")
    owned = {id(p) for p in model.parameters()}
    for g in optimizer.param_groups:
        for p in g["params"]:
            if id(p) not in owned:
                raise ValueError(f"{what}: the optimizer updates a tensor of shape {tuple(p.shape)} that is not one "
                                 "of the model's parameters")
    device = params[0].device
    if device.type != "cuda":
        raise ValueError(f"{what}: the model is on {device}; a captured step runs on a CUDA device: model.cuda()")
    for i, t in enumerate(batch):
        if t.device != device:
            raise ValueError(f"{what}: batch item {i} is on {t.device}, the model on {device}")
    if not torch.is_grad_enabled():
        raise RuntimeError(f"{what}: gradients are disabled here (torch.no_grad or inference_mode); "
                           "a training step needs them")
    return params, batch, device


def _plan(model: torch.nn.Module, mode: str, max_streams: Optional[int], what: str
          ) -> Tuple[Optional[_train_graph.OpGraph], Optional[Dict[str, Any]], Optional[str]]:
    """The traced graph, its assignment, and why there is no multi-stream schedule (None if there is)."""
    if mode == "single":
        return None, None, "mode='single' was asked for"
    graph, why = _train_graph.trace(model)
    if graph is None:
        if mode == "multi":
            raise ValueError(f"{what}: mode='multi' needs the model's op graph, but {why}")
        return None, None, why
    assignment = _train_graph.plan(graph, max_streams)
    if assignment["streams"] < 2:
        return graph, assignment, "the traced graph has no width (every op depends on the one before)"
    return graph, assignment, None


def _warm_up(forwards: Dict[str, Callable[..., Any]], body: Callable[..., torch.Tensor],
             optimizer: torch.optim.Optimizer, static: Sequence[torch.Tensor], warmup: int, what: str) -> None:
    """Eager steps on a side stream, as torch.cuda.graph asks: they create the optimizer state, warm
    cuDNN and cuBLAS on every stream the capture uses, and (the second step, under torch's sync debug
    mode) find any host synchronization, which a capture cannot hold."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for forward in forwards.values():
            for k in range(warmup + 1):
                optimizer.zero_grad(set_to_none=True)
                if k != 1:
                    body(forward, static)
                    continue
                previous = torch.cuda.get_sync_debug_mode()
                torch.cuda.set_sync_debug_mode("error")
                try:
                    body(forward, static)
                except RuntimeError as e:
                    if "synchroniz" not in str(e):
                        raise
                    raise RuntimeError(f"{what}: the training step synchronizes with the host ({e}); a captured "
                                       "step cannot (data-dependent control flow, .item(), or a host-side "
                                       "optimizer cause this)") from e
                finally:
                    torch.cuda.set_sync_debug_mode(previous)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()


def _carveout_percent(smem_carveout: Union[str, int], what: str) -> Optional[int]:
    """None for "measure", -1 for "keep", else the percentage, checked."""
    if smem_carveout == "measure":
        return None
    if smem_carveout == "keep":
        return -1
    if isinstance(smem_carveout, bool) or not isinstance(smem_carveout, int) or not 0 <= smem_carveout <= 100:
        raise ValueError(f"{what}: smem_carveout {smem_carveout!r}: expected 'measure', 'keep' or a percentage "
                         "from 0 to 100")
    return smem_carveout


def _capture(forward: Callable[..., Any], body: Callable[..., torch.Tensor], optimizer: torch.optim.Optimizer,
             params: Sequence[torch.nn.Parameter], static: Sequence[torch.Tensor], what: str,
             carveout: int, pool: Optional[Tuple[int, int]] = None) -> _Capture:
    optimizer.zero_grad(set_to_none=True)
    # The cudaGraph_t is kept until instantiate(), so that its small memset nodes become kernels first
    # (a memset node costs a replay more; accelerate/src/memset_nodes.h), as nimble.accelerate's are.
    graph = torch.cuda.CUDAGraph(keep_graph=True)
    start = time.perf_counter()
    try:
        with torch.cuda.graph(graph, pool=pool):
            loss = body(forward, static)
            if isinstance(forward, _train_graph.StreamForward):
                forward.join(torch.cuda.current_stream())  # backward work autograd queued on side streams
        memsets = _C.rewrite_memset_nodes(graph.raw_cuda_graph())
        carveout_nodes = _C.set_kernel_carveout(graph.raw_cuda_graph(), carveout)
        graph.instantiate()
    except RuntimeError as e:
        raise RuntimeError(f"{what}: the training step could not be captured into a CUDA graph: {e}") from e
    torch.cuda.synchronize()
    grads = [p.grad for p in params]
    # Detached, so that the capture's autograd graph is freed: kept alive, its AccumulateGrad nodes would
    # serve later backward passes on the capture's streams.
    return _Capture(graph, loss.detach(), grads, time.perf_counter() - start, dict(memsets), carveout,
                    carveout_nodes)


def _capture_all(forwards: Dict[str, Callable[..., Any]], body: Callable[..., torch.Tensor],
                 optimizer: torch.optim.Optimizer, params: Sequence[torch.nn.Parameter],
                 static: Sequence[torch.Tensor], what: str, carveout: Optional[int]) -> Dict[str, _Capture]:
    """A capture per forward, `carveout` asked of each (None: measured, each kernel's own here) and,
    measured, the multi-stream one again with _TRIED_CARVEOUT where it has kernels without shared memory."""
    asked = -1 if carveout is None else carveout
    captures = {name: _capture(forward, body, optimizer, params, static, what, asked)
                for name, forward in forwards.items()}
    if carveout is None and "aot-multi" in captures and captures["aot-multi"].carveout_nodes:
        alternate = _capture_carveout_alternate(forwards["aot-multi"], body, optimizer, params, static, what,
                                                captures["aot-multi"])
        if alternate is not None:
            captures[_CARVEOUT_ALTERNATE] = alternate
    return captures


def _replay_run(graph: torch.cuda.CUDAGraph, static: Sequence[torch.Tensor],
                batch: Sequence[torch.Tensor]) -> Callable[[], None]:
    """What TrainingStep.__call__ does on the GPU: the batch copied in, the graph replayed."""
    def run() -> None:
        for s, t in zip(static, batch):
            s.copy_(t, non_blocking=True)
        graph.replay()
    return run


def _capture_carveout_alternate(forward: Callable[..., Any], body: Callable[..., torch.Tensor],
                                optimizer: torch.optim.Optimizer, params: Sequence[torch.nn.Parameter],
                                static: Sequence[torch.Tensor], what: str, multi: _Capture) -> Optional[_Capture]:
    """The multi-stream step captured again with _TRIED_CARVEOUT, in the first capture's memory pool: the
    two are never replayed at once, and each replay reads only the inputs, the weights, the optimizer's
    state and what it writes itself, so the second reuses the first's temporaries (its own loss and
    gradients stay apart, being alive). None, with a warning, where it cannot be captured: the
    measurement is then skipped and the first capture stands."""
    try:
        return _capture(forward, body, optimizer, params, static, what, _TRIED_CARVEOUT, pool=multi.graph.pool())
    except RuntimeError as e:
        warnings.warn(f"{what}: the multi-stream step was not captured a second time with the shared-memory "
                      f"carveout, so each kernel's own is kept: {e}", _progress.NimbleWarning, stacklevel=4)
        return None


def _round_order(names: List[str], r: int) -> List[str]:
    """Round `r`'s order: rotated by r // 2, reversed in odd rounds. Over any two rounds 2k and 2k+1 each
    pair of runs goes once in each order."""
    k = (r // 2) % len(names)
    order = names[k:] + names[:k]
    return order[::-1] if r % 2 else order


def _time_side_by_side(runs: Dict[str, Callable[[], None]], iters: int) -> Dict[str, float]:
    """Wall-clock ms per call of each run over `iters` calls, after 3 untimed ones: steps per second as a
    training loop sees them. Median of 4 rounds; in each round every run is timed once, in an order that
    rotates and reverses from round to round, so that a drift in clocks or temperature falls on all of
    them and any two runs go in either order equally often."""
    names = list(runs)
    for name in names:
        for _ in range(3):
            runs[name]()
    rounds: Dict[str, List[float]] = {name: [] for name in names}
    for r in range(4):
        for name in _round_order(names, r):
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(iters):
                runs[name]()
            torch.cuda.synchronize()
            rounds[name].append((time.perf_counter() - start) * 1e3 / iters)
    return {name: statistics.median(times) for name, times in rounds.items()}


def _keep_faster_carveout(captures: Dict[str, _Capture], timed: Dict[str, float]) -> Optional[float]:
    """The multi-stream capture made with _TRIED_CARVEOUT replaces the other where it measured more than
    _MIN_CARVEOUT_GAIN faster; the one not kept is dropped. Returns its time (None: none was made)."""
    if _CARVEOUT_ALTERNATE not in captures:
        return None
    alternate, alternate_ms = captures.pop(_CARVEOUT_ALTERNATE), timed.pop(_CARVEOUT_ALTERNATE)
    if alternate_ms < timed["aot-multi"] * (1 - _MIN_CARVEOUT_GAIN):
        captures["aot-multi"], alternate = alternate, captures["aot-multi"]
        timed["aot-multi"], alternate_ms = alternate_ms, timed["aot-multi"]
    torch.cuda.synchronize()
    alternate.graph.reset()
    return alternate_ms


def _choose(mode: str, timed: Dict[str, float], no_multi: Optional[str]) -> Tuple[str, str]:
    single = timed["aot-single"]
    multi = timed.get("aot-multi")
    if multi is None:
        return "aot-single", no_multi or "no multi-stream schedule"
    if mode == "single":
        return "aot-single", "mode='single' was asked for"
    if mode == "multi":
        return "aot-multi", "mode='multi' was asked for"
    if multi < single * 0.97:
        return "aot-multi", f"multi-stream measured {single / multi:.2f}x faster than single-stream"
    return "aot-single", (f"multi-stream measured {multi:.3f} ms against {single:.3f} ms: not more than 3% "
                          "faster, so one stream")


def _check(reference: Optional[Tuple[torch.nn.Module, torch.optim.Optimizer]], loss_fn: Callable[..., torch.Tensor],
           inputs: Sequence[torch.Tensor], targets: Sequence[torch.Tensor], capture: _Capture,
           params: Sequence[torch.nn.Parameter], static: Sequence[torch.Tensor], steps: int, what: str
           ) -> Dict[str, Any]:
    """`steps` eager steps on the reference copy against as many replays, from the same weights and
    random-number state and on the example batch: the losses' largest difference over the largest loss,
    and the parameters' relative distance (`parameter_distance`)."""
    result: Dict[str, Any] = {"steps": steps, "max_loss_rel_diff": None, "max_param_rel_diff": None}
    if reference is None or not steps:
        return result
    twin, twin_optimizer = reference
    rng = torch.cuda.get_rng_state()
    expected = []
    for _ in range(steps):
        twin_optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(twin(*inputs), *targets)
        loss.backward()
        twin_optimizer.step()
        expected.append(loss.detach().clone())
    torch.cuda.set_rng_state(rng)
    got = []
    for _ in range(steps):
        capture.graph.replay()
        got.append(capture.loss.detach().clone())
    torch.cuda.synchronize()
    result["max_loss_rel_diff"] = relative_difference(torch.stack(got), torch.stack(expected))
    twin_params = [p for p in twin.parameters() if p.requires_grad]
    result["max_param_rel_diff"] = parameter_distance(params, twin_params)
    tolerance = _CHECK_TOLERANCE.get(params[0].dtype, 1e-2)
    worst = max(result["max_loss_rel_diff"], result["max_param_rel_diff"])
    if worst > tolerance:
        warnings.warn(f"{what}: after {steps} steps the captured step differs from eager training by {worst:.3g} "
                      f"(relative; tolerance {tolerance:g} for {params[0].dtype})", _progress.NimbleWarning,
                      stacklevel=3)
    return result


def parameter_distance(got: Sequence[torch.Tensor], expected: Sequence[torch.Tensor]) -> float:
    """||got - expected|| / ||expected|| over all parameters as one vector (L2). Per tensor, a bias that
    starts at zero would turn rounding noise into large relative differences, and Adam moves elements
    with near-zero gradients by about lr whatever their sign, so the whole vector is the fair measure."""
    diff = sum(float((a.detach().double() - b.detach().double()).pow(2).sum()) for a, b in zip(got, expected))
    norm = sum(float(b.detach().double().pow(2).sum()) for b in expected)
    return (diff / norm) ** 0.5 if norm > 0 else diff ** 0.5


def relative_difference(got: torch.Tensor, expected: torch.Tensor) -> float:
    """max |got - expected| / max |expected| (the absolute difference where expected is all zeros)."""
    got = got.detach().float()
    expected = expected.detach().float()
    diff = (got - expected).abs().max().item() if expected.numel() else 0.0
    scale = expected.abs().max().item() if expected.numel() else 0.0
    return diff / scale if scale > 0 else diff
