"""ResNet-50 in float32 (TF32 off) at batch 1 under torch.cuda.graph: the module as torchvision builds
it, against what Nimble's front end runs (traced and frozen: batch norm folded into the convolutions),
each with cuDNN's heuristic picks and with its timed ones (cudnn.benchmark). Median of 200 replays,
twice in alternation.
    python3 bench/diag/resnet_fp32_picks.py [model]
"""
import sys, torch, torchvision

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def median_ms(fn, iters=200):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(iters):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort()
    return ts[len(ts) // 2]


def graphed(module, x, bench):
    torch.backends.cudnn.benchmark = bench
    side = torch.cuda.Stream(); side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(3):
            module(x)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g), torch.no_grad():
        module(x)
    torch.backends.cudnn.benchmark = False
    return g.replay


name = sys.argv[1] if len(sys.argv) > 1 else "resnet50"
torch.manual_seed(0)
model = getattr(torchvision.models, name)().eval().cuda()
x = torch.randn(1, 3, 224, 224, device="cuda")
frozen = {}
for bench in (False, True):  # a traced convolution keeps the benchmark flag of the trace
    torch.backends.cudnn.benchmark = bench
    with torch.no_grad():
        frozen[bench] = torch.jit.freeze(torch.jit.trace(model, x, check_trace=False))
variants = {}
for bench in (False, True):
    variants[f"module benchmark={bench}"] = graphed(model, x, bench)
    variants[f"frozen benchmark={bench}"] = graphed(frozen[bench], x, bench)
for round_ in range(2):
    for label, fn in variants.items():
        print(f"{name} fp32 round {round_}: {label}: {median_ms(fn):.3f} ms", flush=True)
