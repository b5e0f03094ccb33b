"""The training front end's op graph: a model traced by torch.fx, its operators as ops and their data
edges, plus the order edges that in-place operators need (a mutation runs after every earlier reader
of the tensor it changes, and before every later one). The stream assignment itself comes from the C++
plan step (``_C.plan_streams``); `StreamForward` runs the graph's operators on the streams it gives,
with an event only on its syncs.

Threading: one StreamForward per training step; not shared between threads."""

from __future__ import annotations

import inspect
import operator
from typing import Any, Dict, List, Optional, Set, Tuple

import torch
import torch.fx

from . import _C

_OPS = ("call_module", "call_function", "call_method")

# Operators whose result shares its first argument's storage: a mutation of the result is one of the
# argument, and the other way round.
_VIEW_FUNCTIONS = {operator.getitem, torch.flatten, torch.reshape, torch.transpose, torch.permute, torch.squeeze,
                   torch.unsqueeze, torch.narrow, torch.chunk, torch.split, torch.t, torch.select, torch.unbind,
                   torch.movedim, torch.swapaxes, torch.detach}
_VIEW_METHODS = {"view", "view_as", "reshape", "flatten", "unflatten", "transpose", "permute", "squeeze", "unsqueeze",
                 "narrow", "chunk", "split", "expand", "expand_as", "t", "unbind", "select", "contiguous", "detach",
                 "movedim", "swapaxes", "as_strided", "__getitem__"}
_INPLACE_OPERATORS = {operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv,
                      operator.imod, operator.ipow, operator.iand, operator.ior, operator.ixor, operator.ilshift,
                      operator.irshift, operator.setitem}


class OpGraph:
    """The operators of a traced module in program order, with their edges (data and order)."""

    def __init__(self, gm: torch.fx.GraphModule) -> None:
        self.gm = gm
        self.nodes: List[torch.fx.Node] = [n for n in gm.graph.nodes if n.op in _OPS]
        self.index: Dict[torch.fx.Node, int] = {n: i for i, n in enumerate(self.nodes)}
        self.edges: List[Tuple[int, int]] = sorted(self._data_edges() | self._order_edges())

    @property
    def names(self) -> List[str]:
        return [n.name for n in self.nodes]

    def _data_edges(self) -> Set[Tuple[int, int]]:
        edges = set()
        for n in self.nodes:
            for p in n.all_input_nodes:
                if p in self.index:
                    edges.add((self.index[p], self.index[n]))
        return edges

    def _order_edges(self) -> Set[Tuple[int, int]]:
        edges: Set[Tuple[int, int]] = set()
        root = {n: self._alias_root(n) for n in self.gm.graph.nodes}
        # Ops reading each storage, in program order.
        readers: Dict[torch.fx.Node, List[int]] = {}
        for i, n in enumerate(self.nodes):
            for p in n.all_input_nodes:
                readers.setdefault(root[p], []).append(i)
        for i, n in enumerate(self.nodes):
            target = mutated_argument(n, self.gm)
            if target is None:
                continue
            for j in readers.get(root[target], []):
                if j < i:
                    edges.add((j, i))
                elif j > i:
                    edges.add((i, j))
        # Calls of one submodule (shared weights, running statistics) keep their program order.
        last_call: Dict[str, int] = {}
        for i, n in enumerate(self.nodes):
            if n.op == "call_module":
                if n.target in last_call:
                    edges.add((last_call[n.target], i))
                last_call[n.target] = i
        return edges

    @staticmethod
    def _alias_root(n: torch.fx.Node) -> torch.fx.Node:
        while is_view(n) and n.args and isinstance(n.args[0], torch.fx.Node):
            n = n.args[0]
        return n


def is_view(n: torch.fx.Node) -> bool:
    if n.op == "call_function":
        return n.target in _VIEW_FUNCTIONS
    if n.op == "call_method":
        return n.target in _VIEW_METHODS
    return False


def mutated_argument(n: torch.fx.Node, gm: torch.fx.GraphModule) -> Optional[torch.fx.Node]:
    """The graph value that `n` changes in place (its first argument), or None."""
    first = n.args[0] if n.args and isinstance(n.args[0], torch.fx.Node) else None
    if first is None:
        return None
    if n.op == "call_module":
        return first if getattr(gm.get_submodule(str(n.target)), "inplace", False) else None
    if n.op == "call_method":
        name = str(n.target)
        return first if name.endswith("_") and not name.startswith("_") else None
    if n.op == "call_function":
        if n.target in _INPLACE_OPERATORS:
            return first
        name = getattr(n.target, "__name__", "")
        if name.endswith("_") and not name.startswith("_"):
            return first
        if _inplace_flag(n):
            return first
    return None


