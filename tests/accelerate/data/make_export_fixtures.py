"""Writes the torch.export fixtures of export_program_test.cpp into tests/accelerate/data/export/.

Each good fixture is <name>.pt2 (torch.export.export, then torch.export.save; scalar_for_tensor is
then edited, see Atan2Model) and <name>.io.pt, a torch.save'd dict {"inputs": [Tensor], "outputs":
[Tensor]}: fixed example inputs and the eager outputs, which the C++ test reads with
torch::pickle_load. The bad fixtures (bad/) are edits of a good archive (truncated, a future schema
version, an unknown operator, malformed JSON, no model JSON) and programs the loader must refuse
(torch.cond, a buffer updated in place, the same update functionalized into a buffer_mutation).

Run with the project's venv Python (the one whose libtorch the build uses), then commit the files:
    ~/.cache/nimble/venv/bin/python tests/accelerate/data/make_export_fixtures.py
"""

import json
import math
import pathlib
import zipfile
from typing import Callable, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = pathlib.Path(__file__).resolve().parent / "export"


class BranchCnn(nn.Module):
    """conv-bn-relu stem, a 1x1 branch and a 3x3-then-pool branch, concatenated, pooled, classified."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
        self.left = nn.Sequential(nn.Conv2d(4, 4, 1), nn.BatchNorm2d(4), nn.ReLU(inplace=True))
        self.right = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                                   nn.MaxPool2d(3, stride=1, padding=1))
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        y = self.stem(x)
        y = torch.cat([self.left(y), self.right(y)], dim=1)
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.head(y)


class TransformerBlock(nn.Module):
    """Pre-norm block: multi-head self-attention through scaled_dot_product_attention, GELU MLP."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(approximate="tanh"), nn.Linear(2 * dim, dim))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


class TokenModel(nn.Module):
    """int64 token ids through an embedding plus positions, a linear head, a lifted tensor constant."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1])
        h = self.embed(tokens) + 0.5 * positions.unsqueeze(-1).to(torch.float32)
        return self.head(h).mean(dim=1) + torch.tensor([0.25, -0.5, 1.0])


class TwoInTwoOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.register_buffer("scale", torch.tensor([2.0, 3.0, 4.0, 5.0, 6.0, 7.0]))
        self.register_buffer("shift", torch.full((6,), 0.125), persistent=False)

    def forward(self, x, y):
        return self.fc(x) * y, torch.sigmoid(x - y) * self.scale + self.shift


class SplitModel(nn.Module):
    """Returns the pieces of torch.split (equal sizes) and torch.chunk, plus split_with_sizes pieces;
    one is masked with -inf (serialized as the string "-Infinity") before a softmax."""

    def forward(self, x):
        a, b = torch.split(x * 2, 3, dim=1)
        c, d, e = torch.chunk(x, 3, dim=-1)
        f, g = torch.split(x, [2, 4], dim=1)
        masked = f.masked_fill(f < -1.0, float("-inf")).softmax(dim=-1)
        return a, b + 1, c, d - e, g.sum(dim=1), masked


class HalfMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.norm = nn.LayerNorm(16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(F.gelu(self.norm(self.fc1(x))))


class TanhGeluMlp(nn.Module):
    """A linear, GELU's tanh approximation written out as GPT-2's activation writes it (eight element-wise
    ops: pow, mul, add, mul, tanh, add, mul, mul), and a linear."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        h = self.fc1(x)
        return self.fc2(0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0)))))


class OpMix(nn.Module):
    """A spread of argument kinds and results: an index with a tensor list, a Scalar-overload where,
    a dtype-and-value full, a grouped conv with group norm, pad with a float, a floor division mode,
    the (values, indices) tuple of topk, and a round trip through float16."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.conv = nn.Conv2d(2, 2, 3, groups=2, padding=1)
        self.norm = nn.GroupNorm(1, 2)

    def forward(self, x, index):
        y = self.fc(x)[index]
        y = torch.where(y > 0, y, 0.5) * torch.full((3, 4), 2.0, dtype=torch.float32)
        image = y.t().contiguous().expand(2, 4, 3).reshape(1, 2, 4, 3)
        flat = F.softmax(self.norm(self.conv(image)).flatten(1), dim=-1)
        flat = F.pad(torch.stack([flat, flat * 2], dim=0).sum(0), (1, 1), value=-1.0)
        c = torch.cumsum(flat, dim=1) / 3
        d = torch.maximum(c, torch.zeros_like(c)).pow(2) - c.div(2, rounding_mode="floor")
        top = torch.topk(d, 3, dim=1)
        return top.values, top.indices, d.bool().float().mean(), (x.to(torch.float16) * 2).float()


class Atan2Model(nn.Module):
    """atan2 has no overload taking a Scalar; the fixture's JSON is edited so that its second argument
    is the number 2.0, which the loader must pass as a 0-dim tensor (the buffer holds the same value,
    so the eager outputs stay the reference)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("two", torch.tensor(2.0))

    def forward(self, x):
        return torch.atan2(x, self.two) * 3


