"""The PNGs beside paper.md: grouped bars per model, drawn with matplotlib's Agg backend (no display).
A model without a value gets no bar in that series; a part that did not run gets no file."""
from __future__ import annotations

import pathlib
from typing import Any, Optional

import paper_v100 as paper
from paper_results import ratio, training_speedup

Json = dict[str, Any]


def grouped_bars(ax, labels: list[str], series: dict[str, list[Optional[float]]], ylabel: str,
                 unity: bool = False, fmt: str = "%.2f") -> None:
    width = 0.8 / max(len(series), 1)
    for i, (name, values) in enumerate(series.items()):
        xs = [x + (i - (len(series) - 1) / 2) * width for x in range(len(labels))]
        kept = [(x, v) for x, v in zip(xs, values) if v is not None]
        bars = ax.bar([x for x, _ in kept], [v for _, v in kept], width, label=name)
        ax.bar_label(bars, fmt=fmt, fontsize=6, padding=1)
    # A model with no value in any series says so under its name rather than showing an empty slot.
    empty = [all(values[x] is None for values in series.values()) for x in range(len(labels))]
    ax.set_xticks(range(len(labels)), [f"{name}\n(no data)" if none else name for name, none in zip(labels, empty)],
                  rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    if unity:
        ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.legend(fontsize=7)


def by_model(rows: list[Json], value) -> list[Optional[float]]:
    out = []
    for row in rows:
        try:
            out.append(value(row))
        except (KeyError, TypeError, ZeroDivisionError):
            out.append(None)
    return out


def fig3(plt, part: Json, path: pathlib.Path) -> None:
    rows = part["rows"]
    labels = [r["model"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    grouped_bars(left, labels, {"collector off": by_model(rows, lambda r: 100 * r["active_ratio"]),
                                "while recorded": by_model(rows, lambda r: 100 * r["recorded_ratio"])},
                 "GPU active time / iteration (%)", fmt="%.1f")
    floor = 100 * (1 - paper.PYTORCH_MAX_IDLE_SHARE)
    left.axhline(floor, color="gray", linestyle="--", linewidth=0.8)
    left.annotate(f"V100 PyTorch: as low as {floor:.0f}% (paper, Section 1)", (0, floor), fontsize=6,
                  xytext=(0, 2), textcoords="offset points")
    grouped_bars(right, labels, {"critical path": by_model(rows, lambda r: 100 * r["critical_ratio"])},
                 "critical path / GPU active time (%)", fmt="%.1f")
    gpu = part["runs"][0]["gpu"] if part["runs"] else "this GPU"
    fig.suptitle(f"GPU active ratio and critical path, eager, batch 1 ({gpu}; V100: {paper.PLOT_ONLY})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=150)


def torch_ms(row: Json, mode: str) -> Optional[float]:
    return (row["torch"].get(mode) or {}).get("median_ms")


def fig5(plt, part: Json, path: pathlib.Path) -> None:
    rows = part["rows"]
    labels = [r["model"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2))
    over = lambda base, ms: by_model(rows, lambda r: ratio(torch_ms(r, base), ms(r)))  # noqa: E731
    grouped_bars(left, labels, {"TorchScript": over("eager", lambda r: torch_ms(r, "script")),
                                "PyTorch CUDA graph": over("eager", lambda r: torch_ms(r, "cudagraph")),
                                "torch.compile r-o": over("eager", lambda r: torch_ms(r, "compile")),
                                "Nimble": over("eager", lambda r: r.get("nimble_ms"))},
                 "speedup over PyTorch eager", unity=True)
    grouped_bars(right, labels, {"PyTorch CUDA graph": over("script", lambda r: torch_ms(r, "cudagraph")),
                                 "torch.compile r-o": over("script", lambda r: torch_ms(r, "compile")),
                                 "Nimble": over("script", lambda r: r.get("nimble_ms"))},
                 "speedup over TorchScript", unity=True)
    fig.suptitle("Inference, batch 1, fp32 (TF32 off)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=150)


def table1(plt, part: Optional[Json], path: pathlib.Path) -> None:
    rows = (part or {"rows": []})["rows"]
    measured = {paper.PAPER_NAME.get(r["model"], r["model"]):
                ratio((r.get("single") or {}).get("measured_ms"), (r.get("multi") or {}).get("measured_ms"))
                for r in rows}
    labels = list(measured) + [name for name in paper.TABLE1 if name not in measured]
    fig, ax = plt.subplots(figsize=(9, 4))
    grouped_bars(ax, labels, {"this GPU": [measured.get(n) for n in labels],
                              "V100 (paper, Table 1)": [paper.TABLE1.get(n, {}).get("speedup") for n in labels]},
                 "multi-stream / single-stream", unity=True)
    fig.suptitle("Multi-stream over single-stream Nimble, batch 1", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=150)


def fig7(plt, part: Json, path: pathlib.Path) -> None:
    rows = part["rows"]
    labels = [f"{r['model']} b{r.get('batch', '?')}" for r in rows]
    fig, ax = plt.subplots(figsize=(10, 4))
    grouped_bars(ax, labels, {"Nimble": by_model(rows, lambda r: training_speedup(r, "nimble")),
                              "torch.compile reduce-overhead": by_model(rows, lambda r: training_speedup(r, "compile")),
                              "torch.cuda.graph whole step": by_model(rows, lambda r: training_speedup(r, "cudagraph_step")),
                              "make_graphed_callables": by_model(rows, lambda r: training_speedup(r, "graphed"))},
                 "training throughput over eager", unity=True)
    fig.suptitle(f"Training (samples/s over PyTorch eager; V100: {paper.PLOT_ONLY})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=150)


def write_all(data: Json, out_dir: pathlib.Path) -> Optional[str]:
    """Draws every plot whose part ran; returns why none was drawn, or None."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return f"matplotlib is missing ({e})"
    if data["profile"]:
        fig3(plt, data["profile"], out_dir / "fig3_active_critical.png")
    table1(plt, data["inference"], out_dir / "table1_multistream.png")  # the paper's rows at least
    if data["inference"]:
        fig5(plt, data["inference"], out_dir / "fig5_inference_speedup.png")
    if data["training"]:
        fig7(plt, data["training"], out_dir / "fig7_training_throughput.png")
    plt.close("all")
    return None
