#!/usr/bin/env python3
"""Exports the sample models Nimble is measured on as TorchScript files, with random weights.

Nothing is downloaded: torchvision models are built with weights=None, timm's with pretrained=False,
and the cell networks (DARTS, AmoebaNet, NASNet-A mobile) from their published cells by cell_networks.py. Each model is traced in eval mode (tracing records one straight-line run, which is
what ahead-of-time scheduling needs), saved as <name>.pt, loaded back and checked against the eager
model, and recorded in <out>/manifest.json (file, input shape, export time, size), which later
exports into the same folder extend. Usage:

    export_models.py --out build-models --models resnet50 inception_v3 --device cpu
"""

import argparse
import importlib
import json
import pathlib
import sys
import time

import torch

from random_weights import set_batch_norm_statistics

MANIFEST_FORMAT = 1


def _torchvision(name, **kwargs):
    import torchvision.models as models

    return getattr(models, name)(weights=None, **kwargs)


def _timm(name):
    import timm

    return timm.create_model(name, pretrained=False)


def _cells(name):
    # cell_networks.py sits beside this file, which is also loaded by path (bench/accelerate_bench.py).
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    try:
        import cell_networks
    finally:
        sys.path.pop(0)
    return cell_networks.build(name)


# name -> (library, builder, input shape). Inception-v3 and GoogLeNet skip their auxiliary heads (not
# used in inference) and torchvision's weight initialisation (scipy's truncated normal, slow and
# pointless for random weights).
MODELS = {
    "resnet50": ("torchvision", lambda: _torchvision("resnet50"), [1, 3, 224, 224]),
    "inception_v3": ("torchvision", lambda: _torchvision("inception_v3", aux_logits=False, init_weights=False),
                     [1, 3, 299, 299]),
    "mobilenet_v2": ("torchvision", lambda: _torchvision("mobilenet_v2"), [1, 3, 224, 224]),
    "efficientnet_b0": ("torchvision", lambda: _torchvision("efficientnet_b0"), [1, 3, 224, 224]),
    "nasnetalarge": ("timm", lambda: _timm("nasnetalarge"), [1, 3, 331, 331]),
    "googlenet": ("torchvision", lambda: _torchvision("googlenet", aux_logits=False, transform_input=False,
                                                      init_weights=False), [1, 3, 224, 224]),
    # The branchy cell networks of the Nimble paper's Table 1, from their published cells (cell_networks.py).
    "darts": ("torch", lambda: _cells("darts"), [1, 3, 224, 224]),
    "amoebanet": ("torch", lambda: _cells("amoebanet"), [1, 3, 224, 224]),
    "nasnet_mobile": ("torch", lambda: _cells("nasnet_mobile"), [1, 3, 224, 224]),
}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=pathlib.Path, help="folder for the .pt files and manifest.json")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS), metavar="NAME",
                        help="models to export (default: all of %(choices)s)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                        help="device to trace on; the file loads on either (default: cpu)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the random weights and inputs")
    parser.add_argument("--tf32", action="store_true",
                        help="trace with TF32 convolutions allowed (PyTorch's default). A traced convolution keeps "
                             "the flag as a constant that TorchScript obeys whatever the process sets later, so "
                             "the PyTorch baselines that load the file run at the precision it was traced with; "
                             "Nimble's tools set it to the precision they run. Default: IEEE fp32")
    return parser.parse_args(argv)


def export_one(name, out_dir, device):
    """Traces, saves and checks one model; returns its manifest entry."""
    library, build, shape = MODELS[name]
    importlib.import_module(library)  # imported before the clock starts: export times are the model's own
    start = time.perf_counter()
    model = build().eval().to(device)
    calibrating = time.perf_counter()
    set_batch_norm_statistics(model, [shape], device)  # outputs that depend on the input (random_weights.py)
    start += time.perf_counter() - calibrating  # not part of the export time
    example = torch.randn(shape, device=device)
    with torch.no_grad():
        traced = torch.jit.trace(model, example, check_trace=False)
        path = out_dir / f"{name}.pt"
        traced.save(str(path))
        export_seconds = time.perf_counter() - start
        # The saved file, not the in-memory trace, is what Nimble reads: check that one.
        reloaded = torch.jit.load(str(path), map_location=device)
        expected, actual = model(example), reloaded(example)
    max_abs_diff = (expected - actual).abs().max().item()
    if not torch.allclose(expected, actual, rtol=1e-4, atol=1e-4):
        raise RuntimeError(f"{name}: the saved model differs from the eager one (max abs diff {max_abs_diff:g})")
    return {
        "file": path.name,
        "input_shape": shape,
        "traced_on": device,
        "export_seconds": round(export_seconds, 2),
        "bytes": path.stat().st_size,
        "max_abs_diff": max_abs_diff,
    }


def load_manifest(path):
    if path.exists():
        manifest = json.loads(path.read_text())
        if manifest.get("format") == MANIFEST_FORMAT:
            return manifest
    return {"format": MANIFEST_FORMAT, "models": {}}


def main(argv):
    args = parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print("export_models.py: --device cuda but torch sees no CUDA device", file=sys.stderr)
        return 2
    torch.manual_seed(args.seed)
    torch.backends.cudnn.allow_tf32 = args.tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    args.out.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "manifest.json"
    manifest = load_manifest(manifest_path)
    manifest["torch"] = torch.__version__
    manifest["tf32_convolutions"] = args.tf32
    for name in args.models:
        entry = export_one(name, args.out, args.device)
        manifest["models"][name] = entry
        # Written after every model, so an interrupted run keeps what it finished.
        manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
        print(f"{name}: {entry['file']} {entry['bytes'] / 1e6:.1f} MB, input {entry['input_shape']}, "
              f"exported in {entry['export_seconds']:.1f} s, max abs diff {entry['max_abs_diff']:.2g}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
