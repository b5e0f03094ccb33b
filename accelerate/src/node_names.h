// How the front end names TorchScript nodes in op names and error messages: the node's kind, the
// module path it was inlined from ("layer1.0.conv1"), and the first line of its source.
// Pure functions of one node; call them from the thread that owns the graph.
#pragma once

#include <string>

namespace torch::jit {
struct Node;
}

namespace nimble::accelerate {

// Dotted path of module instances the node was inlined from, or "" when the graph keeps none.
std::string ModulePath(const torch::jit::Node& node);

// First line of the TorchScript source the node came from, trimmed, or "" when unknown.
std::string SourceLine(const torch::jit::Node& node);

// "aten::conv2d (layer1.0.conv1: `x = self.conv1(x)`)", with the parts that are known.
std::string DescribeNode(const torch::jit::Node& node);

}  // namespace nimble::accelerate
