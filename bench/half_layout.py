"""Does channels_last help inference replays? torchvision CNNs (random weights) at batch 1, in the dtypes
given (default float16; float32 with TF32 off), traced, frozen and optimized for inference by
torch.jit.optimize_for_inference (conv-batchnorm folding as nimble-accelerate does, and conv-add-relu
fusion, which nimble-accelerate leaves to --cuda-fusions), captured with torch.cuda.graph once in NCHW
and once with the frozen graph's convolution weights and the input converted to channels_last.
cuDNN's timed picks. Median of 5 rounds
of 200 replays (ms), both layouts timed in one process. Also counts the kernels of one replay's eager
run with torch.profiler, to show the layout transposes.
    python3 bench/half_layout.py [--dtypes float16,bfloat16,float32] resnet50 inception_v3 googlenet mobilenet_v2
"""
import sys, time, torch, torchvision

torch.backends.cudnn.benchmark = True
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False


def frozen(name, dtype):
    torch.manual_seed(0)
    kwargs = {"aux_logits": False, "init_weights": False} if name in ("inception_v3", "googlenet") else {}
    m = getattr(torchvision.models, name)(weights=None, **kwargs).eval().to("cuda", dtype)
    size = 299 if name == "inception_v3" else 224
    x = torch.randn(1, 3, size, size, device="cuda", dtype=dtype)
    with torch.no_grad():
        f = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(m, x)))
    return f, x


def to_channels_last(f):
    g = f.graph
    converted = 0
    for node in g.findAllNodes("prim::Constant"):
        out = node.output()
        if out.type().kind() != "TensorType":
            continue
        t = out.toIValue()
        if t.dim() == 4 and t.is_cuda:
            node.t_("value", t.contiguous(memory_format=torch.channels_last))
            converted += 1
    return converted


def time_graph(f, x, layout):
    static = x.clone()
    if layout == "cl":
        static = static.contiguous(memory_format=torch.channels_last)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(s):
        for _ in range(5):
            f(static)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(g):
        out = f(static)
    for _ in range(20):
        g.replay()
    rounds = []
    for _ in range(5):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(200):
            g.replay()
        torch.cuda.synchronize()
        rounds.append((time.perf_counter() - t) / 200 * 1e3)
    rounds.sort()
    with torch.no_grad(), torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        f(static)
        torch.cuda.synchronize()
    kernels = [e for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    transposes = sum(1 for e in kernels if "nchwToNhwc" in e.name or "nhwcToNchw" in e.name)
    return rounds[2], out.float(), len(kernels), transposes


args = sys.argv[1:]
dtypes = [torch.float16]
if args and args[0] == "--dtypes":
    dtypes = [getattr(torch, d) for d in args[1].split(",")]
    args = args[2:]
for name in args:
    for dtype in dtypes:
        f, x = frozen(name, dtype)
        nchw, ref, k1, t1 = time_graph(f, x, "nchw")
        n = to_channels_last(f)
        cl, got, k2, t2 = time_graph(f, x, "cl")
        err = ((got - ref).abs().max() / ref.abs().max()).item()
        print(f"{name} {dtype}: NCHW {nchw:.3f} ms ({k1} kernels, {t1} transposes), channels_last {cl:.3f} ms "
              f"({k2} kernels, {t2} transposes, {n} constants converted), {nchw / cl:.3f}x, max rel diff {err:.1e}",
              flush=True)
