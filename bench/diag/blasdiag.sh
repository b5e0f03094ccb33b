# cuBLAS and cuBLASLt call logs of one GPT-2 layer: PyTorch running the TorchScript module against nimble-accelerate.

python3 - <<'PY'
import torch
from transformers import GPT2Config, GPT2Model
class E(torch.nn.Module):
    def __init__(s, m): super().__init__(); s.m = m
    def forward(s, x): return s.m(inputs_embeds=x)[0]
torch.backends.cuda.matmul.allow_tf32 = False
m = E(GPT2Model(GPT2Config(n_layer=1, torchscript=True))).eval().cuda()
x = torch.randn(1, 128, 768, device="cuda")
with torch.no_grad():
    t = torch.jit.trace(m, x, check_trace=False)
t.save("/tmp/g1.pt")
PY
export CUBLASLT_LOG_LEVEL=5 CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG=stderr
python3 -c "
import torch
m = torch.jit.load('/tmp/g1.pt', map_location='cuda')
x = torch.randn(1, 128, 768, device='cuda')
with torch.inference_mode():
    m(x); torch.cuda.synchronize()
print('PYDONE', flush=True)
" 2>&1 | head -c 400000 > $OUT/py_blas.log
build-gpu/cli/nimble-accelerate /tmp/g1.pt --input 1x128x768 --iters 2 --single-stream-only -o /tmp/g1.nimble 2>&1 | head -c 600000 > $OUT/nimble_blas.log
unset CUBLASLT_LOG_LEVEL CUBLAS_LOGINFO_DBG CUBLAS_LOGDEST_DBG
env | grep -i -E "cuda|cublas|torch" > $OUT/env.log
python3 -c "import os, torch; torch.zeros(1).cuda(); print({k:v for k,v in os.environ.items() if 'CUDA' in k or 'CUBLAS' in k or 'TORCH' in k})" >> $OUT/env.log
ldd build-gpu/cli/nimble-accelerate | grep -E "cublas|cudart|torch_cuda" >> $OUT/env.log
python3 -c "import torch, os; print(torch.__file__)" >> $OUT/env.log
grep -c "" $OUT/py_blas.log $OUT/nimble_blas.log
