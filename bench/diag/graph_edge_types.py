"""Whether a model's CUDA graph holds programmatic (PDL) dependencies: captures the model's forward with
PyTorch's CUDA graph (channels_last for 4-D half-precision inputs, as Nimble runs them), keeps the
cudaGraph_t, and counts its nodes by type and its edges by type through the CUDA runtime. A programmatic
edge lets the dependent kernel start before its predecessor has ended, which a replay timed without
tracing shows and a traced one may not. Also prints the replay's median time (200 replays).
    python3 bench/diag/graph_edge_types.py nasnetalarge:float16 resnet50:float16 gpt2:float16
With --fork-join, each leaf module's forward is also preceded by a fork to a side stream and a join back
(a tiny kernel on the side stream): cross-stream dependencies as a multi-stream capture adds them, to see
what they do to the programmatic edges and to the replay time.
"""
import ctypes
import json
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0] + "/..")
import zoo_bench  # noqa: E402

NODE_TYPES = {0: "kernel", 1: "memcpy", 2: "memset", 3: "host", 4: "graph", 5: "empty", 6: "wait_event",
              7: "event_record", 8: "ext_sem_signal", 9: "ext_sem_wait", 10: "mem_alloc", 11: "mem_free",
              12: "conditional"}
EDGE_TYPES = {0: "default", 1: "programmatic"}


class EdgeData(ctypes.Structure):
    _fields_ = [("from_port", ctypes.c_ubyte), ("to_port", ctypes.c_ubyte), ("type", ctypes.c_ubyte),
                ("reserved", ctypes.c_ubyte * 5)]


# The driver API: a cudaGraph_t is a CUgraph, and libcuda is loaded whichever runtime torch links.
def driver():
    return ctypes.CDLL("libcuda.so.1")


def check(cu, err, what):
    if err != 0:
        text = ctypes.c_char_p()
        cu.cuGetErrorString(err, ctypes.byref(text))
        raise SystemExit(f"{what}: error {err} {text.value.decode() if text.value else ''}")


def census(graph_handle) -> dict:
    cu = driver()
    graph = ctypes.c_void_p(graph_handle)
    n = ctypes.c_size_t(0)
    check(cu, cu.cuGraphGetNodes(graph, None, ctypes.byref(n)), "cuGraphGetNodes")
    nodes = (ctypes.c_void_p * n.value)()
    check(cu, cu.cuGraphGetNodes(graph, nodes, ctypes.byref(n)), "cuGraphGetNodes")
    node_types = {}
    for node in nodes:
        t = ctypes.c_int(0)
        check(cu, cu.cuGraphNodeGetType(ctypes.c_void_p(node), ctypes.byref(t)), "cuGraphNodeGetType")
        name = NODE_TYPES.get(t.value, str(t.value))
        node_types[name] = node_types.get(name, 0) + 1
    # CUDA 12.3+ has the _v2 form with edge data; CUDA 13's cuGraphGetEdges takes it too.
    get_edges = getattr(cu, "cuGraphGetEdges_v2", None) or cu.cuGraphGetEdges
    m = ctypes.c_size_t(0)
    check(cu, get_edges(graph, None, None, None, ctypes.byref(m)), "cuGraphGetEdges")
    frm, to = (ctypes.c_void_p * m.value)(), (ctypes.c_void_p * m.value)()
    data = (EdgeData * m.value)()
    check(cu, get_edges(graph, frm, to, data, ctypes.byref(m)), "cuGraphGetEdges")
    edge_types = {}
    for d in data:
        name = f"{EDGE_TYPES.get(d.type, str(d.type))} (port {d.from_port}->{d.to_port})"
        edge_types[name] = edge_types.get(name, 0) + 1
    return {"nodes": node_types, "edges": edge_types}


def fork_join_hooks(model):
    """Before every leaf module: the side stream waits on the current one, runs a tiny kernel, and the
    current stream waits on it."""
    side = torch.cuda.Stream()
    scratch = torch.zeros(1, device="cuda")

    def hook(module, args):
        current = torch.cuda.current_stream()
        side.wait_stream(current)
        with torch.cuda.stream(side):
            scratch.add_(1)
        current.wait_stream(side)

    return [m.register_forward_pre_hook(hook) for m in model.modules() if not list(m.children())]


def main(argv) -> int:
    zoo_bench.ieee()
    fork_join = "--fork-join" in argv
    argv = [a for a in argv if a != "--fork-join"]
    for case in argv:
        name, dtype = (case.split(":") + ["float32"])[:2]
        model, inputs, _ = zoo_bench.instantiate(name, dtype)
        if dtype != "float32" and any(t.dim() == 4 for t in inputs):
            model = model.to(memory_format=torch.channels_last)
            inputs = tuple(t.contiguous(memory_format=torch.channels_last) if t.dim() == 4 else t for t in inputs)
        if fork_join:
            fork_join_hooks(model)
        with torch.inference_mode():
            graph = zoo_bench.capture(model, inputs, keep_graph=True)
            result = {"case": case + (" fork-join" if fork_join else ""), **census(graph.raw_cuda_graph())}
            result["replay_ms"] = round(zoo_bench.median_ms(graph.replay, 200), 4)
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
