"""How much the kernels of a multi-stream CUDA-graph replay slow each other: from a run database made by
`nimble-accelerate --db DB --record-replays N`, pairs each kernel of the multi-stream graph's replays
with the same kernel of the single-stream graph (the same name and launch configuration, grid and block,
in start order, as replay_kernel_diff.py pairs them) and prints the kernel time summed over a replay in
each, overall, by how many other kernels ran beside it (time-weighted over its run) and for the kernel
names that take most time. Where the streams reorder two kernels of one name and configuration, their
pair is two different nodes: the totals stay right, a breakdown may mix the two.
    python3 bench/diag/replay_slowdown.py DB [DB...]
"""
import sqlite3
import statistics
import sys
from collections import Counter, defaultdict

from replay_kernel_diff import replays  # per replay: (start, end, stream, name, grid x y z, block x y z)


def by_config(replay):
    out = defaultdict(list)
    for k in replay:
        out[(k[3], k[4:])].append(k)
    return out


def report(path):
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        graphs = [g for (g,) in db.execute(
            "select graphId from kernels where graphId > 0 group by graphId order by min(start)")]
        if len(graphs) < 2:
            sys.exit(f"{path}: expected a single- and a multi-stream graph recorded (nimble-accelerate --db "
                     f"--record-replays N), found graphs {graphs}")
        first, second = (replays(db, g) for g in graphs[:2])
    except sqlite3.Error as e:
        sys.exit(f"{path}: not a readable run database: {e}")
    streams = lambda reps: len({k[2] for k in reps[0]})
    if streams(first) != 1 or streams(second) < 2:
        sys.exit(f"{path}: graphs {graphs[:2]} ran on {streams(first)} and {streams(second)} streams; expected the "
                 "single-stream graph first and the multi-stream one second")
    single, multi = first, second
    if Counter((k[3], k[4:]) for k in single[0]) != Counter((k[3], k[4:]) for k in multi[0]):
        sys.exit(f"{path}: the two graphs do not run the same kernels ({len(single[0])} against {len(multi[0])} per "
                 "replay, or other names or launch configurations); nothing to pair")
    single_by = [by_config(r) for r in single]
    alone = {(key, i): statistics.median(s[key][i][1] - s[key][i][0] for s in single_by)
             for key, kernels in single_by[0].items() for i in range(len(kernels))}
    rows = []  # (name, duration in the multi-stream replay, alone, others running beside it)
    for replay in multi:
        for key, kernels in by_config(replay).items():
            for i, k in enumerate(kernels):
                dur = max(1, k[1] - k[0])
                beside = sum(min(o[1], k[1]) - max(o[0], k[0]) for o in replay
                             if o is not k and o[0] < k[1] and o[1] > k[0]) / dur
                rows.append((key[0], dur, alone[(key, i)], beside))
    ratio = lambda sel: sum(r[1] for r in sel) / max(1, sum(r[2] for r in sel))
    per_replay = lambda sel, i: sum(r[i] for r in sel) / len(multi) / 1e3
    print(f"{path}: {len(multi)} multi-stream replays of {len(multi[0])} kernels; kernel time summed over a replay "
          f"{per_replay(rows, 1):.1f} us against {per_replay(rows, 2):.1f} us in the single-stream replay: "
          f"{ratio(rows):.2f}x; others running beside a kernel: {statistics.mean(r[3] for r in rows):.1f} (mean)")
    for lo, hi in [(0, 0.3), (0.3, 1), (1, 2), (2, 4), (4, float("inf"))]:
        sel = [r for r in rows if lo <= r[3] < hi]
        if sel:
            print(f"  {lo}-{hi} others beside it: {len(sel) / len(multi):6.1f} kernels per replay, {ratio(sel):.2f}x")
    names = defaultdict(list)
    for r in rows:
        names[r[0]].append(r)
    for name, sel in sorted(names.items(), key=lambda kv: -sum(r[2] for r in kv[1]))[:6]:
        print(f"  {(name or '?')[:72]:72s} {per_replay(sel, 2):8.1f} us alone, {ratio(sel):.2f}x, "
              f"{statistics.median(r[3] for r in sel):.1f} others beside it (median)")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        report(p)
