"""Two recorded CUDA-graph replays of one model, kernel by kernel: a run database made by
`nimble-accelerate --db DB --record-replays N` holds each captured mode's replays; this lines up the
kernels of two of its graphs (by default the first two: aot-single and aot-multi) in start order, per
replay, and prints the median span of a replay, the kernel-time sums by kernel name that changed most,
the kernels whose median duration differs most between the two, with their stream, launch
configuration and duration in each replay, and, for the one that differs most, the kernels of the
second graph running when it starts. Kernels of one name and launch configuration are paired by their
order of start; where the streams reorder two such kernels, the pair is two different nodes, and it shows
as two rows with their durations swapped.
    python3 bench/diag/replay_kernel_diff.py DB [GRAPH_A GRAPH_B] [--top N]
"""
import argparse
import sqlite3
import statistics
import sys
from collections import defaultdict


def replays(db, graph_id):
    """Kernels of one graph's recorded replays: a list per replay of (start, end, stream, name, grid/block)."""
    rows = db.execute(
        "select k.start, k.end, k.streamId, s.value, l.gridX, l.gridY, l.gridZ, l.blockX, l.blockY, l.blockZ "
        "from kernels k left join StringIds s on s.id = k.shortName "
        "left join kernel_launch_configs l on l.id = k.launchConfigId where k.graphId = ? order by k.start",
        (graph_id,)).fetchall()
    nodes = db.execute("select count(distinct graphNodeId) from kernels where graphId = ?", (graph_id,)).fetchone()[0]
    if nodes == 0 or len(rows) % nodes:
        sys.exit(f"graph {graph_id}: {len(rows)} kernels are not whole replays of its {nodes} kernel nodes")
    return [rows[i:i + nodes] for i in range(0, len(rows), nodes)]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db")
    parser.add_argument("graphs", nargs="*", type=int, help="two graph ids (default: the first two recorded)")
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args(argv)
    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    graphs = args.graphs or [g for (g,) in db.execute(
        "select graphId from kernels where graphId is not null and graphId > 0 group by graphId order by min(start)")][:2]
    if len(graphs) != 2:
        sys.exit(f"{args.db}: expected two recorded graphs, found {graphs}")
    a, b = (replays(db, g) for g in graphs)
    if len(a[0]) != len(b[0]):
        sys.exit(f"graphs {graphs}: {len(a[0])} against {len(b[0])} kernels per replay; not the same model")
    span = lambda reps: statistics.median((max(k[1] for k in r) - r[0][0]) / 1e3 for r in reps)
    print(f"graph {graphs[0]}: {len(a)} replays, median span {span(a):.1f} us; "
          f"graph {graphs[1]}: {len(b)} replays, median span {span(b):.1f} us")

    def by_name(reps):
        sums = defaultdict(list)
        for r in reps:
            total = defaultdict(float)
            for k in r:
                total[k[3]] += (k[1] - k[0]) / 1e3
            for name, us in total.items():
                sums[name].append(us)
        return {name: statistics.median(v) for name, v in sums.items()}
    na, nb = by_name(a), by_name(b)
    print("\nkernel time per replay by name, most changed first (us):")
    for name in sorted(set(na) | set(nb), key=lambda n: -abs(nb.get(n, 0) - na.get(n, 0)))[:args.top]:
        print(f"  {na.get(name, 0):9.1f} -> {nb.get(name, 0):9.1f}  {name[:100]}")

    # The i-th kernel of each stream in start order is the same node in every replay; the two graphs are
    # matched on (name, launch configuration, occurrence), which survives a different stream assignment.
    def keyed(reps):
        out = defaultdict(list)
        for r in reps:
            seen = defaultdict(int)
            t0 = r[0][0]
            for k in r:
                key = (k[3], k[4:])
                out[(key, seen[key])].append(((k[1] - k[0]) / 1e3, k[2], (k[0] - t0) / 1e3, (k[1] - t0) / 1e3))
                seen[key] += 1
        return out
    ka, kb = keyed(a), keyed(b)
    med = lambda samples: statistics.median(d for d, *_ in samples)
    ranked = sorted(set(ka) & set(kb), key=lambda k: -abs(med(kb[k]) - med(ka[k])))
    print("\nkernels whose median duration differs most (us; stream and start offset in the second graph;"
          " then each replay's duration, first graph | second):")
    for key in ranked[:args.top]:
        (name, config), occurrence = key
        first = kb[key][0]
        print(f"  {med(ka[key]):7.1f} -> {med(kb[key]):7.1f}  stream {first[1]} at {statistics.median(x[2] for x in kb[key]):7.1f}  "
              f"grid {config[:3]} block {config[3:]}  #{occurrence} {name[:70]}")
        print("           " + " ".join(f"{d:.1f}" for d, *_ in ka[key]) + " | " + " ".join(f"{d:.1f}" for d, *_ in kb[key]))
    if ranked:
        (name, config), occurrence = ranked[0]
        replay = b[len(b) // 2]
        t0 = replay[0][0]
        matches = [k for k in replay if k[3] == name and k[4:] == config]
        if occurrence < len(matches):
            target = matches[occurrence]
            print(f"\nreplay {len(b) // 2} of the second graph: kernels running when the most changed one starts "
                  f"({(target[0] - t0) / 1e3:.1f} to {(target[1] - t0) / 1e3:.1f} us):")
            for k in replay:
                if k is not target and k[0] <= target[0] < k[1]:
                    print(f"  stream {k[2]} {(k[0] - t0) / 1e3:7.1f} to {(k[1] - t0) / 1e3:7.1f} us  grid {k[4:7]}  {k[3][:70]}")


if __name__ == "__main__":
    main(sys.argv[1:])
