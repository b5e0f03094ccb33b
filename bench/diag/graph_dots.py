"""PyTorch's CUDA graphs of ResNet-50 float32 (batch 1, TF32 off) as Graphviz dot, to set beside
`nimble-accelerate --dump-graphs`: the nn.Module and the traced, frozen TorchScript module, each captured
with torch.cuda.graph (keep_graph, so the graph is printed before it is instantiated).
    python3 bench/diag/graph_dots.py OUT_DIR [model]
"""
import os, sys, torch, torchvision

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
out = sys.argv[1]
name = sys.argv[2] if len(sys.argv) > 2 else "resnet50"
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
model = getattr(torchvision.models, name)(weights=None).eval().cuda()
x = torch.randn(1, 3, 224, 224, device="cuda")
with torch.no_grad():
    frozen = torch.jit.freeze(torch.jit.trace(model, x, check_trace=False))
for label, module in (("module", model), ("frozen", frozen)):
    side = torch.cuda.Stream(); side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.inference_mode():
        for _ in range(3):
            module(x)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph(keep_graph=True)
    with torch.cuda.graph(g), torch.inference_mode():
        module(x)
    g.debug_dump(os.path.join(out, f"torch-{label}.dot"))
    g.replay()
    torch.cuda.synchronize()
    print(f"{label}: {os.path.getsize(os.path.join(out, f'torch-{label}.dot'))} bytes of dot", flush=True)
