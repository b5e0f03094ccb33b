#!/usr/bin/env python3
"""The Nimble paper's figures from what bench/paper/run.sh measured, next to the paper's V100 numbers.

    make_figures.py IN_DIR OUT_DIR

reads IN_DIR/{profile,inference,training}/ and writes OUT_DIR/paper.md (Figure 3, Table 1, Figure 5,
Figure 7) and fig3_active_critical.png, table1_multistream.png, fig5_inference_speedup.png,
fig7_training_throughput.png. A part that did not run leaves its table saying "not run"; a model whose
tool failed says "failed". Without matplotlib the tables are still written.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
from typing import Any, Optional

import paper_plots
import paper_results
import paper_v100 as paper
from paper_results import ratio, training_speedup

Json = dict[str, Any]
RANDOM_WEIGHTS = ("Weights are random (torchvision `weights=None`, timm `pretrained=False`; DARTS, AmoebaNet and "
                  "NASNet-A mobile built from their published cells by `samples/models/cell_networks.py`): the "
                  "architectures of the paper's networks, without downloads; latency does not depend on the values.")
TORCH_MODES = ("eager", "script", "cudagraph", "compile")


def fmt(value: Optional[float], spec: str = ".3f", suffix: str = "") -> str:
    return "-" if value is None else f"{value:{spec}}{suffix}"


def times(value: Optional[float]) -> str:
    return fmt(value, ".2f", "x")


def table(headers: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + " --- |" * len(headers)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def header(part: Json, what: str) -> list[str]:
    """Date, GPU and the exact command(s) of the part's run(s)."""
    runs = part["runs"]
    if not runs:
        return [f"{what}; no run record (run-*.json) came with these files.", ""]

    def joined(key: str) -> str:
        return ", ".join(sorted({str(r.get(key)) for r in runs}))
    lines = [f"Measured {joined('date')} on {joined('gpu')} (driver {joined('driver')}, torch {joined('torch')}); "
             f"{what}. Command{'s' if len(runs) > 1 else ''}:", ""]
    return lines + [f"    {r['command']}" for r in runs] + [""]


def failed(row: Json, part: Json) -> str:
    return "skipped (time budget)" if row["model"] in part["skipped"] else "failed"


def label(row: Json) -> str:
    return f"{row['model']} ({row['inputs']})" if row.get("inputs") else row["model"]


def section(title: str, part: Optional[Json], part_name: str, what: str) -> list[str]:
    """A table's heading and its measurement header, or "not run" where the part has not run."""
    lines = [f"## {title}", ""]
    if part is None:
        return lines + [f"not run (`run.sh {part_name}`)", ""]
    return lines + header(part, what)


def figure3(part: Optional[Json]) -> list[str]:
    lines = section("Figure 3: GPU active ratio and critical path (the paper's Figures 2a and 3c)", part, "profile",
                    "batch 1, fp32, TF32 off; `nimble-prof model.pt --iters 20 --warmup 5 --timed-iters 100 "
                    "--no-tf32`, then `nimble-prof report run.db --json`")
    if part is None:
        return lines
    rows = []
    for r in part["rows"]:
        if "error" in r:
            rows.append([r["model"]] + [failed(r, part)] * 7 + [paper.PLOT_ONLY] * 2)
            continue
        rows.append([label(r), fmt(r["active_ms"]), fmt(r["latency_ms"]), fmt(r["active_ratio"], ".1%"),
                     fmt(r["recorded_ratio"], ".1%"), fmt(r.get("critical_ms")), fmt(r.get("critical_ratio"), ".1%"),
                     fmt(r.get("width"), "d"), paper.PLOT_ONLY, paper.PLOT_ONLY])
    lines += table(["model (input)", "GPU active (ms)", "iteration, collector off (ms)", "GPU active ratio",
                    "active ratio while recorded", "critical path (ms)", "critical path / GPU active",
                    "width (Deg.)", "V100 active ratio (paper)", "V100 critical path / active (paper)"], rows)
    idle = paper.PYTORCH_MAX_IDLE_SHARE
    return lines + [
        "", "GPU active time: the union of kernel intervals in the median recorded iteration. Iteration: nimble-prof's "
        "op-by-op eager run of the frozen TorchScript graph (PyTorch's eager kernels, conv-bn folded) with the "
        "collector off; the collector lengthens recorded iterations (next column). Critical path: the longest path "
        "through the op graph, each op weighted by its kernels' GPU time. " + RANDOM_WEIGHTS,
        f"Paper (V100, Section 1): PyTorch leaves the GPU idle up to {idle:.0%} of the time (an active ratio as low as "
        f"{1 - idle:.0%}), TensorFlow up to {paper.TENSORFLOW_MAX_IDLE_SHARE:.0%}; a C++ replay of PyTorch's GPU tasks "
        f"ran ResNet-50 {paper.CPP_RUNNER_SPEEDUP_RESNET50}x faster. Per-network ratios: bars only.", "",
        "![Figure 3](fig3_active_critical.png)", ""]


