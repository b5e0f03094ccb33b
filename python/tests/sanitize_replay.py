"""Run under compute-sanitizer (racecheck, memcheck) on a GPU machine: a multi-stream capture made by
nimble.accelerate, then calls on the default stream, a side stream and the default stream again, each
checked against the unmodified model. Not a pytest test (it is slow under the sanitizer); exit code 0
when every output matched. Usage: compute-sanitizer --tool racecheck python3 python/tests/sanitize_replay.py"""

import sys

import torch

import nimble


class Branches(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.convs = torch.nn.ModuleList(torch.nn.Conv2d(8, 8, k, padding=k // 2) for k in (1, 3, 5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return sum(torch.relu(c(x)) for c in self.convs)


def main() -> int:
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    model = Branches().cuda().eval()
    x = torch.randn(1, 8, 16, 16, device="cuda")
    fast = nimble.accelerate(model, x, mode="multi", iters=3, tf32=False, progress=False)
    assert fast.mode == "aot-multi" and fast.report.multi.streams >= 3, fast.report
    side = torch.cuda.Stream()
    ok = True
    with torch.no_grad():
        for step in range(3):
            xi = torch.randn_like(x)
            expected = model(xi)
            if step == 1:
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    got = fast(xi).clone()
                torch.cuda.current_stream().wait_stream(side)
            else:
                got = fast(xi).clone()
            ok &= torch.allclose(got, expected, rtol=1e-3, atol=2e-3)
    torch.cuda.synchronize()
    print("outputs match" if ok else "outputs differ", fast.report.multi)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
