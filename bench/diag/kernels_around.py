"""The kernels of a run database's graph replay that run around its longest kernel, with their launch
configurations (grid, block, registers per thread, static and dynamic shared memory): what was on the
GPU when a slowed kernel started. Then the durations of every kernel with that one's grid in each graph
given, to compare replays.
    python3 bench/diag/kernels_around.py RUN.db GRAPH_ID [OTHER_GRAPH_ID ...] [--before-us 30]
"""
import argparse
import sqlite3

parser = argparse.ArgumentParser()
parser.add_argument("db")
parser.add_argument("graphs", type=int, nargs="+", help="graph ids; the first is searched for its longest kernel")
parser.add_argument("--before-us", type=float, default=30.0, help="how long before it to list kernels from")
args = parser.parse_args()
db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
QUERY = """select k.graphId, k.start, k.end - k.start, k.streamId, c.gridX, c.gridY, c.blockX, c.registersPerThread,
                  c.staticSharedMemory, c.dynamicSharedMemory, s.value
           from kernels k join kernel_launch_configs c on c.id = k.launchConfigId
                          join StringIds s on s.id = k.shortName
           where k.graphId = ? order by k.start"""
first = db.execute(QUERY, (args.graphs[0],)).fetchall()
if not first:
    raise SystemExit(f"{args.db}: no kernel of graph {args.graphs[0]}")
slow = max(first, key=lambda r: r[2])
print("columns: start (us, from the longest kernel's start), duration (us), stream, grid x, grid y, block x,\n"
      "registers per thread, static shared bytes, dynamic shared bytes, name")
for r in first:
    if r[1] < slow[1] + slow[2] and r[1] + r[2] > slow[1] - args.before_us * 1e3:
        print("%8.2f %8.2f %3d %4d %3d %4d %3d %5d %6d  %s" % ((r[1] - slow[1]) / 1e3, r[2] / 1e3, *r[3:10], r[10][:80]))
print("\ndurations of the kernels with its grid, name and launch configuration (us), in each graph:")
for g in args.graphs:
    same = [r for r in db.execute(QUERY, (g,)) if r[4:11] == slow[4:11]]
    print(f"  graph {g}: " + " ".join(f"{r[2] / 1e3:.1f}" for r in same))