def _inplace_flag(n: torch.fx.Node) -> bool:
    """Whether a call such as F.relu(x, inplace=True) (or its positional form) asks for in-place."""
    if n.kwargs.get("inplace") is True:
        return True
    try:
        bound = inspect.signature(n.target).bind_partial(*n.args, **n.kwargs)
    except (TypeError, ValueError):
        return False
    return bound.arguments.get("inplace") is True


def trace(model: torch.nn.Module) -> Tuple[Optional[OpGraph], Optional[str]]:
    """The model's op graph, or None and why torch.fx could not trace it."""
    try:
        gm = torch.fx.symbolic_trace(model)
    except Exception as e:  # torch.fx raises many types (TraceError, TypeError, AttributeError...)
        first_line = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return None, f"torch.fx could not trace the model ({type(e).__name__}: {first_line})"
    return OpGraph(gm), None


def plan(graph: OpGraph, max_streams: Optional[int]) -> Dict[str, Any]:
    """The C++ plan step's assignment of `graph`: op_stream, streams, syncs, logical_concurrency..."""
    return _C.plan_streams(len(graph.nodes), graph.edges, int(max_streams or 0), graph.names)


class StreamForward:
    """Runs the traced graph with each op on its assigned stream: stream 0 is the caller's current
    stream, every other one a side stream that forks from it at the start and joins it at the end.
    Tensors read on a stream other than the one that made them are recorded on the reader's stream, so
    that the caching allocator does not hand their memory out again before the reader (forward, or the
    backward op autograd runs on the same stream) is done with it."""

    def __init__(self, graph: OpGraph, assignment: Dict[str, Any], device: torch.device) -> None:
        self.graph = graph
        self.op_stream: List[int] = list(assignment["op_stream"])
        self.num_streams = int(assignment["streams"])
        self.side = [torch.cuda.Stream(device=device) for _ in range(max(0, self.num_streams - 1))]
        self.waits: Dict[int, List[int]] = {}
        self.records: Set[int] = set()
        for src, dst in assignment["syncs"]:
            self.waits.setdefault(dst, []).append(src)
            self.records.add(src)

    def __call__(self, *inputs: Any) -> Any:
        main = torch.cuda.current_stream()
        streams = [main] + self.side
        fork = torch.cuda.Event()
        fork.record(main)
        for s in self.side:
            s.wait_event(fork)
        gm = self.graph.gm
        env: Dict[torch.fx.Node, Any] = {}
        made_on: Dict[torch.fx.Node, int] = {}  # the stream of each op's result; inputs and weights: 0
        done: Dict[int, torch.cuda.Event] = {}
        args_iter = iter(inputs)
        result: Any = None
        for node in gm.graph.nodes:
            if node.op == "placeholder":
                env[node] = next(args_iter)
            elif node.op == "get_attr":
                env[node] = _fetch_attr(gm, str(node.target))
            elif node.op == "output":
                result = torch.fx.node.map_arg(node.args[0], lambda n: env[n])
                _record_crossing(node, 0, main, env, made_on)
            else:
                i = self.graph.index[node]
                s = self.op_stream[i]
                stream = streams[s]
                for src in self.waits.get(i, ()):
                    stream.wait_event(done[src])
                _record_crossing(node, s, stream, env, made_on)
                args = torch.fx.node.map_arg(node.args, lambda n: env[n])
                kwargs = torch.fx.node.map_arg(node.kwargs, lambda n: env[n])
                with torch.cuda.stream(stream):
                    env[node] = _run_node(gm, node, args, kwargs)
                made_on[node] = s
                if i in self.records:
                    event = torch.cuda.Event()
                    event.record(stream)
                    done[i] = event
        self.join(main)
        return result

    def join(self, main: torch.cuda.Stream) -> None:
        """Makes `main` wait for everything queued so far on the side streams (a capture must end with
        every forked stream joined)."""
        for s in self.side:
            event = torch.cuda.Event()
            event.record(s)
            main.wait_event(event)


def _fetch_attr(gm: torch.nn.Module, target: str) -> Any:
    value: Any = gm
    for part in target.split("."):
        value = getattr(value, part)
    return value


def _run_node(gm: torch.fx.GraphModule, node: torch.fx.Node, args: Any, kwargs: Any) -> Any:
    if node.op == "call_module":
        return gm.get_submodule(str(node.target))(*args, **kwargs)
    if node.op == "call_function":
        return node.target(*args, **kwargs)
    self_obj, *rest = args
    return getattr(self_obj, str(node.target))(*rest, **kwargs)


def _record_crossing(node: torch.fx.Node, s: int, stream: torch.cuda.Stream, env: Dict[torch.fx.Node, Any],
                     made_on: Dict[torch.fx.Node, int]) -> None:
    """record_stream on `stream` for the inputs of `node` that another stream made."""
    for p in node.all_input_nodes:
        if made_on.get(p, 0) == s:
            continue
        for value in torch.utils._pytree.tree_leaves(env[p]):
            if isinstance(value, torch.Tensor) and value.is_cuda:
                value.record_stream(stream)
