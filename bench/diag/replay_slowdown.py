"""How much the kernels of a multi-stream CUDA-graph replay slow each other: from a run database made by
`nimble-accelerate --db DB --record-replays N`, pairs each kernel of the multi-stream graph's replays
with the same kernel of the single-stream graph (by name and launch configuration, in start order, as
replay_kernel_diff.py does) and prints the kernel time summed over a replay in each, overall, by how
many other kernels ran beside it (time-weighted over its run) and for the kernel names that take most
time.
    python3 bench/diag/replay_slowdown.py DB [DB...]
"""
import sqlite3
import statistics
import sys
from collections import defaultdict


def replays(db, graph_id):
    rows = db.execute(
        "select k.start, k.end, k.streamId, s.value, l.gridX * l.gridY * l.gridZ, l.blockX * l.blockY * l.blockZ "
        "from kernels k left join StringIds s on s.id = k.shortName "
        "left join kernel_launch_configs l on l.id = k.launchConfigId where k.graphId = ? order by k.start",
        (graph_id,)).fetchall()
    nodes = db.execute("select count(distinct graphNodeId) from kernels where graphId = ?", (graph_id,)).fetchone()[0]
    if nodes == 0 or len(rows) % nodes:
        sys.exit(f"graph {graph_id}: {len(rows)} kernels are not whole replays of its {nodes} kernel nodes")
    return [rows[i:i + nodes] for i in range(0, len(rows), nodes)]


def by_config(replay):
    out = defaultdict(list)
    for k in replay:
        out[(k[3], k[4], k[5])].append(k)
    return out


def report(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    graphs = [g for (g,) in db.execute(
        "select graphId from kernels where graphId > 0 group by graphId order by min(start)")][:2]
    if len(graphs) != 2:
        sys.exit(f"{path}: expected a single- and a multi-stream graph recorded, found {graphs}")
    single, multi = (replays(db, g) for g in graphs)
    alone = {}
    for key, kernels in by_config(single[0]).items():
        for i in range(len(kernels)):
            alone[(key, i)] = statistics.median(by_config(r)[key][i][1] - by_config(r)[key][i][0] for r in single)
    rows = []  # (name, duration in the multi-stream replay, alone, others running beside it)
    for replay in multi:
        for key, kernels in by_config(replay).items():
            for i, k in enumerate(kernels):
                dur = max(1, k[1] - k[0])
                beside = sum(min(o[1], k[1]) - max(o[0], k[0]) for o in replay
                             if o is not k and o[0] < k[1] and o[1] > k[0]) / dur
                rows.append((key[0], dur, alone[(key, i)], beside))
    total = lambda sel: sum(r[1] for r in sel) / max(1, sum(r[2] for r in sel))
    print(f"{path}: {len(multi)} multi-stream replays of {len(multi[0])} kernels; kernel time summed over a replay "
          f"{sum(r[1] for r in rows) / len(multi) / 1e3:.1f} us against {sum(r[2] for r in rows) / len(multi) / 1e3:.1f} "
          f"us in the single-stream replay: {total(rows):.2f}x")
    for lo, hi in [(0, 0.3), (0.3, 1), (1, 2), (2, 4), (4, float("inf"))]:
        sel = [r for r in rows if lo <= r[3] < hi]
        if sel:
            print(f"  {lo}-{hi} others beside it: {len(sel) / len(multi):6.1f} kernels per replay, {total(sel):.2f}x")
    names = defaultdict(list)
    for r in rows:
        names[r[0]].append(r)
    for name, sel in sorted(names.items(), key=lambda kv: -sum(r[2] for r in kv[1]))[:6]:
        print(f"  {name[:48]:48s} {sum(r[2] for r in sel) / len(multi) / 1e3:8.1f} us alone, {total(sel):.2f}x, "
              f"{statistics.median(r[3] for r in sel):.1f} others beside it (median)")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        report(p)
