#include "gelu_fusion.h"

#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>

#include <cmath>
#include <numbers>
#include <optional>
#include <vector>

namespace nimble::accelerate {
namespace {

using torch::jit::Node;
using torch::jit::Value;

bool Is(const Node* node, const char* kind) { return node->kind() == c10::Symbol::fromQualString(kind); }

// A number the graph holds as a constant: a Scalar, or a 0-dim tensor (which, unlike a tensor of shape
// [1], neither broadcasts nor promotes the other operand's dtype, so aten::gelu's result keeps x's).
std::optional<double> ConstantNumber(Value* value) {
  const std::optional<c10::IValue> constant = torch::jit::toIValue(value);
  if (!constant) return std::nullopt;
  if (constant->isDouble()) return constant->toDouble();
  if (constant->isInt()) return static_cast<double>(constant->toInt());
  if (constant->isTensor() && constant->toTensor().dim() == 0) return constant->toTensor().item<double>();
  return std::nullopt;
}

// aten::gelu takes floating tensors only; a value of unknown dtype (scripted code) is let through, and
// an integer one would fail the shape run, naming the file.
bool MaybeFloating(const Value* x) {
  const c10::TensorTypePtr type = x->type()->cast<c10::TensorType>();
  if (!type) return false;
  const std::optional<c10::ScalarType> dtype = type->scalarType();
  return !dtype || c10::isFloatingType(*dtype);
}

bool Near(std::optional<double> value, double expected) {
  return value && std::abs(*value - expected) <= 1e-6 * std::abs(expected);
}

// `node` = aten::mul(v, c) or aten::mul(c, v) with the constant c near `factor`: v, else nullptr.
Value* ScaledBy(const Node* node, double factor) {
  if (!Is(node, "aten::mul") || node->inputs().size() != 2) return nullptr;
  if (Near(ConstantNumber(node->input(1)), factor)) return node->input(0);
  if (Near(ConstantNumber(node->input(0)), factor)) return node->input(1);
  return nullptr;
}

// aten::add(a, b) or aten::add(a, b, alpha) with alpha 1: its two operands, else empty.
std::vector<Value*> Summands(const Node* node) {
  if (!Is(node, "aten::add") || node->inputs().size() < 2 || node->inputs().size() > 3) return {};
  if (node->inputs().size() == 3 && !Near(ConstantNumber(node->input(2)), 1.0)) return {};
  return {node->input(0), node->input(1)};
}

bool OneReader(const Value* value) { return value->uses().size() == 1; }

// x when `value` is x + 0.044715 * x^3 (x^3 as aten::pow(x, 3)), else nullptr.
Value* CubicArgument(Value* value) {
  const std::vector<Value*> terms = Summands(value->node());
  if (terms.size() != 2) return nullptr;
  for (int first = 0; first < 2; ++first) {
    Value* x = terms[first];
    Value* term = terms[1 - first];
    if (!OneReader(term)) continue;
    Value* cube = ScaledBy(term->node(), 0.044715);
    if (cube == nullptr || !OneReader(cube)) continue;
    const Node* pow = cube->node();
    if (Is(pow, "aten::pow") && pow->inputs().size() == 2 && pow->input(0) == x &&
        Near(ConstantNumber(pow->input(1)), 3.0)) {
      return x;
    }
  }
  return nullptr;
}

// The aten::mul node that ends a written-out GELU whose tanh is `tanh`, and its x; {nullptr, nullptr}
// when the pattern is not there whole.
std::pair<Node*, Value*> MatchFromTanh(Node* tanh) {
  const double scale = std::sqrt(2.0 / std::numbers::pi);
  Value* inner = tanh->input(0);
  if (!OneReader(inner) || !OneReader(tanh->output())) return {nullptr, nullptr};
  Value* polynomial = ScaledBy(inner->node(), scale);
  if (polynomial == nullptr || !OneReader(polynomial)) return {nullptr, nullptr};
  Value* x = CubicArgument(polynomial);
  if (x == nullptr || !MaybeFloating(x)) return {nullptr, nullptr};
  Node* plus_one = tanh->output()->uses()[0].user;
  const std::vector<Value*> terms = Summands(plus_one);
  if (terms.size() != 2 || !OneReader(plus_one->output())) return {nullptr, nullptr};
  const Value* other = terms[0] == tanh->output() ? terms[1] : terms[0];
  if (!Near(ConstantNumber(const_cast<Value*>(other)), 1.0)) return {nullptr, nullptr};
  Node* product = plus_one->output()->uses()[0].user;
  if (!Is(product, "aten::mul") || product->inputs().size() != 2) return {nullptr, nullptr};
  Value* half_x = product->input(0) == plus_one->output() ? product->input(1) : product->input(0);
  if (!OneReader(half_x) || ScaledBy(half_x->node(), 0.5) != x) return {nullptr, nullptr};
  return {product, x};
}

}  // namespace

int32_t FuseTanhGelu(std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<Node*> tanhs;
  for (Node* node : graph->nodes()) {
    if (Is(node, "aten::tanh") && node->inputs().size() == 1) tanhs.push_back(node);
  }
  int32_t fused = 0;
  for (Node* tanh : tanhs) {
    const auto [product, x] = MatchFromTanh(tanh);
    if (product == nullptr) continue;
    torch::jit::WithInsertPoint before(product);
    Value* approximate = graph->insertConstant(std::string("tanh"));
    Value* gelu = graph->insert(c10::aten::gelu, {x}, {torch::jit::NamedValue("approximate", approximate)});
    gelu->setType(product->output()->type());
    product->output()->replaceAllUsesWith(gelu);
    ++fused;
  }
  if (fused > 0) torch::jit::EliminateDeadCode(graph);
  return fused;
}

}  // namespace nimble::accelerate