def table1_cells(row: Json, part: Json, width: Optional[int]) -> list[str]:
    """Deg., streams, syncs, single, multi, measured and predicted multi/single, the mode chosen."""
    single, multi = row.get("single"), row.get("multi")
    if single is None:
        return [fmt(width, "d")] + [failed(row, part)] * 7
    if multi is None:  # a chain has nothing to run beside it: nimble-accelerate captures one stream
        no_multi = "- (width 1)" if row.get("chains") == 1 else "failed"
        return [fmt(width, "d"), no_multi, no_multi, fmt(single["measured_ms"]), no_multi, "-", "-",
                row.get("chosen") or "-"]
    return [fmt(width, "d"), str(multi["streams"]), str(multi["syncs"]), fmt(single["measured_ms"]),
            fmt(multi["measured_ms"]), times(ratio(single["measured_ms"], multi["measured_ms"])),
            times(ratio(single["predicted_ms"], multi["predicted_ms"])), row.get("chosen") or "-"]


def table1(inference: Optional[Json], profile: Optional[Json]) -> list[str]:
    lines = ["## Table 1: multi-stream over single-stream Nimble", ""]
    widths = {r["model"]: r.get("width") for r in (profile or {"rows": []})["rows"]}
    paper_rows = dict(paper.TABLE1)
    rows = []
    if inference is None:
        lines += ["not run (`run.sh inference`); the paper's rows only.", ""]
    else:
        lines += header(inference, "batch 1, fp32, TF32 off; `nimble-accelerate model.pt --json`, median of its timed "
                                   "iterations; Deg. from `run.sh profile`'s report")
        for r in inference["rows"]:
            v100 = paper_rows.pop(paper.PAPER_NAME.get(r["model"], ""), None)
            v100_cells = [fmt(v100["deg"], "d"), times(v100["speedup"])] if v100 else ["not in Table 1"] * 2
            rows.append([label(r)] + table1_cells(r, inference, widths.get(r["model"])) + v100_cells)
    ours = {paper_name: model for model, paper_name in paper.PAPER_NAME.items()}
    for name, v100 in paper_rows.items():
        absent = f"not run ({ours[name]})" if name in ours else "not built (export_models.py has no builder)"
        rows.append([name, absent] + ["-"] * 7 + [fmt(v100["deg"], "d"), times(v100["speedup"])])
    lines += table(["model (input)", "Deg. (width)", "streams", "syncs", "single (ms)", "multi (ms)", "multi / single",
                    "predicted multi / single", "model.nimble runs", "V100 Deg. (paper)",
                    "V100 multi / single (paper)"], rows)
    return lines + ["", "Streams and syncs: the multi-stream capture's (Algorithm 1: one stream per chain of the "
                    "matching, an event wait per cross-stream edge of the reduced graph). Deg.: the op graph's width, "
                    "the paper's degree of logical concurrency. V100: the paper's Table 1.", "",
                    "![Table 1](table1_multistream.png)", ""]


def torch_cell(row: Json, part: Json, mode: str) -> str:
    line = row["torch"].get(mode)
    if line is None:
        error = row["torch_error"].get(mode)
        if error is None:  # torch.compile is left out by --no-compile; the other modes always run
            return "-" if mode == "compile" and row["model"] not in part["skipped"] else failed(row, part)
        return "skipped (time budget)" if "time budget" in error else "failed"
    compile_s = f" ({line['compile_s']:g} s)" if "compile_s" in line else ""
    return f"{line['median_ms']:.3f}{compile_s}"


def figure5_cells(row: Json, part: Json) -> list[str]:
    ms = {mode: (row["torch"].get(mode) or {}).get("median_ms") for mode in TORCH_MODES}
    nimble = row.get("nimble_ms")
    return ([torch_cell(row, part, mode) for mode in TORCH_MODES]
            + [f"{nimble:.3f} ({row['chosen']})" if nimble else failed(row, part),
               times(ratio(ms["eager"], nimble)), times(ratio(ms["script"], nimble)),
               times(ratio(ms["eager"], ms["cudagraph"])), times(ratio(ms["eager"], ms["compile"]))])


def figure5(part: Optional[Json]) -> list[str]:
    lines = section("Figure 5: inference speedup", part, "inference",
                    "batch 1, fp32, TF32 off, median latency (ms); each PyTorch column in a process of its own "
                    "(`bench/zoo_bench.py torch MODEL float32 eager|cudagraph|compile`, "
                    "`bench/accelerate_bench.py --mode script`); Nimble: `nimble-accelerate --json`, the mode "
                    "model.nimble runs")
    if part is None:
        return lines
    rows = [[label(r)] + figure5_cells(r, part) + [paper.PLOT_ONLY] for r in part["rows"]]
    lines += table(["model (input)", "PyTorch eager", "TorchScript", "PyTorch CUDA graph",
                    "torch.compile r-o (compile s)", "Nimble", "Nimble vs eager", "Nimble vs TorchScript",
                    "CUDA graph vs eager", "torch.compile vs eager", "V100 Nimble vs PyTorch (paper)"], rows)
    return lines + [
        "", "PyTorch CUDA graph: the nn.Module captured with torch.cuda.graph; torch.compile r-o: "
        "mode=\"reduce-overhead\", compile time in brackets. " + RANDOM_WEIGHTS,
        f"Paper (V100, abstract): up to {paper.MAX_INFERENCE_SPEEDUP_OVER_PYTORCH:.2f}x over PyTorch, "
        f"{paper.MAX_INFERENCE_SPEEDUP_OVER_TENSORRT:.2f}x over TensorRT and "
        f"{paper.MAX_INFERENCE_SPEEDUP_OVER_TVM:.2f}x over TVM (neither is measured here); per-network speedups: "
        "bars only.", "",
        "![Figure 5](fig5_inference_speedup.png)", ""]


