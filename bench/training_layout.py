"""Does channels_last help the captured training step? The paper's three CNNs (torchvision, random
weights, 10 classes) at batch 32 on 32x32 inputs, one SGD step (lr 0.002, momentum 0.9), float32 with
TF32 off and cuDNN's timed picks, in NCHW and in channels_last (model and batch converted): the eager
step (mean of 50) and the whole step captured with torch.cuda.graph (median of 3 rounds of 100 replays).
    python3 bench/training_layout.py resnet50 mobilenet_v2 efficientnet_b0
"""
import sys, time, torch, torchvision, torch.nn.functional as F
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
def run(name, fmt, bench):
    torch.backends.cudnn.benchmark = bench
    torch.manual_seed(0)
    m = getattr(torchvision.models, name)(num_classes=10).cuda().train()
    if fmt == "cl":
        m = m.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(m.parameters(), lr=0.002, momentum=0.9)
    x = torch.randn(32, 3, 32, 32, device="cuda")
    if fmt == "cl":
        x = x.contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 10, (32,), device="cuda")
    def body():
        opt.zero_grad(set_to_none=False)
        loss = F.cross_entropy(m(x), y); loss.backward(); opt.step(); return loss
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(5): body()
    torch.cuda.current_stream().wait_stream(s)
    # eager timing
    torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(50): body()
    torch.cuda.synchronize(); eager = (time.perf_counter() - t) / 50 * 1e3
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        static = body()
    for _ in range(10): g.replay()
    res = []
    for r in range(3):
        torch.cuda.synchronize(); t = time.perf_counter()
        for _ in range(100): g.replay()
        torch.cuda.synchronize(); res.append((time.perf_counter() - t) / 100 * 1e3)
    res.sort()
    print(f"{name} {fmt} benchmark={bench}: eager {eager:.3f} ms, graph {res[1]:.3f} ms", flush=True)
for name in sys.argv[1:]:
    for fmt in ("nchw", "cl"):
        for bench in (True,):
            run(name, fmt, bench)
