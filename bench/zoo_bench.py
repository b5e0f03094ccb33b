"""The model zoo of issue-style figures: CNNs, transformers and a mixture of experts, each in float32 and
in half precision, exported to torch.export (.pt2) and TorchScript (.pt), timed with PyTorch and with Nimble.

Two subcommands, each run in its own process by bench/zoo_bench.sh:
  export MODEL DTYPE OUT   writes OUT/MODEL-DTYPE.pt2 (torch.export.save) and .pt (torch.jit.trace, where
                           it traces), and OUT/MODEL-DTYPE.json with the --input text of each input
  torch MODEL DTYPE MODE   one PyTorch baseline, the median latency in ms as JSON on the last line:
                           eager (the nn.Module), cudagraph (the nn.Module captured with torch.cuda.graph),
                           cudagraph-cl (the same with the module and its 4-D inputs in channels_last),
                           exported-graph (the .pt2's ExportedProgram.module() captured the same way),
                           scripted-graph (the traced TorchScript .pt loaded and captured the same way),
                           compile (torch.compile mode="reduce-overhead")
Weights are random (no downloads): the architectures are those of the named models. Batch norm's running
statistics are then set from random input batches (samples/models/random_weights.py), so that every
model's output depends on its input and the output check compares something. float32 rows run
with TF32 off everywhere (IEEE), half rows in their dtype. Token inputs are ids drawn over the vocabulary.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "samples/models"))
from random_weights import set_batch_norm_statistics  # noqa: E402

DEVICE = os.environ.get("NIMBLE_ZOO_DEVICE", "cuda")  # "cpu" checks the exports on a machine without a GPU
GPT2_LAYERS = 6
SEQ = 128


class Tokens(torch.nn.Module):
    """A transformers encoder or decoder from token ids to its last hidden state."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=ids)[0]


class MixtureOfExperts(torch.nn.Module):
    """A transformer block's feed-forward as 8 experts under a softmax router, every expert computed and
    weighted by its gate (dense gating: top-k routing picks rows by value, which no static schedule can
    capture); the experts are the graph's width."""

    def __init__(self, dim: int = 768, hidden: int = 1536, experts: int = 8) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.router = torch.nn.Linear(dim, experts)
        self.experts = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Linear(dim, hidden), torch.nn.GELU(), torch.nn.Linear(hidden, dim))
            for _ in range(experts))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        gates = self.router(h).softmax(dim=-1)
        out = x
        for i, expert in enumerate(self.experts):
            out = out + gates[..., i:i + 1] * expert(h)
        return out


def build(name: str):
    """(model, example inputs as (shape, dtype-or-None for the model's dtype, id range or None))."""
    if name in ("resnet50", "mobilenet_v2", "efficientnet_b0"):
        import torchvision
        return getattr(torchvision.models, name)(weights=None), [((1, 3, 224, 224), None, None)]
    if name == "inception_v3":
        import torchvision
        model = torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=False)
        return model, [((1, 3, 299, 299), None, None)]
    if name == "nasnetalarge":
        import timm
        return timm.create_model("nasnetalarge", pretrained=False), [((1, 3, 331, 331), None, None)]
    if name in ("darts", "amoebanet", "nasnet_mobile"):
        import cell_networks
        return cell_networks.build(name), [((1, 3, 224, 224), None, None)]
    if name == "vit_b_16":
        import timm
        return timm.create_model("vit_base_patch16_224", pretrained=False), [((1, 3, 224, 224), None, None)]
    if name == "bert_base":
        from transformers import BertConfig, BertModel
        config = BertConfig(torchscript=True)
        return Tokens(BertModel(config, add_pooling_layer=False)), [((1, SEQ), torch.int64, config.vocab_size)]
    if name == "gpt2":
        from transformers import GPT2Config, GPT2Model
        config = GPT2Config(n_layer=GPT2_LAYERS, torchscript=True)
        return Tokens(GPT2Model(config)), [((1, SEQ), torch.int64, config.vocab_size)]
    if name == "moe":
        return MixtureOfExperts(), [((1, SEQ, 768), None, None)]
    raise SystemExit(f"unknown model {name}")


DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def instantiate(name: str, dtype_name: str):
    torch.manual_seed(0)
    dtype = DTYPES[dtype_name]
    model, specs = build(name)
    model = model.to(DEVICE)
    if all(input_dtype is None for _, input_dtype, _ in specs):  # image models: float inputs
        set_batch_norm_statistics(model, [shape for shape, _, _ in specs], DEVICE, batches=4, batch_size=8)
    model = model.eval().to(dtype)
    inputs, texts = [], []
    for shape, input_dtype, vocab in specs:
        shape_text = "x".join(map(str, shape))
        if input_dtype is torch.int64:
            inputs.append(torch.randint(0, vocab, shape, device=DEVICE))
            texts.append(f"{shape_text}:int64:0..{vocab - 1}")
        else:
            inputs.append(torch.randn(shape, device=DEVICE, dtype=dtype))
            texts.append(shape_text if dtype_name == "float32" else f"{shape_text}:{dtype_name}")
    return model, tuple(inputs), texts


def ieee() -> None:
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def export(args) -> int:
    ieee()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{args.model}-{args.dtype}"
    model, inputs, texts = instantiate(args.model, args.dtype)
    info = {"inputs": texts, "pt2": None, "pt": None}
    with torch.no_grad():
        start = time.perf_counter()
        try:
            program = torch.export.export(model, inputs)
            torch.export.save(program, str(stem) + ".pt2")
            info["pt2"] = stem.name + ".pt2"
            info["export_s"] = round(time.perf_counter() - start, 1)
        except Exception as e:  # noqa: BLE001 - the table says which front end a model reached
            info["pt2_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
        try:
            traced = torch.jit.trace(model, inputs, check_trace=False)
            traced.save(str(stem) + ".pt")
            info["pt"] = stem.name + ".pt"
        except Exception as e:  # noqa: BLE001
            info["pt_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    (out / f"{args.model}-{args.dtype}.json").write_text(json.dumps(info))
    print(json.dumps(info))
    return 0


def median_ms(fn, iters: int) -> float:
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(iters):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def capture(module, inputs, keep_graph: bool = False):
    """PyTorch's CUDA graph of module(*inputs) after three warm-up calls on a side stream; with
    keep_graph the cudaGraph_t stays for raw_cuda_graph() and the graph is instantiated here."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            module(*inputs)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph(keep_graph=keep_graph)
    with torch.cuda.graph(graph):
        module(*inputs)
    if keep_graph:
        graph.instantiate()
    return graph


def graphed(module, inputs):
    return capture(module, tuple(t.clone() for t in inputs)).replay


def baseline(args) -> int:
    ieee()
    model, inputs, _ = instantiate(args.model, args.dtype)
    result = {"model": args.model, "dtype": args.dtype, "mode": args.mode}
    with torch.inference_mode():
        if args.mode == "eager":
            fn = lambda: model(*inputs)  # noqa: E731
        elif args.mode == "cudagraph":
            fn = graphed(model, inputs)
        elif args.mode == "cudagraph-cl":
            if not any(t.dim() == 4 and t.is_floating_point() for t in inputs):
                raise SystemExit(f"{args.model}: no 4-D input to put in channels_last")
            model = model.to(memory_format=torch.channels_last)
            fn = graphed(model, tuple(t.contiguous(memory_format=torch.channels_last) if t.dim() == 4 else t
                                      for t in inputs))
        elif args.mode == "scripted-graph":  # the traced TorchScript module as export saved it
            scripted = torch.jit.load(str(pathlib.Path(args.out) / f"{args.model}-{args.dtype}.pt"), map_location=DEVICE)
            fn = graphed(scripted, inputs)
        elif args.mode == "exported-graph":
            program = torch.export.load(str(pathlib.Path(args.out) / f"{args.model}-{args.dtype}.pt2"))
            fn = graphed(program.module(), inputs)
        elif args.mode == "compile":
            start = time.perf_counter()
            compiled = torch.compile(model, mode="reduce-overhead")
            for _ in range(3):
                compiled(*inputs)
            torch.cuda.synchronize()
            result["compile_s"] = round(time.perf_counter() - start, 1)
            fn = lambda: compiled(*inputs)  # noqa: E731
        else:
            raise SystemExit(f"unknown mode {args.mode}")
        result["median_ms"] = median_ms(fn, args.iters)
    print(json.dumps(result))
    return 0


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export")
    e.add_argument("model")
    e.add_argument("dtype", choices=list(DTYPES))
    e.add_argument("out")
    t = sub.add_parser("torch")
    t.add_argument("model")
    t.add_argument("dtype", choices=list(DTYPES))
    t.add_argument("mode", choices=["eager", "cudagraph", "cudagraph-cl", "exported-graph", "scripted-graph", "compile"])
    t.add_argument("--out", default=".", help="where export wrote the .pt2 (exported-graph) and the .pt (scripted-graph)")
    t.add_argument("--iters", type=int, default=200)
    args = parser.parse_args(argv)
    return export(args) if args.command == "export" else baseline(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
