"""What a captured training step needs from the model and the optimizer: which optimizers replay
correctly from one capture, and a snapshot of the weights, buffers and optimizer state that is
written back in place (the capture holds their addresses) after the warm-up and the measurements."""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional, Tuple

import torch


def optimizer_refusal(optimizer: torch.optim.Optimizer) -> Optional[str]:
    """Why one captured `optimizer.step()` would not replay the optimizer's steps, or None."""
    name = type(optimizer).__name__
    if type(optimizer) is torch.optim.SGD:
        for g in optimizer.param_groups:
            if g.get("momentum", 0) and g.get("dampening", 0):
                return (f"SGD with momentum and dampening={g['dampening']}: its first step sets the momentum "
                        "buffer to the gradient and later ones damp it, which one captured step cannot replay; "
                        "use dampening=0")
        return None
    if type(optimizer) in (torch.optim.Adam, torch.optim.AdamW):
        for g in optimizer.param_groups:
            if not (g.get("capturable") or g.get("fused")):
                return (f"{name} without capturable=True counts its steps on the CPU, so a captured step would "
                        f"replay the first step's bias correction forever: construct it with capturable=True "
                        "(or fused=True)")
        return None
    return (f"{name} is not supported: a captured training step takes torch.optim.SGD, Adam and AdamW "
            "(Adam and AdamW with capturable=True)")


def hyperparameters(optimizer: torch.optim.Optimizer) -> List[Dict[str, Any]]:
    """Each param group's settings (lr, momentum, betas...): a capture replays the values it saw."""
    return [{k: v for k, v in g.items() if k != "params" and isinstance(v, (int, float, bool, tuple))}
            for g in optimizer.param_groups]


def changed_hyperparameter(optimizer: torch.optim.Optimizer, captured: List[Dict[str, Any]]) -> Optional[str]:
    """'lr of param group 0: 0.1 -> 0.01' for the first setting changed since the capture, or None."""
    now = hyperparameters(optimizer)
    if len(now) != len(captured):
        return f"the optimizer has {len(now)} param groups, {len(captured)} when captured"
    for i, (a, b) in enumerate(zip(captured, now)):
        for key, value in a.items():
            if b.get(key) != value:
                return f"{key} of param group {i}: {value} -> {b.get(key)}"
    return None


class Snapshot:
    """The weights, buffers and optimizer state as they were, restorable in place. Optimizer state that
    did not exist yet (a fresh optimizer) is restored as zeros, which is where SGD (dampening 0), Adam
    and AdamW start: their first eager step from zeroed state equals their step from no state."""

    def __init__(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
        self._tensors = list(model.parameters()) + list(model.buffers())
        with torch.no_grad():
            self._saved = [t.detach().clone() for t in self._tensors]
            self._state: Dict[int, Dict[str, Any]] = {
                id(p): {k: (v.detach().clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v))
                        for k, v in st.items()}
                for p, st in optimizer.state.items()}
        self._optimizer = optimizer

    def restore(self) -> None:
        torch.cuda.synchronize()
        with torch.no_grad():
            for t, saved in zip(self._tensors, self._saved):
                t.copy_(saved)
            for p, st in self._optimizer.state.items():
                saved = self._state.get(id(p))
                for key, value in list(st.items()):
                    if isinstance(value, torch.Tensor):
                        if saved is not None and key in saved:
                            value.copy_(saved[key])
                        else:
                            value.zero_()
                    elif saved is not None and key in saved:
                        st[key] = copy.deepcopy(saved[key])
        torch.cuda.synchronize()


def reference_copy(model: torch.nn.Module, optimizer: torch.optim.Optimizer
                   ) -> Tuple[torch.nn.Module, torch.optim.Optimizer]:
    """An independent copy of the model and of the optimizer over its parameters, with the same param
    groups and state: the eager side of the parity check."""
    twin = copy.deepcopy(model)
    mapping = {id(p): q for p, q in zip(model.parameters(), twin.parameters())}
    groups = []
    for g in optimizer.param_groups:
        group = {k: v for k, v in g.items() if k != "params"}
        group["params"] = [mapping[id(p)] for p in g["params"]]
        groups.append(group)
    twin_optimizer = type(optimizer)(groups)
    twin_optimizer.load_state_dict(optimizer.state_dict())
    return twin, twin_optimizer


class BatchNormCounters:
    """Batch norm's step counters (``num_batches_tracked``) added in one kernel per step rather than one
    per call. While entered, each batch-norm module running torch's own ``_BatchNorm.forward`` in
    training mode with a fixed momentum (which then never reads its count) has its counter buffer set to
    None, so that its forward skips the increment; a pre-hook counts its calls, and :meth:`add` adds each
    counter its calls since the last add, with one multi-tensor add per distinct count. On exit the
    buffers are back, the same tensors, and the hooks gone. Other modules (``momentum=None``, where a
    cumulative average reads the count; SyncBatchNorm and other forwards of their own) keep their own."""

    def __init__(self, model: torch.nn.Module) -> None:
        norm = torch.nn.modules.batchnorm._BatchNorm
        self.modules = [m for m in model.modules()
                        if isinstance(m, norm) and type(m).forward is norm.forward and m.training
                        and m.track_running_stats and m.momentum is not None
                        and isinstance(m.num_batches_tracked, torch.Tensor)]
        self.counters = [m.num_batches_tracked for m in self.modules]
        self.active = False
        self._calls = [0] * len(self.modules)
        self._hooks: List[Any] = []

    def _called(self, index: int) -> None:
        self._calls[index] += 1

    def __enter__(self) -> "BatchNormCounters":
        for i, m in enumerate(self.modules):
            m.num_batches_tracked = None
            self._hooks.append(m.register_forward_pre_hook(lambda module, args, i=i: self._called(i)))
        self._calls = [0] * len(self.modules)
        self.active = True
        return self

    def __exit__(self, *exc: Any) -> None:
        for hook in self._hooks:
            hook.remove()
        self._hooks = []
        for m, c in zip(self.modules, self.counters):
            m.num_batches_tracked = c
        self.active = False

    def add(self) -> None:
        """Each counter's calls since the last add, where entered (outside, each module counts its own)."""
        if not self.active:
            return
        groups: Dict[int, List[torch.Tensor]] = {}
        for counter, calls in zip(self.counters, self._calls):
            if calls:
                groups.setdefault(calls, []).append(counter)
        for calls, counters in groups.items():
            torch._foreach_add_(counters, calls)
        self._calls = [0] * len(self.modules)
