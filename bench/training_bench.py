"""Training throughput on the GPU machine: the paper's three CNNs (ResNet-50, MobileNetV2,
EfficientNet-B0; torchvision architectures, random weights, 10 classes) at batch 32 on 32x32 inputs,
one SGD step (lr 0.002, momentum 0.9) per batch; and, as --models bert_base, BERT-base (samples/models/bert.py,
random weights, two labels) at batch 8 on 128 random tokens. Each side runs in a process of its own, on the
same batches:

- eager: zero_grad, forward, cross-entropy, backward, optimizer.step();
- nimble: nimble.accelerate_training (the whole step captured, forward multi-stream where it has width,
  cuDNN's algorithms timed during its warm-up as it does by default),
  called as a training loop calls it; in the same process, the parity check: 100 steps against an eager
  copy from the same weights, batches and random-number state;
- nimble_heuristic: the same with cudnn_benchmark=False (cuDNN's heuristic picks, as every other side uses);
- cudagraph_step: the same whole step captured by hand with torch.cuda.graph (PyTorch's documented recipe);
- graphed: torch.cuda.make_graphed_callables on the model, loss and optimizer eager;
- compile: torch.compile(model, mode="reduce-overhead"), optimizer eager; compile time is its first 3 steps;
- deterministic: the parity check again with torch.use_deterministic_algorithms (warn_only: ops without a
  deterministic kernel stay as they are) and cuDNN's heuristic picks on both sides, where eager against
  eager is (near) exact, so that what is left is the capture's own difference.

Parity figures: losses as max |a - b| / max |b| over the 100 steps; parameters as the relative L2
distance over all of them (nimble._training.parameter_distance).

Step time: wall clock over --steps steps after warm-up, median of 3 rounds. float32 with TF32 off on
every side unless --tf32. Writes one JSON line per model to OUT/training.jsonl and prints a markdown table.
    python3 bench/training_bench.py --out DIR [--models "resnet50 mobilenet_v2 efficientnet_b0"] [--steps 100]

--cpp BIN (the CNNs only) measures the C++ training step instead: each model is scripted in training
mode (torch.jit.script, saved to OUT/models), and BIN (accelerate/bench/training_cpp_bench.cpp) captures it with
nimble::accelerate::TrainingStep, checks 100 captured steps against 100 eager steps of the same TorchScript
module in C++, and times both; Python's eager variant runs beside it, in its own process. --memsets
(with --cpp) runs BIN once more per model with --keep-memset-nodes and tabulates the two captures. Where
the C++ step measured its multi-stream capture with both shared-memory carveouts, a table gives both.
Writes OUT/training_cpp.jsonl and prints a markdown table.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List

VARIANTS = ("eager", "nimble", "nimble_heuristic", "cudagraph_step", "graphed", "compile", "deterministic")
BATCH, IMAGE, CLASSES = 32, 32, 10
# bert_base: samples/models/bert.py (BERT-base, random weights, two labels) on random token ids, the
# batch and sequence length of a fine-tuning step on one small batch.
BERT_BATCH, BERT_SEQUENCE, BERT_LABELS = 8, 128, 2
# On random images and labels a larger rate makes the loss climb, and a diverging run turns any rounding
# difference into a large one: the parity figures would measure chaos, not the capture.
LR = 0.002


def batch_of(name: str) -> int:
    return BERT_BATCH if name == "bert_base" else BATCH


def setup(name: str, tf32: bool):
    import torch
    import torchvision

    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.manual_seed(0)
    generator = torch.Generator(device="cuda").manual_seed(1)
    if name == "bert_base":
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples", "models"))
        import bert

        model = bert.BertForClassification(labels=BERT_LABELS).cuda().train()
        batches = [(torch.randint(0, bert.VOCAB, (BERT_BATCH, BERT_SEQUENCE), device="cuda", generator=generator),
                    torch.randint(0, BERT_LABELS, (BERT_BATCH,), device="cuda", generator=generator)) for _ in range(8)]
    else:
        model = getattr(torchvision.models, name)(num_classes=CLASSES).cuda().train()
        batches = [(torch.randn(BATCH, 3, IMAGE, IMAGE, device="cuda", generator=generator),
                    torch.randint(0, CLASSES, (BATCH,), device="cuda", generator=generator)) for _ in range(8)]
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    return model, optimizer, batches


def step_ms(step: Callable[[Any, Any], Any], batches: List, steps: int) -> float:
    import torch

    for k in range(5):
        step(*batches[k % len(batches)])
    rounds = []
    for _ in range(3):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for k in range(steps):
            step(*batches[k % len(batches)])
        torch.cuda.synchronize()
        rounds.append((time.perf_counter() - start) * 1e3 / steps)
    return statistics.median(rounds)


def eager_step(model, optimizer):
    import torch.nn.functional as F

    def step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss
    return step


def parity(model, optimizer, batches, steps: int, cudnn_benchmark: bool = True) -> Dict[str, Any]:
    """`steps` captured steps against an eager copy from the same weights, batches and RNG state, and
    beside it the noise floor: a second eager copy against the first (cuDNN's and cuBLAS's defaults,
    as a user trains)."""
    import torch
    import torch.nn.functional as F
    import nimble
    from nimble._training import parameter_distance, relative_difference

    twins = [copy.deepcopy(model) for _ in range(2)]
    references = [eager_step(t, torch.optim.SGD(t.parameters(), lr=LR, momentum=0.9)) for t in twins]
    step = nimble.accelerate_training(model, F.cross_entropy, optimizer, batches[0], iters=20,
                                      cudnn_benchmark=cudnn_benchmark)
    rng = torch.cuda.get_rng_state()
    got = [step(*batches[k % len(batches)]) for k in range(steps)]
    expected = []
    for reference in references:
        torch.cuda.set_rng_state(rng)
        expected.append([reference(*batches[k % len(batches)]).detach() for k in range(steps)])
    torch.cuda.synchronize()

    def loss_diff(a, b):
        return relative_difference(torch.stack(a), torch.stack(b))

    def param_diff(a, b):
        return parameter_distance(list(a.parameters()), list(b.parameters()))
    return {"steps": steps,
            "max_loss_rel_diff": loss_diff(got, expected[0]),
            "max_param_rel_diff": param_diff(model, twins[0]),
            "eager_vs_eager_loss_rel_diff": loss_diff(expected[1], expected[0]),
            "eager_vs_eager_param_rel_diff": param_diff(twins[1], twins[0]),
            "final_loss": float(got[-1]), "first_loss": float(got[0])}, step


def run_one(name: str, variant: str, steps: int, tf32: bool) -> Dict[str, Any]:
    import torch
    import torch.nn.functional as F

    model, optimizer, batches = setup(name, tf32)
    out: Dict[str, Any] = {"variant": variant}
    if variant == "eager":
        out["ms"] = step_ms(eager_step(model, optimizer), batches, steps)
    elif variant == "nimble":
        out["parity"], step = parity(model, optimizer, batches, 100)
        out["ms"] = step_ms(step, batches, steps)
        r = step.report.to_dict()
        out.update(mode=r["chosen"], single_ms=r["single_ms"], multi_ms=r["multi_ms"], streams=r["multi_streams"],
                   syncs=r["multi_syncs"], logical_concurrency=r["logical_concurrency"], capture_s=r["capture_s"],
                   choice_reason=r["choice_reason"], memset_nodes_replaced=r.get("memset_nodes_replaced"),
                   memset_nodes_kept=r.get("memset_nodes_kept"), smem_carveout=r.get("smem_carveout"),
                   carveout_nodes=r.get("carveout_nodes"), multi_smem_carveout=r.get("multi_smem_carveout"),
                   carveout_other_ms=r.get("carveout_other_ms"))
    elif variant == "deterministic":
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.deterministic = True
        out["parity"], step = parity(model, optimizer, batches, 100, cudnn_benchmark=False)
        out["mode"] = step.mode
    elif variant == "nimble_heuristic":
        import nimble

        step = nimble.accelerate_training(model, F.cross_entropy, optimizer, batches[0], iters=20, check_steps=0,
                                          cudnn_benchmark=False)
        out["ms"] = step_ms(step, batches, steps)
        out["mode"] = step.mode
    elif variant == "cudagraph_step":
        static_x, static_y = (t.clone() for t in batches[0])
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                eager_step(model, optimizer)(static_x, static_y)
        torch.cuda.current_stream().wait_stream(side)
        optimizer.zero_grad(set_to_none=True)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_loss = F.cross_entropy(model(static_x), static_y)
            static_loss.backward()
            optimizer.step()

        def replay(x, y):
            static_x.copy_(x)
            static_y.copy_(y)
            graph.replay()
            return static_loss.clone()
        out["ms"] = step_ms(replay, batches, steps)
    elif variant == "graphed":
        graphed = torch.cuda.make_graphed_callables(model, (batches[0][0].clone(),))
        out["ms"] = step_ms(eager_step(graphed, optimizer), batches, steps)
    elif variant == "compile":
        compiled = torch.compile(model, mode="reduce-overhead")
        step = eager_step(compiled, optimizer)
        start = time.perf_counter()
        for k in range(3):
            step(*batches[k])
        torch.cuda.synchronize()
        out["compile_s"] = time.perf_counter() - start
        out["ms"] = step_ms(step, batches, steps)
    return out


def drive(args) -> int:
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for name in args.models.split():
        row: Dict[str, Any] = {"model": name, "batch": batch_of(name), "dtype": "float32", "tf32": args.tf32,
                               "steps": args.steps}
        row.update({"sequence": BERT_SEQUENCE} if name == "bert_base" else {"image": IMAGE})
        for variant in VARIANTS:
            command = [sys.executable, __file__, "--one", name, variant, "--steps", str(args.steps)]
            if args.tf32:
                command.append("--tf32")
            env = dict(os.environ)
            if variant == "deterministic":
                env["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"  # cuBLAS's deterministic mode, read at its start
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, env=env)
            with open(os.path.join(args.out, "training_bench.log"), "a") as log:
                log.write(f"=== {name} {variant} rc {done.returncode}\n{done.stderr[-4000:]}\n")
            try:
                result = json.loads(done.stdout.strip().splitlines()[-1])
            except (IndexError, json.JSONDecodeError):
                result = {"ms": None, "error": (done.stderr.strip().splitlines() or ["no output"])[-1]}
            row[f"{variant}_ms"] = result.get("ms")
            for key, value in result.items():
                if key in ("ms", "variant"):
                    continue
                plain = key == "compile_s" or (variant == "nimble" and key != "error")
                row[key if plain else f"{variant}_{key}"] = value
        row["nimble_mode"] = row.pop("mode", None)
        row["samples_per_s"] = {v: (batch_of(name) / row[f"{v}_ms"] * 1e3 if row.get(f"{v}_ms") else None)
                                for v in VARIANTS if v != "deterministic"}
        rows.append(row)
        with open(os.path.join(args.out, "training.jsonl"), "a") as f:
            f.write(json.dumps(row) + "\n")
    print(markdown(rows))
    return 0


def script_model(name: str, path: str) -> None:
    """The torchvision CNN, scripted in training mode, as the C++ step loads it."""
    import torch
    import torchvision

    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(num_classes=CLASSES).cuda().train()
    torch.jit.script(model).save(path)


def drive_cpp(args) -> int:
    os.makedirs(os.path.join(args.out, "models"), exist_ok=True)
    rows = []
    for name in args.models.split():
        row: Dict[str, Any] = {"model": name, "batch": BATCH, "image": IMAGE, "dtype": "float32", "tf32": args.tf32,
                               "steps": args.steps}
        path = os.path.join(args.out, "models", f"{name}-train.pt")
        runs = [("script", [sys.executable, __file__, "--script", name, path])]
        runs += [(v, [sys.executable, __file__, "--one", name, v, "--steps", str(args.steps)] +
                  (["--tf32"] if args.tf32 else [])) for v in ("eager",)]
        cpp = [args.cpp, path, str(BATCH), "3", str(IMAGE), str(IMAGE), str(CLASSES), str(args.steps), "100"]
        cpp += ["--tf32"] if args.tf32 else []
        runs.append(("cpp", cpp))
        if args.memsets:  # the same capture with its memset nodes left as they are, in a process of its own
            runs.append(("cpp_kept", cpp + ["--keep-memset-nodes"]))
        for label, command in runs:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
            with open(os.path.join(args.out, "training_bench.log"), "a") as log:
                log.write(f"=== {name} {label} rc {done.returncode}\n{done.stderr[-4000:]}\n")
            if label == "script":
                continue
            try:
                result = json.loads(done.stdout.strip().splitlines()[-1])
            except (IndexError, json.JSONDecodeError):
                result = {"error": (done.stderr.strip().splitlines() or ["no output"])[-1]}
            if label.startswith("cpp"):
                row[label] = result
            else:
                row[f"python_{label}_ms"] = result.get("ms")
        rows.append(row)
        with open(os.path.join(args.out, "training_cpp.jsonl"), "a") as f:
            f.write(json.dumps(row) + "\n")
    lines = ["| model | Python eager ms/step | C++ eager (TorchScript) | C++ Nimble | C++ Nimble vs "
             "Python eager | C++ Nimble samples/s | C++ check after 100 steps (loss / params) | capture s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        c, pe = r.get("cpp", {}), r.get("python_eager_ms")
        if "captured_ms" not in c:
            lines.append(f"| {r['model']} | {pe} | failed: {c.get('error')} | | | | | |")
            continue
        fmt = lambda ms: f"{ms:.3f}" if ms else "failed"  # noqa: E731
        lines.append(
            f"| {r['model']} | {fmt(pe)} | {c['eager_ms']:.3f} | {c['captured_ms']:.3f} "
            f"({c['speedup']:.2f}x) | {pe / c['captured_ms']:.2f}x | {c['captured_samples_per_s']:.0f} | "
            f"{c['max_loss_difference']:.1e} / {c['max_parameter_difference']:.1e} | {c['capture_s']:.1f} |"
            if pe else f"| {r['model']} | failed | | | | | | |")
    carveout = [r for r in rows if r.get("cpp", {}).get("carveout_other_ms")]
    if carveout:  # the multi-stream capture timed both ways in the choice (TrainingOptions::smem_carveout)
        lines += ["", "| model | mode kept | multi-stream carveout kept | its step (choice) | the other carveout | "
                  "change | nodes without shared memory |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for r in carveout:
            c = r["cpp"]
            kept = "100 %" if c["multi_smem_carveout"] == 100 else "each kernel's own"
            lines.append(f"| {r['model']} | {c['mode']} | {kept} | {c['multi_ms']:.3f} | {c['carveout_other_ms']:.3f} | "
                         f"{(c['multi_ms'] / c['carveout_other_ms'] - 1) * 100:+.1f} % | {c['carveout_nodes']} (kept capture) |")
    if args.memsets:
        lines += ["", "| model | memset nodes (replaced / kept) | C++ Nimble | memset nodes kept | change |",
                  "| --- | --- | --- | --- | --- |"]
        for r in rows:
            c, k = r.get("cpp", {}), r.get("cpp_kept", {})
            if "captured_ms" in c and "captured_ms" in k:
                lines.append(f"| {r['model']} | {c.get('memset_nodes_replaced')} / {c.get('memset_nodes_kept')} | "
                             f"{c['captured_ms']:.3f} | {k['captured_ms']:.3f} | "
                             f"{(c['captured_ms'] / k['captured_ms'] - 1) * 100:+.1f} % |")
    print("\n".join(lines))
    return 0


def markdown(rows: List[Dict[str, Any]]) -> str:
    def pair(parity, prefix):
        if not parity:
            return "failed"
        loss, params = parity.get(f"{prefix}loss_rel_diff" if prefix else "max_loss_rel_diff"), \
            parity.get(f"{prefix}param_rel_diff" if prefix else "max_param_rel_diff")
        return f"{loss:.1e} / {params:.1e}"

    def cell(row, v):
        ms = row.get(f"{v}_ms")
        if not ms:
            return "failed"
        return f"{ms:.3f} ({row['eager_ms'] / ms:.2f}x)" if row.get("eager_ms") else f"{ms:.3f}"
    lines = ["| model | eager ms/step | Nimble | Nimble, cuDNN heuristics | torch.cuda.graph step | "
             "make_graphed_callables | torch.compile r-o | Nimble samples/s | schedule | "
             "Nimble vs eager after 100 steps (loss / params) | eager vs eager | deterministic: Nimble vs eager | "
             "deterministic: eager vs eager |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        p = r.get("parity") or {}
        d = r.get("deterministic_parity") or {}
        streams = r.get("streams") if r.get("nimble_mode") == "aot-multi" else 1
        nimble_sps = r["samples_per_s"].get("nimble")
        compile_s = f" [{r['compile_s']:.0f} s]" if r.get("compile_s") else ""
        lines.append(
            f"| {r['model']} | {r['eager_ms']:.3f} | {cell(r, 'nimble')} | {cell(r, 'nimble_heuristic')} | "
            f"{cell(r, 'cudagraph_step')} | "
            f"{cell(r, 'graphed')} | {cell(r, 'compile')}{compile_s} | {nimble_sps:.0f} | "
            f"{r.get('nimble_mode')} ({streams} streams, width {r.get('logical_concurrency')}) | "
            f"{p.get('max_loss_rel_diff', float('nan')):.1e} / {p.get('max_param_rel_diff', float('nan')):.1e} | "
            f"{p.get('eager_vs_eager_loss_rel_diff', float('nan')):.1e} / "
            f"{p.get('eager_vs_eager_param_rel_diff', float('nan')):.1e} | {pair(d, '')} | {pair(d, 'eager_vs_eager_')} |"
            if r.get("eager_ms") and nimble_sps else f"| {r['model']} | failed | | | | | | | | | | | |")
    return "\n".join(lines)


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="out")
    parser.add_argument("--models", default="resnet50 mobilenet_v2 efficientnet_b0")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--tf32", action="store_true")
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--one", nargs=2, metavar=("MODEL", "VARIANT"))
    parser.add_argument("--cpp", metavar="BIN", help="the C++ training bench (nimble_training_cpp_bench)")
    parser.add_argument("--memsets", action="store_true",
                        help="with --cpp: each model again with --keep-memset-nodes, side by side")
    parser.add_argument("--script", nargs=2, metavar=("MODEL", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memsets and not args.cpp:
        parser.error("--memsets compares the C++ step's captures: add --cpp BIN")
    if args.script:
        script_model(*args.script)
        return 0
    if args.cpp:
        return drive_cpp(args)
    if args.one:
        print(json.dumps(run_one(args.one[0], args.one[1], args.steps, args.tf32)))
        return 0
    return drive(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
