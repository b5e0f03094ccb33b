"""Where does Nimble's ResNet-50 float32 replay (batch 1, TF32 off) spend the time PyTorch's CUDA graph of
the same model does not? In one process: torch.cuda.graph of the nn.Module, of the .pt2's module, of
the traced and frozen TorchScript module, and Nimble's single-stream replay of the .pt2 (through the
Python package), timed in alternation (median of 200, five rounds); the frozen module's graph also with
the input copied into its static buffer first, as Nimble's call does; with --kernels, then 20 replays
of each under torch.profiler: kernels grouped by name, and the idle time between them, per replay.
    python3 bench/diag/resnet_fp32_kernels.py [model] [--kernels]
"""
import collections, statistics, sys, tempfile, torch, torchvision
import nimble

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


def graphed(module, x):
    side = torch.cuda.Stream(); side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.inference_mode():
        for _ in range(3):
            module(x)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g), torch.inference_mode():
        module(x)
    return g.replay


name = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "resnet50"
torch.manual_seed(0)
model = getattr(torchvision.models, name)(weights=None).eval().cuda()
x = torch.randn(1, 3, 224, 224, device="cuda")
work = tempfile.mkdtemp()
with torch.no_grad():
    program = torch.export.export(model, (x,))
    torch.export.save(program, f"{work}/m.pt2")
    frozen = torch.jit.freeze(torch.jit.trace(model, x, check_trace=False))
fast = nimble.accelerate(f"{work}/m.pt2", (x,), mode="single", iters=50, record_replays=0)
print(fast.report, flush=True)
static_x = x.clone()
frozen_replay = graphed(frozen, static_x)


def frozen_with_copy():
    static_x.copy_(x)
    frozen_replay()


variants = {
    "module": graphed(model, x),
    "pt2 module": graphed(torch.export.load(f"{work}/m.pt2").module(), x),
    "frozen TorchScript": frozen_replay,
    "frozen TorchScript (input copy + replay)": frozen_with_copy,
    "nimble (input copy + replay)": lambda: fast(x),
}
for round_ in range(5):
    line = [f"{label} {median_ms(fn):.3f}" for label, fn in variants.items()]
    line.append(f"nimble latencies_ns {sorted(fast.latencies_ns(200))[100] / 1e6:.3f}")
    print(f"round {round_}: " + ", ".join(line), flush=True)

for label, fn in (variants.items() if "--kernels" in sys.argv else ()):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(20):
            fn()
            torch.cuda.synchronize()
    kernels = sorted(((ev.time_range.start, ev.time_range.end, ev.name) for ev in prof.events()
                      if ev.device_type == torch.autograd.DeviceType.CUDA), key=lambda k: k[0])
    # Replays are split where the GPU idles longer than 20 us (the host's wait between replays).
    replays, current = [], [kernels[0]]
    for k in kernels[1:]:
        if k[0] - current[-1][1] > 20:
            replays.append(current)
            current = []
        current.append(k)
    replays.append(current)
    spans, gaps, worst = [], [], collections.defaultdict(float)
    for r in replays[2:-2]:
        spans.append(r[-1][1] - r[0][0])
        gaps.append(sum(max(0.0, b[0] - a[1]) for a, b in zip(r, r[1:])))
        for a, b in zip(r, r[1:]):
            worst[(a[2][:40], b[2][:40])] += max(0.0, b[0] - a[1]) / len(replays[2:-2])
    print(f"\n-- {label}: {len(replays)} replays seen; per replay: span {statistics.median(spans):.1f} us, "
          f"idle between kernels {statistics.median(gaps):.1f} us over {len(replays[2]) - 1} gaps")
    for (a, b), us in sorted(worst.items(), key=lambda kv: -kv[1])[:6]:
        print(f"     {us:7.1f} us after {a} before {b}")
    groups = collections.defaultdict(lambda: [0, 0.0])
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            key = ev.name[:90]
            groups[key][0] += 1
            groups[key][1] += ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
    total = sum(v[1] for v in groups.values()) / 20
    count = sum(v[0] for v in groups.values()) / 20
    print(f"\n== {label}: {count:.0f} kernels per replay, {total:.1f} us of kernel time per replay")
    for key, (n, us) in sorted(groups.items(), key=lambda kv: -kv[1][1])[:14]:
        print(f"  {n / 20:6.1f} x  {us / 20:8.1f} us  {key}")
