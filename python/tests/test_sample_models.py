"""The cell networks of samples/models/cell_networks.py: what the paper benchmark's Table 1 rows run."""
import importlib
import sys

import pytest
import torch

from conftest import ROOT

sys.path.insert(0, str(ROOT / "samples" / "models"))
cell_networks = importlib.import_module("cell_networks")
sys.path.pop(0)

# Parameters of each network's mobile ImageNet version as published (millions), and the paper's
# degree of logical concurrency for it (Table 1).
PUBLISHED = {"darts": (4.7, 7), "amoebanet": (5.1, 11), "nasnet_mobile": (5.3, 12)}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_genotype_nodes_take_only_earlier_states(name):
    genotype, _ = cell_networks.NETWORKS[name]
    for kind in ("normal", "reduce"):
        pairs = genotype[kind]
        assert len(pairs) % 2 == 0
        nodes = len(pairs) // 2
        for i, (op, index) in enumerate(pairs):
            assert 0 <= index < 2 + i // 2, f"{name} {kind}: {op} of node {2 + i // 2} reads state {index}"
        assert all(2 <= k < 2 + nodes for k in genotype[kind + "_concat"])


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_network_classifies_an_image_with_about_the_published_parameters(name):
    torch.manual_seed(0)
    model = cell_networks.build(name).eval()
    params = sum(p.numel() for p in model.parameters()) / 1e6
    assert params == pytest.approx(PUBLISHED[name][0], rel=0.05)
    with torch.no_grad():
        out = model(torch.randn(1, 3, 224, 224))
    assert out.shape == (1, 1000)
    assert torch.isfinite(out).all()


def test_reduction_cells_halve_the_size_and_double_the_channels():
    model = cell_networks.build("darts").eval()
    sizes = []
    s0 = model.stem0(torch.randn(1, 3, 224, 224))
    s1 = model.stem1(s0)
    with torch.no_grad():
        for cell in model.cells:
            s0, s1 = s1, cell(s0, s1)
            sizes.append(tuple(s1.shape[1:]))
    # 14 cells: 28x28 until the reduction at cell 4, 14x14 until cell 9, then 7x7; 4 nodes x 48, 96, 192.
    assert sizes[0] == (192, 28, 28) and sizes[3] == (192, 28, 28)
    assert sizes[4] == (384, 14, 14) and sizes[8] == (384, 14, 14)
    assert sizes[9] == (768, 7, 7) and sizes[13] == (768, 7, 7)


def test_unknown_operation_is_refused():
    with pytest.raises(ValueError, match="unknown cell operation 'conv_9x9'"):
        cell_networks.make_op("conv_9x9", 8, 1)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_operator_graph_is_at_least_as_wide_as_the_papers(name):
    nimble = pytest.importorskip("nimble")
    from nimble import _train_graph

    graph, why = _train_graph.trace(cell_networks.build(name))
    assert graph is not None, why
    plan = _train_graph.plan(graph, None)
    assert plan["logical_concurrency"] >= PUBLISHED[name][1]
    assert plan["streams"] > 1
    del nimble
