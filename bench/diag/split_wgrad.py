"""Does the captured training step gain from computing each convolution's weight gradient on a side
stream, beside the input gradient the rest of the backward waits for? The paper's CNNs (torchvision,
random weights, 10 classes), batch 32 on 32x32, SGD (lr 0.002, momentum 0.9), float32, TF32 off,
cuDNN's timed picks; the whole step captured with torch.cuda.graph (median of 3 rounds of 100 replays).
    python3 bench/diag/split_wgrad.py resnet50 mobilenet_v2 efficientnet_b0
    python3 bench/diag/split_wgrad.py --check resnet50   # does the split step compute the same update?
--check: eager steps (no capture) with deterministic algorithms, the split model against an unsplit copy
from the same weights on the same batch; the largest relative parameter difference after each step.
"""
import sys, time, copy, torch, torchvision, torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True


class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, conv, streams):
        ctx.save_for_backward(x, weight)
        ctx.conv, ctx.streams, ctx.has_bias = conv, streams, bias is not None
        return F.conv2d(x, weight, bias, conv.stride, conv.padding, conv.dilation, conv.groups)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        conv = ctx.conv
        args = (conv.stride, conv.padding, conv.dilation, False, [0, 0], conv.groups)
        bias_sizes = [weight.shape[0]] if ctx.has_bias else None
        main = torch.cuda.current_stream()
        side = ctx.streams[conv._split_index % len(ctx.streams)]
        side.wait_stream(main)
        with torch.cuda.stream(side):
            _, gw, gb = torch.ops.aten.convolution_backward(grad, x, weight, bias_sizes, *args,
                                                            [False, True, ctx.has_bias])
            conv.weight.grad.copy_(gw)
            if ctx.has_bias:
                conv.bias.grad.copy_(gb)
        grad.record_stream(side)
        x.record_stream(side)
        gx = None
        if ctx.needs_input_grad[0]:
            gx = torch.ops.aten.convolution_backward(grad, x, weight, None, *args, [True, False, False])[0]
        return gx, None, None, None, None


def split_convs(model, streams):
    convs = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    for i, conv in enumerate(convs):
        conv._split_index = i
        conv.weight.grad = torch.zeros_like(conv.weight)
        if conv.bias is not None:
            conv.bias.grad = torch.zeros_like(conv.bias)

        def forward(x, conv=conv):
            # Weight and bias enter as they are, so that the backward runs even where the input needs no
            # gradient (the first convolution); it returns None for them and writes their gradients on
            # the side stream instead.
            return Split.apply(x, conv.weight, conv.bias, conv, streams)
        conv.forward = forward


def run(name, variant, n_side):
    torch.manual_seed(0)
    m = getattr(torchvision.models, name)(num_classes=10).cuda().train()
    streams = [torch.cuda.Stream() for _ in range(n_side)]
    if variant == "split":
        split_convs(m, streams)
    opt = torch.optim.SGD(m.parameters(), lr=0.002, momentum=0.9)
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(32, 3, 32, 32, device="cuda", generator=g)
    y = torch.randint(0, 10, (32,), device="cuda", generator=g)

    def body():
        opt.zero_grad(set_to_none=(variant != "split"))
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        main = torch.cuda.current_stream()
        for s in streams:
            main.wait_stream(s)
        opt.step()
        return loss
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            body()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        loss = body()
    losses = []
    for _ in range(20):
        g.replay()
        losses.append(loss.item())
    res = []
    for r in range(3):
        torch.cuda.synchronize(); t = time.perf_counter()
        for _ in range(100):
            g.replay()
        torch.cuda.synchronize(); res.append((time.perf_counter() - t) / 100 * 1e3)
    res.sort()
    w = torch.cat([p.detach().flatten() for p in m.parameters()])
    print(f"{name} {variant} side={n_side}: graph {res[1]:.3f} ms; loss after 23 steps {losses[-1]:.6f}; "
          f"|w| {w.norm().item():.6f}", flush=True)


def check(name, steps=5):
    import os
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.manual_seed(0)
    plain = getattr(torchvision.models, name)(num_classes=10).cuda().train()
    split = copy.deepcopy(plain)
    streams = [torch.cuda.Stream()]
    split_convs(split, streams)
    opts = [torch.optim.SGD(m.parameters(), lr=0.002, momentum=0.9) for m in (plain, split)]
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(32, 3, 32, 32, device="cuda", generator=g)
    y = torch.randint(0, 10, (32,), device="cuda", generator=g)
    for k in range(steps):
        losses = []
        for m, opt, set_none in ((plain, opts[0], True), (split, opts[1], False)):
            opt.zero_grad(set_to_none=set_none)
            torch.manual_seed(100 + k)  # the same dropout masks on both sides
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            torch.cuda.current_stream().wait_stream(streams[0])
            opt.step()
            losses.append(loss.item())
        worst = max(((a - b).norm() / b.norm().clamp_min(1e-12)).item()
                    for a, b in zip(split.parameters(), plain.parameters()))
        print(f"{name} check step {k + 1}: loss plain {losses[0]:.6f} split {losses[1]:.6f}; "
              f"largest relative parameter difference {worst:.2e}", flush=True)


if sys.argv[1:2] == ["--check"]:
    for name in sys.argv[2:]:
        check(name)
    sys.exit(0)
for name in sys.argv[1:]:
    run(name, "plain", 0)
    run(name, "split", 1)
    run(name, "split", 2)
    run(name, "plain", 0)