class CondModel(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,))


class CountingModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x):
        self.calls.add_(1)
        return x * 2


def export_and_save(name: str, model: nn.Module, inputs: tuple, decompose: bool = False) -> None:
    model.eval()
    with torch.no_grad():
        program = torch.export.export(model, inputs)
        if decompose:
            program = program.run_decompositions()
        expected = model(*inputs)
    outputs = list(expected) if isinstance(expected, tuple) else [expected]
    torch.export.save(program, OUT / f"{name}.pt2")
    torch.save({"inputs": list(inputs), "outputs": [o.detach() for o in outputs]}, OUT / f"{name}.io.pt")


def rewrite_archive(source: pathlib.Path, target: pathlib.Path, edit: Callable[[str], Optional[str]]) -> None:
    """Copies the zip `source` to `target`, passing models/model.json through edit(text) -> text or None."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename.endswith("/models/model.json"):
                data = edit(data.decode())
                if data is None:
                    continue
                data = data.encode()
            zout.writestr(item.filename, data)


def with_json(change: Callable[[dict], None]) -> Callable[[str], str]:
    """An edit for rewrite_archive that applies `change` to the parsed program."""

    def edit(text: str) -> str:
        program = json.loads(text)
        change(program)
        return json.dumps(program)

    return edit


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    cnn = BranchCnn()
    for bn in (m for m in cnn.modules() if isinstance(m, nn.BatchNorm2d)):
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 1.5)
    image = (torch.randn(2, 3, 8, 8),)
    export_and_save("cnn_branches", cnn, image)
    # The same network in the core ATen opset: aten.convolution and the tuple-returning batch norm.
    export_and_save("cnn_core_aten", cnn, image, decompose=True)
    export_and_save("transformer_block", TransformerBlock(), (torch.randn(2, 5, 16),))
    export_and_save("token_embedding", TokenModel(), (torch.randint(0, 20, (2, 6), dtype=torch.int64),))
    export_and_save("two_in_two_out", TwoInTwoOut(), (torch.randn(3, 6), torch.randn(3, 6)))
    export_and_save("split_outputs", SplitModel(), (torch.randn(2, 6, 6),))
    export_and_save("half_mlp", HalfMlp().half(), (torch.randn(3, 8).half(),))
    export_and_save("tanh_gelu_mlp", TanhGeluMlp(), (torch.randn(3, 8),))
    mix_inputs = (torch.randn(3, 4), torch.tensor([2, 0, 1]))
    export_and_save("op_mix", OpMix(), mix_inputs)
    export_and_save("op_mix_core_aten", OpMix(), mix_inputs, decompose=True)
    export_and_save("scalar_for_tensor", Atan2Model(), (torch.randn(4, 5),))

    def atan2_of_number(program):
        for node in program["graph_module"]["graph"]["nodes"]:
            if node["target"] == "torch.ops.aten.atan2.default":
                node["inputs"][1]["arg"] = {"as_float": 2.0}

    edited = OUT / "scalar_for_tensor.edited.pt2"
    rewrite_archive(OUT / "scalar_for_tensor.pt2", edited, with_json(atan2_of_number))
    edited.replace(OUT / "scalar_for_tensor.pt2")

    bad = OUT / "bad"
    bad.mkdir(exist_ok=True)
    good = OUT / "two_in_two_out.pt2"
    data = good.read_bytes()
    (bad / "truncated.pt2").write_bytes(data[: len(data) // 2])
    rewrite_archive(good, bad / "future_schema.pt2",
                    with_json(lambda p: p["schema_version"].update(major=99, minor=0)))

    def unknown_op(program):
        program["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.aten.nimble_no_such_op.default"

    rewrite_archive(good, bad / "unknown_op.pt2", with_json(unknown_op))
    rewrite_archive(good, bad / "malformed_json.pt2", lambda text: text[: len(text) // 3])
    rewrite_archive(good, bad / "no_model_json.pt2", lambda text: None)
    with torch.no_grad():
        cond = torch.export.export(CondModel(), (torch.randn(4),))
    torch.export.save(cond, bad / "cond.pt2")
    with torch.no_grad():
        counting = torch.export.export(CountingModel(), (torch.randn(4),))
    torch.export.save(counting, bad / "buffer_mutation.pt2")
    # Functionalized, the same update is an output of kind buffer_mutation rather than an add_.
    torch.export.save(counting.run_decompositions(), bad / "buffer_mutation_functional.pt2")


if __name__ == "__main__":
    main()
