"""How much longer kernels run in a multi-stream CUDA-graph replay than in the single-stream one, by the
share of the GPU's block slots each fills and by the slots the kernels beside it fill, grouped by case.
From run databases made by `nimble-accelerate --db DB --record-replays N`. A kernel's share is its grid's
block slots averaged over its waves, as analysis/occupancy.h computes it; "beside" is the sum of the
other running kernels' shares, weighted by how long each overlapped it. Kernels are paired with the
single-stream replay's by name and launch configuration in start order (replay_kernel_diff.py). Each
cell: kernel time in the multi-stream replay over the same kernels' time alone, where the kernels alone
took over 0.2 ms in all; "-" otherwise. Groups: the database name up to "_b", and "float32" or "half".
    python3 bench/diag/slowdown_by_share.py DB [DB...]
"""
import math
import sqlite3
import statistics
import sys
from collections import defaultdict

OWN = [(0, 0.1), (0.1, 0.3), (0.3, 0.7), (0.7, 1.01)]
BESIDE = [(0.05, 0.5), (0.5, 1), (1, 2), (2, 99)]


def wave_share(config, device):
    gx, gy, gz, bx, by, bz, regs, static_smem, dynamic_smem = config
    sms, max_threads, max_blocks, max_regs, max_smem = device
    warps = max(1, (bx * by * bz + 31) // 32)
    per_sm = max_threads // (warps * 32)
    if max_blocks > 0:
        per_sm = min(per_sm, max_blocks)
    if regs > 0:
        per_sm = min(per_sm, max_regs // (((regs * 32 + 255) // 256 * 256) * warps))
    if static_smem + dynamic_smem > 0:
        per_sm = min(per_sm, max_smem // (static_smem + dynamic_smem))
    slots = sms * max(1, per_sm)
    blocks = max(1, gx * gy * gz)
    return max(1 / slots, min(1.0, blocks / (slots * math.ceil(blocks / slots))))


def replays(db, graph):
    rows = db.execute(
        "select k.start, k.end, k.streamId, k.shortName, l.gridX, l.gridY, l.gridZ, l.blockX, l.blockY, l.blockZ, "
        "l.registersPerThread, l.staticSharedMemory, l.dynamicSharedMemory from kernels k "
        "join kernel_launch_configs l on l.id = k.launchConfigId where k.graphId = ? order by k.start", (graph,)).fetchall()
    nodes = db.execute("select count(distinct graphNodeId) from kernels where graphId = ?", (graph,)).fetchone()[0]
    if nodes == 0 or len(rows) % nodes:
        raise ValueError(f"graph {graph}: {len(rows)} kernels are not whole replays of its {nodes} kernel nodes")
    return [rows[i:i + nodes] for i in range(0, len(rows), nodes)]


def kernels(path):
    """(own share, others' share beside it, duration in the multi-stream replay, duration alone) per kernel."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    device = db.execute("select smCount, maxThreadsPerSm, maxBlocksPerSm, maxRegistersPerSm, maxShmemPerSm "
                        "from TARGET_INFO_GPU limit 1").fetchone()
    graphs = [replays(db, g) for (g,) in db.execute(
        "select graphId from kernels where graphId > 0 group by graphId order by min(start)")]
    # The single-stream graph is the one on fewest streams: a cuDNN algorithm may fork one kernel onto a
    # stream of its own even there (GoogLeNet float32's fft2d_r2c_16x16).
    streams = lambda reps: len({k[2] for k in reps[0]})
    if len(graphs) < 2:
        raise ValueError("no single- and multi-stream replays recorded")
    single = min(graphs, key=streams)
    multi = max(reversed(graphs), key=streams)
    if streams(multi) <= streams(single):
        raise ValueError("no multi-stream replay recorded beside the single-stream one")
    key = lambda k: (k[3],) + tuple(k[4:])
    alone = defaultdict(list)
    for replay in single:
        seen = defaultdict(int)
        for k in replay:
            alone[(key(k), seen[key(k)])].append(k[1] - k[0])
            seen[key(k)] += 1
    out = []
    for replay in multi:
        seen = defaultdict(int)
        ks = []
        for k in replay:
            ks.append((k[0], k[1], wave_share(k[4:], device), statistics.median(alone[(key(k), seen[key(k)])])))
            seen[key(k)] += 1
        for i, (start, end, share, dur_alone) in enumerate(ks):
            dur = max(1, end - start)
            beside = sum(s2 * (min(end, e2) - max(start, b2)) / dur
                         for j, (b2, e2, s2, _) in enumerate(ks) if j != i and b2 < end and e2 > start)
            out.append((share, beside, dur, dur_alone))
    return out


def main(paths):
    groups = defaultdict(list)
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        group = name.split("_b")[0] + (" half" if "float16" in name else " float32")
        try:
            groups[group] += kernels(path)
        except (sqlite3.Error, ValueError) as e:
            print(f"{path}: skipped: {e}", file=sys.stderr)
    print(f"own share {OWN}; in each, others' shares beside it {BESIDE}: multi-stream time / time alone")
    for group, rows in sorted(groups.items()):
        cells = []
        for lo, hi in OWN:
            for blo, bhi in BESIDE:
                sel = [r for r in rows if lo <= r[0] < hi and blo <= r[1] < bhi]
                alone = sum(r[3] for r in sel)
                cells.append(f"{sum(r[2] for r in sel) / alone:4.2f}" if alone > 2e5 else "  - ")
        print(f"{group:24s}" + " | ".join(" ".join(cells[i:i + len(BESIDE)]) for i in range(0, len(cells), len(BESIDE))))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