def figure7_cells(row: Json) -> list[str]:
    nimble = training_speedup(row, "nimble")
    compile_s = f" ({row['compile_s']:.0f} s)" if row.get("compile_s") is not None else ""
    nimble_ms = f"{row['nimble_ms']:.3f} ({row.get('nimble_mode', '-')})" if row.get("nimble_ms") else "failed"

    def pair(parity: Optional[Json], prefix: str) -> str:
        if not parity:
            return "-"
        loss = parity.get(f"{prefix}loss_rel_diff" if prefix else "max_loss_rel_diff")
        params = parity.get(f"{prefix}param_rel_diff" if prefix else "max_param_rel_diff")
        return f"{fmt(loss, '.1e')} / {fmt(params, '.1e')}"
    default, deterministic = row.get("parity"), row.get("deterministic_parity")
    return [row["model"], str(row.get("batch", "-")), str(row.get("image", "-")), str(row.get("dtype", "-")),
            fmt(row.get("eager_ms")), nimble_ms, times(nimble) if nimble else "failed",
            times(training_speedup(row, "compile")) + compile_s, times(training_speedup(row, "cudagraph_step")),
            times(training_speedup(row, "graphed")),
            f"{pair(default, '')} (eager vs eager {pair(default, 'eager_vs_eager_')})",
            f"{pair(deterministic, '')} (eager vs eager {pair(deterministic, 'eager_vs_eager_')})"]


def figure7(part: Optional[Json]) -> list[str]:
    lines = section("Figure 7: training throughput over PyTorch eager", part, "training",
                    "one training step (forward, backward, optimizer) per iteration, as bench/training_bench.py "
                    "times it")
    if part is None:
        return lines
    rows = [figure7_cells(r) + [paper.PLOT_ONLY] for r in part["rows"]]
    lines += table(["model", "batch", "image", "dtype", "eager (ms/step)", "Nimble (ms/step)", "Nimble vs eager",
                    "torch.compile r-o vs eager (compile s)", "torch.cuda.graph whole step vs eager",
                    "make_graphed_callables vs eager", "Nimble vs eager after 100 steps, loss / params",
                    "the same, deterministic kernels", "V100 Nimble vs PyTorch (paper)"], rows)
    return lines + ["", "Speedups: samples/s over eager's. Differences after 100 steps from the same weights, batches "
                    "and random-number state: losses as max |a - b| / max |b|, parameters as the relative L2 distance "
                    "over all of them; beside each, a second eager run against the first (eager training is not "
                    "reproducible with cuDNN's default kernels; with deterministic kernels both are exact). "
                    + RANDOM_WEIGHTS,
                    f"Paper (V100, abstract): up to {paper.MAX_TRAINING_SPEEDUP_OVER_PYTORCH:.2f}x over PyTorch in "
                    "training (CIFAR-10 networks, 32x32 images); per-network speedups: bars only.", "",
                    "![Figure 7](fig7_training_throughput.png)", ""]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("in_dir", type=pathlib.Path, help="run.sh's OUT_DIR (profile/, inference/, training/)")
    parser.add_argument("out_dir", type=pathlib.Path, help="where paper.md and the PNGs go")
    args = parser.parse_args(argv)
    data = paper_results.load(args.in_dir)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    doc = ["# The Nimble paper's figures, measured again", "",
           f"Each table sets this machine's measurements beside the paper's own ({paper.SETUP}; Kwon, Yu, Jeong, Chun, "
           "NeurIPS 2020). V100 columns are the paper's numbers where its text or a table states them, "
           f"\"{paper.PLOT_ONLY}\" where it shows them only as bars (bench/paper/paper_v100.py). {RANDOM_WEIGHTS} "
           "Written by `bench/paper/make_figures.py` from `bench/paper/run.sh`'s parts.", ""]
    doc += figure3(data["profile"]) + table1(data["inference"], data["profile"])
    doc += figure5(data["inference"]) + figure7(data["training"])
    why_not = paper_plots.write_all(data, args.out_dir)
    if why_not is not None:
        doc += [f"Plots not drawn: {why_not}.", ""]
    (args.out_dir / "paper.md").write_text("\n".join(doc))
    print(f"wrote {args.out_dir / 'paper.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
