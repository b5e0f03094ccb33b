"""Node and edge counts of CUDA graphs printed as verbose Graphviz dot (nimble-accelerate --dump-graphs,
torch.cuda.CUDAGraph.debug_dump), and whether two of them launch the same kernels with the same launch
configurations in the same (topological) order.
    python3 bench/diag/dot_census.py A.dot [B.dot ...]   # the first file is compared with each other one
"""
import re
import sys

NODE = re.compile(r'^"(graph_\d+_node_\d+)"\[style="\w+" shape="\w+" label="\{(\w+)', re.M)
KERNEL = re.compile(r'\{KERNEL\n\| \{ID \| \d+ \(topoId: (\d+)\) \| (\S+?)\\<\\<\\<(.*?)\\>\\>\\>\}')


def census(path):
    text = open(path).read()
    types = {}
    for _, kind in NODE.findall(text):
        types[kind] = types.get(kind, 0) + 1
    edges = len(re.findall(r'^"graph_\d+_node_\d+" -> "graph_\d+_node_\d+"', text, re.M))
    # topoId counts down from the first node in the graph's order.
    kernels = [(name, config) for _, name, config in sorted(KERNEL.findall(text), key=lambda k: -int(k[0]))]
    return types, edges, kernels


results = {path: census(path) for path in sys.argv[1:]}
for path, (types, edges, kernels) in results.items():
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(types.items()))
    print(f"{path}: {sum(types.values())} nodes ({kinds}), {edges} edges")
first = sys.argv[1]
for path in sys.argv[2:]:
    same = results[first][2] == results[path][2]
    print(f"kernel sequence of {path} against {first}: {'identical' if same else 'different'}")
