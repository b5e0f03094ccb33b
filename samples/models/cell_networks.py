"""Cell networks found by architecture search (DARTS, AmoebaNet, NASNet-A mobile), built from their cells.

Each network is a stack of cells. A cell takes the outputs of the two cells before it; each of its
nodes adds two operations applied to earlier states (the two inputs, or nodes before it), and the cell
returns some of its nodes concatenated along the channels. Which operations and which inputs is the
cell's *genotype*, the result of the search, published with each paper; the skeleton around the cells is
the one DARTS uses for ImageNet at mobile size (Liu, Simonyan, Yang, "DARTS: Differentiable Architecture
Search", ICLR 2019): a three-convolution stem to 1/8 of the input size, 14 cells with reduction cells
(stride 2, twice the channels) at a third and two thirds of the depth, global pooling and a linear
classifier. The AmoebaNet-A and NASNet-A cells are the ones DARTS compares against, in that same
skeleton; the initial channel counts are chosen so that each network's parameter count is near the one
published for its mobile ImageNet version (DARTS 4.7 M, AmoebaNet-A 5.1 M, NASNet-A 5.3 M;
`python3 cell_networks.py` prints them). Weights are random.

These are the branchy networks of the Nimble paper's Table 1: their cells have many independent
operations, so the operator graph is wide.
"""

import sys

import torch
from torch import nn

# A genotype: for the normal and the reduction cell, two (operation, input) pairs per node, and the
# states the cell returns. Inputs 0 and 1 are the cells before; node k (counting from 2) may take any
# state below k.
DARTS_V2 = {
    "normal": [("sep_conv_3x3", 0), ("sep_conv_3x3", 1), ("sep_conv_3x3", 0), ("sep_conv_3x3", 1),
               ("sep_conv_3x3", 1), ("skip_connect", 0), ("skip_connect", 0), ("dil_conv_3x3", 2)],
    "normal_concat": [2, 3, 4, 5],
    "reduce": [("max_pool_3x3", 0), ("max_pool_3x3", 1), ("skip_connect", 2), ("max_pool_3x3", 1),
               ("max_pool_3x3", 0), ("skip_connect", 2), ("skip_connect", 2), ("max_pool_3x3", 1)],
    "reduce_concat": [2, 3, 4, 5],
}

AMOEBANET_A = {
    "normal": [("avg_pool_3x3", 0), ("max_pool_3x3", 1), ("sep_conv_3x3", 0), ("sep_conv_5x5", 2),
               ("sep_conv_3x3", 0), ("avg_pool_3x3", 3), ("sep_conv_3x3", 1), ("skip_connect", 1),
               ("skip_connect", 0), ("avg_pool_3x3", 1)],
    "normal_concat": [4, 5, 6],
    "reduce": [("avg_pool_3x3", 0), ("sep_conv_3x3", 1), ("max_pool_3x3", 0), ("sep_conv_7x7", 2),
               ("sep_conv_7x7", 0), ("avg_pool_3x3", 1), ("max_pool_3x3", 0), ("max_pool_3x3", 1),
               ("conv_7x1_1x7", 0), ("sep_conv_3x3", 5)],
    "reduce_concat": [3, 4, 6],
}

NASNET_A = {
    "normal": [("sep_conv_5x5", 1), ("sep_conv_3x3", 0), ("sep_conv_5x5", 0), ("sep_conv_3x3", 0),
               ("avg_pool_3x3", 1), ("skip_connect", 0), ("avg_pool_3x3", 0), ("avg_pool_3x3", 0),
               ("sep_conv_3x3", 1), ("skip_connect", 1)],
    "normal_concat": [2, 3, 4, 5, 6],
    "reduce": [("sep_conv_5x5", 1), ("sep_conv_7x7", 0), ("max_pool_3x3", 1), ("sep_conv_7x7", 0),
               ("avg_pool_3x3", 1), ("sep_conv_5x5", 0), ("skip_connect", 3), ("avg_pool_3x3", 2),
               ("sep_conv_3x3", 2), ("max_pool_3x3", 1)],
    "reduce_concat": [4, 5, 6],
}

# name -> (genotype, initial channels); 14 cells each, input 224x224.
NETWORKS = {
    "darts": (DARTS_V2, 48),
    "amoebanet": (AMOEBANET_A, 50),
    "nasnet_mobile": (NASNET_A, 46),
}


def relu_conv_bn(c_in, c_out, kernel, stride=1, padding=0, dilation=1, groups=1):
    return nn.Sequential(nn.ReLU(inplace=False),
                         nn.Conv2d(c_in, c_out, kernel, stride, padding, dilation, groups, bias=False),
                         nn.BatchNorm2d(c_out))


