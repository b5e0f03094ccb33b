"""Does a short kernel running on another stream when a cuDNN convolution starts slow the whole
convolution down? ResNet-50's layer4 3x3 stride-2 convolution (float32, TF32 off, batch 1) on stream A,
and on stream B ATen's bias add of the block's downsample output (2048x7x7), started `offset` µs after
the convolution is released (negative: before). Each stream waits on a sleep kernel, so the host's
launches are done before either starts. Then the same with the device's cache preference set
(cudaDeviceSetCacheConfig), which the SMs' shared-memory/L1 split of kernels without their own
preference follows. Prints one line per offset: the convolution's median time alone and beside the add.
    python3 bench/diag/overlap_start.py
"""
import ctypes, statistics, torch

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
dev = torch.device("cuda")
x = torch.randn(1, 512, 14, 14, device=dev)
w = torch.randn(512, 512, 3, 3, device=dev) * 0.02
d = torch.randn(1, 2048, 7, 7, device=dev)
bias = torch.randn(1, 2048, 1, 1, device=dev)
a, b = torch.cuda.Stream(), torch.cuda.Stream()


def conv():
    return torch.nn.functional.conv2d(x, w, None, 2, 1)


for _ in range(5):
    conv(); d.add_(bias)
torch.cuda.synchronize()

# cycles per µs of the sleep kernel
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record(); torch.cuda._sleep(2_000_000); e.record(); e.synchronize()
cycles_per_us = 2_000_000 / (s.elapsed_time(e) * 1000)
lead_us = 300  # both streams idle until the host has launched everything


def one(offset_us, with_add):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    with torch.cuda.stream(a):
        torch.cuda._sleep(int(lead_us * cycles_per_us))
        start.record(a)
        conv()
        end.record(a)
    if with_add:
        with torch.cuda.stream(b):
            torch.cuda._sleep(int((lead_us + offset_us) * cycles_per_us))
            for _ in range(3):
                d.add_(bias)
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1000


def sweep(label):
    alone = statistics.median(one(0, False) for _ in range(30))
    print(f"{label}: the convolution alone {alone:.1f} us")
    for offset in (-12, -8, -6, -4, -3, -2, -1, 0, 1, 2, 4, 8):
        beside = statistics.median(one(offset, True) for _ in range(30))
        print(f"  add released {offset:+3d} us from the convolution: {beside:7.1f} us ({beside / alone:.2f}x)")


sweep("default cache preference")
# the CUDA runtime torch has loaded
cudart = next(line.split()[-1] for line in open("/proc/self/maps") if "libcudart" in line)
lib = ctypes.CDLL(cudart)
for name, value in (("prefer shared", 1), ("prefer equal", 3), ("prefer L1", 2)):
    rc = lib.cudaDeviceSetCacheConfig(value)
    sweep(f"cudaDeviceSetCacheConfig({name}) -> {rc}")
