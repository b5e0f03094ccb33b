# GPT-2's addmm under nimble-accelerate with cuBLASLt's workspace and path settings varied.
set -u
python3 - <<'PY'
import torch
from transformers import GPT2Config, GPT2Model
class E(torch.nn.Module):
    def __init__(s, m): super().__init__(); s.m = m
    def forward(s, x): return s.m(inputs_embeds=x)[0]
torch.backends.cuda.matmul.allow_tf32 = False
m = E(GPT2Model(GPT2Config(n_layer=6, torchscript=True))).eval().cuda()
x = torch.randn(1, 128, 768, device="cuda")
with torch.no_grad():
    t = torch.jit.trace(m, x, check_trace=False)
t.save("/tmp/g6.pt")
def med(fn):
    for _ in range(10): fn()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(200):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    return sorted(ts)[100]
with torch.inference_mode():
    st = torch.cuda.Stream(); st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        for _ in range(3): m(x)
    torch.cuda.current_stream().wait_stream(st)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        m(x)
    print("eager nn.Module CUDA graph ms", med(g.replay))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        m(x); torch.cuda.synchronize()
    names = {}
    for ev in p.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            names[ev.name[:70]] = names.get(ev.name[:70], 0) + 1
    print("eager kernels:", sorted(names.items(), key=lambda kv: -kv[1])[:8])
PY
run() { echo "=== $*"; env "$@" build-gpu/cli/nimble-accelerate /tmp/g6.pt --input 1x128x768 --iters 200 --single-stream-only -o /tmp/g.nimble 2>&1 | grep -E "aot-single|baseline|eager"; }
run X=1
run CUBLASLT_WORKSPACE_SIZE=32768
run TORCH_CUBLASLT_UNIFIED_WORKSPACE=1
run DISABLE_ADDMM_CUDA_LT=1
run CUBLASLT_WORKSPACE_SIZE=32768 DISABLE_ADDMM_CUDA_LT=1