def depthwise_separable(c, kernel, stride, dilation=1):
    """ReLU, a depthwise convolution, a pointwise one, batch norm."""
    padding = dilation * (kernel - 1) // 2
    return nn.Sequential(nn.ReLU(inplace=False),
                         nn.Conv2d(c, c, kernel, stride, padding, dilation, groups=c, bias=False),
                         nn.Conv2d(c, c, 1, bias=False),
                         nn.BatchNorm2d(c))


class FactorizedReduce(nn.Module):
    """Halves height and width with two 1x1 stride-2 convolutions, the second one pixel off, joined."""

    def __init__(self, c_in, c_out):
        super().__init__()
        self.relu = nn.ReLU(inplace=False)
        self.even = nn.Conv2d(c_in, c_out // 2, 1, 2, bias=False)
        self.odd = nn.Conv2d(c_in, c_out - c_out // 2, 1, 2, bias=False)
        self.bn = nn.BatchNorm2d(c_out)

    def forward(self, x):
        x = self.relu(x)
        return self.bn(torch.cat([self.even(x), self.odd(x[:, :, 1:, 1:])], dim=1))


def make_op(name, c, stride):
    if name == "skip_connect":
        return nn.Identity() if stride == 1 else FactorizedReduce(c, c)
    if name == "max_pool_3x3":
        return nn.MaxPool2d(3, stride, 1)
    if name == "avg_pool_3x3":
        return nn.AvgPool2d(3, stride, 1, count_include_pad=False)
    if name.startswith("sep_conv_"):  # applied twice, the second time at stride 1
        kernel = int(name[-1])
        return nn.Sequential(depthwise_separable(c, kernel, stride), depthwise_separable(c, kernel, 1))
    if name == "dil_conv_3x3":
        return depthwise_separable(c, 3, stride, dilation=2)
    if name == "conv_7x1_1x7":
        return nn.Sequential(nn.ReLU(inplace=False),
                             nn.Conv2d(c, c, (1, 7), (1, stride), (0, 3), bias=False),
                             nn.Conv2d(c, c, (7, 1), (stride, 1), (3, 0), bias=False),
                             nn.BatchNorm2d(c))
    raise ValueError(f"unknown cell operation {name!r}")


class Cell(nn.Module):
    def __init__(self, genotype, c_prev_prev, c_prev, c, reduction, reduction_prev):
        super().__init__()
        # The cell before the last is twice as large when the last one reduced: halve it first.
        self.pre0 = FactorizedReduce(c_prev_prev, c) if reduction_prev else relu_conv_bn(c_prev_prev, c, 1)
        self.pre1 = relu_conv_bn(c_prev, c, 1)
        kind = "reduce" if reduction else "normal"
        pairs = genotype[kind]
        self.inputs = [index for _, index in pairs]
        self.ops = nn.ModuleList(make_op(name, c, 2 if reduction and index < 2 else 1) for name, index in pairs)
        self.concat = list(genotype[kind + "_concat"])
        self.multiplier = len(self.concat)

    def forward(self, s0, s1):
        states = [self.pre0(s0), self.pre1(s1)]
        for first in range(0, len(self.ops), 2):
            a = self.ops[first](states[self.inputs[first]])
            b = self.ops[first + 1](states[self.inputs[first + 1]])
            states.append(a + b)
        return torch.cat([states[i] for i in self.concat], dim=1)


class CellNetwork(nn.Module):
    def __init__(self, genotype, channels, cells=14, classes=1000):
        super().__init__()
        c = channels
        self.stem0 = nn.Sequential(nn.Conv2d(3, c // 2, 3, 2, 1, bias=False), nn.BatchNorm2d(c // 2),
                                   nn.ReLU(inplace=True), nn.Conv2d(c // 2, c, 3, 2, 1, bias=False),
                                   nn.BatchNorm2d(c))
        self.stem1 = nn.Sequential(nn.ReLU(inplace=False), nn.Conv2d(c, c, 3, 2, 1, bias=False), nn.BatchNorm2d(c))
        c_prev_prev, c_prev, c_cur = c, c, c
        reduction_prev = True  # stem0's output is twice stem1's size
        layers = []
        for i in range(cells):
            reduction = i in (cells // 3, 2 * cells // 3)
            if reduction:
                c_cur *= 2
            cell = Cell(genotype, c_prev_prev, c_prev, c_cur, reduction, reduction_prev)
            layers.append(cell)
            reduction_prev = reduction
            c_prev_prev, c_prev = c_prev, cell.multiplier * c_cur
        self.cells = nn.ModuleList(layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(c_prev, classes)

    def forward(self, x):
        s0 = self.stem0(x)
        s1 = self.stem1(s0)
        for cell in self.cells:
            s0, s1 = s1, cell(s0, s1)
        return self.classifier(torch.flatten(self.pool(s1), 1))


def build(name):
    genotype, channels = NETWORKS[name]
    return CellNetwork(genotype, channels)


def main():
    for name in NETWORKS:
        model = build(name)
        params = sum(p.numel() for p in model.parameters())
        print(f"{name}: {params / 1e6:.2f} M parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
