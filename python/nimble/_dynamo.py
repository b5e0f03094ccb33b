"""``torch.compile(model, backend="nimble")``: each graph TorchDynamo hands over is scheduled and
captured ahead of time by ``nimble.accelerate``; a graph it cannot take runs as TorchDynamo traced it,
with one NimbleWarning saying why.

The backend is for inference: the weights it is handed (parameters and buffers, which TorchDynamo
passes as static inputs) are frozen into the capture, so later in-place changes to them are not seen
(other weight tensors are: see `backend`), and graphs that need autograd run eagerly."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from . import _accelerate, _inputs, _progress


_CHECKED_WEIGHTS = 64


class _Bound(torch.nn.Module):
    """A TorchDynamo graph with its static inputs (weights) held as buffers: forward takes only the
    inputs that change per call."""

    def __init__(self, gm: torch.fx.GraphModule, example_inputs: Sequence[torch.Tensor], static: List[int]) -> None:
        super().__init__()
        self.gm = gm
        self._arity = len(example_inputs)
        self._static = static
        self._dynamic = [i for i in range(self._arity) if i not in set(static)]
        for k, i in enumerate(static):
            self.register_buffer(f"static_{k}", example_inputs[i].detach(), persistent=False)

    def forward(self, *dynamic: torch.Tensor) -> Any:
        args: List[Any] = [None] * self._arity
        for k, i in enumerate(self._static):
            args[i] = getattr(self, f"static_{k}")
        for value, i in zip(dynamic, self._dynamic):
            args[i] = value
        return self.gm(*args)


def _is_static(t: torch.Tensor) -> bool:
    return isinstance(t, torch.nn.Parameter) or getattr(t, "_dynamo_static_input_type", None) is not None


def _refusal(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], dynamic: List[int]) -> Optional[str]:
    """Why this graph cannot be captured, or None."""
    if not dynamic:
        return "the graph has no per-call tensor input"
    for i, t in enumerate(example_inputs):
        if not isinstance(t, torch.Tensor):
            return (f"input {i} is {type(t).__name__} (dynamic shapes): compile with dynamic=False "
                    "so that each shape gets its own capture")
        if not t.is_cuda:
            return f"input {i} is on {t.device}: Nimble captures CUDA graphs"
    for i in dynamic:
        if example_inputs[i].dtype not in _inputs.SUPPORTED_DTYPES:
            return (f"input {i} is {str(example_inputs[i].dtype).replace('torch.', '')}; Nimble captures "
                    f"{', '.join(_inputs.DTYPE_NAMES.values())} inputs")
    if torch.is_grad_enabled() and any(t.requires_grad for t in example_inputs):
        return "autograd is on and the graph needs gradients: run inference under torch.no_grad() or torch.inference_mode()"
    return None


def _warn_eager(reason: str) -> None:
    warnings.warn(f"nimble backend: running this graph as traced, without a CUDA graph: {reason}",
                  _progress.NimbleWarning, stacklevel=3)


def backend(gm: torch.fx.GraphModule, example_inputs: List[Any], options: Optional[Dict[str, Any]] = None,
            **kwargs: Any) -> Callable[..., Any]:
    """The torch.compile backend. ``options`` (``torch.compile(..., options={...})``): mode,
    max_streams, iters, tf32, cuda_fusions, conv_epilogues, memory_format and progress go to ``nimble.accelerate``; copy_outputs
    (default True) returns fresh tensors, False the graph's output buffers (faster, overwritten by the
    next call)."""
    options = {**(options or {}), **kwargs}
    allowed = {"mode", "max_streams", "iters", "tf32", "cuda_fusions", "conv_epilogues", "memory_format", "progress",
               "copy_outputs"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ValueError(f"nimble backend: unknown options {unknown}; known: {sorted(allowed)}")
    static = [i for i, t in enumerate(example_inputs) if isinstance(t, torch.Tensor) and _is_static(t)]
    dynamic = [i for i in range(len(example_inputs)) if i not in set(static)]
    reason = _refusal(gm, example_inputs, dynamic)
    if reason is not None:
        _warn_eager(reason)
        return gm.forward
    copy_outputs = bool(options.pop("copy_outputs", True))
    bound = _Bound(gm, example_inputs, static)
    per_call = tuple(example_inputs[i] for i in dynamic)
    try:
        with torch.no_grad():
            accelerated = _accelerate.accelerate(bound, per_call, **options)
    except (RuntimeError, ValueError, TypeError, NotImplementedError) as e:
        _warn_eager(str(e))
        return gm.forward
    run = accelerated._run
    restore = accelerated._outputs.restore if accelerated._outputs is not None else _inputs.flat_outputs
    # TorchDynamo does not guard the weights it passes as static inputs: a second instance of the model,
    # or a reassigned parameter, reaches this graph with other tensors. Their addresses are checked on
    # each call (up to _CHECKED_WEIGHTS of them, spread over the list, to bound the cost: about 0.1 us
    # each) and a mismatch runs the graph as traced. Values changed in place are not seen: the capture
    # holds the weights as they were.
    checked = static[:: max(1, len(static) // _CHECKED_WEIGHTS)][:_CHECKED_WEIGHTS]
    pointers: List[Optional[int]] = [None] * len(example_inputs)
    for i in checked:
        pointers[i] = example_inputs[i].data_ptr()
    same_weights = torch._C._tensors_data_ptrs_at_indices_equal
    warned: List[bool] = []

    def eager(args: Tuple[Any, ...]) -> Any:
        if not warned:
            warned.append(True)
            _warn_eager("the weights passed to this graph are not the ones it captured "
                        "(another instance of the model, or reassigned parameters)")
        return gm(*args)

    # By default the outputs are copies, so that code around the compiled graphs sees eager semantics
    # (an output kept across calls is not overwritten); copy_outputs=False hands out the graph's buffers.
    if copy_outputs:
        def replay(*args: Any) -> Any:
            if checked and not same_weights(list(args), pointers, checked):
                return eager(args)
            return restore([t.clone() for t in run([args[i] for i in dynamic])])
    else:
        def replay(*args: Any) -> Any:
            if checked and not same_weights(list(args), pointers, checked):
                return eager(args)
            return restore(run([args[i] for i in dynamic]))

    replay.nimble_module = accelerated  # type: ignore[attr-defined]
    return replay


def _register() -> None:
    """Registers the backend under the name "nimble" (the package's entry point does the same)."""
    from torch._dynamo.backends.registry import _BACKENDS, _COMPILER_FNS, register_backend

    # When torch imports this package through the entry point, it registers the backend itself right
    # after: registering here too would be a duplicate.
    if "nimble" not in _COMPILER_FNS and _BACKENDS.get("nimble") is None:
        register_backend(backend, name="nimble")


