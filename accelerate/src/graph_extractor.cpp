#include "graph_extractor.h"

#include <torch/csrc/jit/ir/alias_analysis.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "loaded_model_impl.h"
#include "node_names.h"
#include "op_kinds.h"
#include "tensor_types.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

using torch::jit::Node;
using torch::jit::Value;

enum class NodeRole {
  kOp,
  kFold,          // no kernel; consumers depend on whatever its inputs depend on
  kFoldMetadata,  // no kernel, and its result does not wait for any op
};

// Inputs the operator's schema marks as written (`Tensor(a!) self`).
std::vector<const Value*> WrittenInputs(const Node& node) {
  std::vector<const Value*> written;
  const c10::FunctionSchema* schema = node.maybeSchema();
  if (schema == nullptr) return written;
  const size_t n = std::min(schema->arguments().size(), node.inputs().size());
  for (size_t i = 0; i < n; ++i) {
    const auto* alias = schema->arguments()[i].alias_info();
    if (alias != nullptr && alias->isWrite()) written.push_back(node.inputs()[i]);
  }
  return written;
}

NodeRole Classify(const Node& node, const ShapeRun& run) {
  switch (RuleForKind(node.kind().toQualString())) {
    case KindRule::kFoldPlumbing:
    case KindRule::kFoldView: return NodeRole::kFold;
    case KindRule::kFoldMetadata: return NodeRole::kFoldMetadata;
    case KindRule::kKeep: return NodeRole::kOp;
    case KindRule::kFoldIfAliased: {
      const auto seen = run.find(&node);
      return seen != run.end() && seen->second.outputs_alias_inputs ? NodeRole::kFold : NodeRole::kOp;
    }
    case KindRule::kDecideBySchema: break;
  }
  for (const Value* written : WrittenInputs(node)) {
    if (ContainsTensor(written->type())) return NodeRole::kOp;
  }
  for (const Value* output : node.outputs()) {
    if (ContainsTensor(output->type())) return NodeRole::kOp;
  }
  // Host-side scalar and list work: aten::Int, aten::__getitem__, aten::add.int, aten::append...
  return NodeRole::kFold;
}

// A constant that is not a tensor with dimensions: a number, a list of numbers, None, a device...
bool IsScalarConstant(const Value& value) {
  if (value.node()->kind() != c10::prim::Constant) return false;
  if (!value.type()->cast<c10::TensorType>()) return true;
  const std::optional<c10::IValue> constant = torch::jit::toIValue(&value);
  return constant && constant->isTensor() && constant->toTensor().dim() == 0;
}

// Sorted union of two sorted id lists.
std::vector<int32_t> Union(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  std::vector<int32_t> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

namespace {

// One pass over the top block in node order. Op ids follow node order, so every edge goes from a
// lower id to a higher one and the op list is topologically sorted by construction.
class Extractor {
 public:
  Extractor(LoadedModel::Impl& model, const ShapeRun& run) : model_(model), run_(run) {}

  StatusOr<OpGraph> Extract() {
    model_.op_nodes.clear();
    model_.op_shares_input.clear();
    for (Node* node : model_.graph->nodes()) {
      const NodeRole role = IsHostArithmetic(*node) ? NodeRole::kFoldMetadata : Classify(*node, run_);
      roles_[node] = role;
      if (role == NodeRole::kFoldMetadata) host_values_.insert(node->outputs().begin(), node->outputs().end());
      if (role == NodeRole::kOp) {
        AddOp(node);
      } else {
        Fold(*node, role);
      }
    }
    if (graph_.ops.empty()) return NoOpsError();
    NIMBLE_RETURN_IF_ERROR(AddOrderEdges());
    for (const auto& [ends, kind] : edges_) graph_.edges.push_back({OpId(ends.first), OpId(ends.second), kind});
    NIMBLE_RETURN_IF_ERROR(graph_.Validate().WithContext(model_.path));
    return std::move(graph_);
  }

 private:
  const std::vector<int32_t>& ProducersOf(const Value* value) const {
    static const std::vector<int32_t> kNone;
    const auto it = producers_.find(value);
    return it == producers_.end() ? kNone : it->second;
  }

  std::vector<int32_t> ProducersOfInputs(const Node& node) const {
    std::vector<int32_t> deps;
    for (const Value* input : node.inputs()) deps = Union(deps, ProducersOf(input));
    return deps;
  }

  // Traced models compute padding and view sizes with tensor ops on numbers taken from x.size(): 0-dim
  // tensors on the host (prim::NumToTensor makes CPU tensors) that launch nothing on the GPU and do
  // not wait for any op. Such a node reads only those numbers and constant scalars and makes scalars.
  bool IsHostArithmetic(const Node& node) const {
    bool reads_host_value = false;
    for (const Value* input : node.inputs()) {
      if (host_values_.count(input) != 0) {
        reads_host_value = true;
      } else if (!IsScalarConstant(*input)) {
        return false;
      }
    }
    const auto seen = run_.find(&node);
    return reads_host_value && seen != run_.end() && seen->second.outputs_are_scalars;
  }

  // A data edge wins over an order edge between the same two ops: it orders them too.
  void AddEdge(int32_t src, int32_t dst, EdgeKind kind) {
    const auto [it, inserted] = edges_.try_emplace({src, dst}, kind);
    if (!inserted && kind == EdgeKind::kData) it->second = EdgeKind::kData;
  }

  void AddOp(Node* node) {
    const auto id = static_cast<int32_t>(graph_.ops.size());
    for (const int32_t dep : ProducersOfInputs(*node)) AddEdge(dep, id, EdgeKind::kData);
    for (const Value* output : node->outputs()) producers_[output] = {id};
    const std::string kind = node->kind().toQualString();
    const std::string module = ModulePath(*node);
    graph_.ops.push_back(Op{.id = OpId(id),
                            .name = kind + "#" + std::to_string(id) + (module.empty() ? "" : "@" + module),
                            .kind = kind,
                            .output_shapes = run_.at(node).output_shapes});
    model_.op_nodes.push_back(node);
    const auto seen = run_.find(node);
    model_.op_shares_input.push_back(seen == run_.end() || seen->second.some_output_aliases_input ? 1 : 0);
    touched_.push_back(Touched(*node));
  }

  void Fold(const Node& node, NodeRole role) {
    folded_kinds_.insert(node.kind().toQualString());
    if (role == NodeRole::kFoldMetadata) return;
    const std::vector<int32_t> deps = ProducersOfInputs(node);
    for (const Value* output : node.outputs()) producers_[output] = deps;
    // A folded node that fills a container (aten::append) puts its inputs' producers into it.
    for (const Value* written : WrittenInputs(node)) producers_[written] = Union(ProducersOf(written), deps);
  }

  // What an op reads or writes: its inputs and outputs and, behind inputs made by folded nodes, the
  // values those were built from (tensors put into a list, the base of a view).
  torch::jit::ValueSet Touched(const Node& node) const {
    torch::jit::ValueSet touched(node.outputs().begin(), node.outputs().end());
    std::vector<const Value*> pending(node.inputs().begin(), node.inputs().end());
    while (!pending.empty()) {
      const Value* value = pending.back();
      pending.pop_back();
      if (!touched.insert(value).second) continue;
      const auto role = roles_.find(value->node());
      if (role == roles_.end() || role->second != NodeRole::kFold) continue;
      pending.insert(pending.end(), value->node()->inputs().begin(), value->node()->inputs().end());
    }
    return touched;
  }

  // With LoadedModel::Impl::distinct_inputs: the graph inputs `node` writes, when it writes nothing
  // else (by its schema's write annotations, and batch norm's running statistics in training); empty
  // otherwise. A written value made by folded views counts as the input it views.
  std::vector<const Value*> WrittenInputsOnly(const Node& node) const {
    if (!model_.distinct_inputs) return {};
    std::vector<const Value*> written;
    const bool norm = node.kind() == c10::aten::batch_norm && node.inputs().size() == 9;
    if (norm) {
      const auto training = torch::jit::toIValue(node.input(5));
      if (training && training->isBool() && !training->toBool()) return {};  // reads its statistics only
      written = {node.input(3), node.input(4)};
    } else {
      written = WrittenInputs(node);
    }
    if (written.empty()) return {};
    std::vector<const Value*> inputs;
    for (const Value* value : written) {
      if (!value->type()->cast<c10::TensorType>()) return {};  // a list of tensors: which one is not known here
      while (value->node()->kind() != c10::prim::Param) {
        // Only through a folded view of one tensor: its single tensor input is the base.
        const Node* maker = value->node();
        const auto role = roles_.find(maker);
        if (role == roles_.end() || role->second != NodeRole::kFold || maker->inputs().empty() ||
            !maker->input(0)->type()->cast<c10::TensorType>()) {
          return {};
        }
        for (size_t k = 1; k < maker->inputs().size(); ++k) {
          if (ContainsTensor(maker->input(k)->type())) return {};
        }
        value = maker->input(0);
      }
      inputs.push_back(value);
    }
    return inputs;
  }

  // An op that writes a value is ordered after every earlier op that reads or writes an alias of it,
  // and before every later one. Alias analysis takes each graph input for a possible alias of every
  // other; where the inputs are known to be distinct tensors, a write to inputs only is ordered with the
  // ops that touch those inputs.
  Status AddOrderEdges() {
    try {
      torch::jit::AliasDb alias_db(model_.graph);
      const auto n = static_cast<int32_t>(model_.op_nodes.size());
      for (int32_t writer = 0; writer < n; ++writer) {
        Node* node = model_.op_nodes[static_cast<size_t>(writer)];
        if (!alias_db.isMutable(node)) continue;
        if (const std::vector<const Value*> inputs = WrittenInputsOnly(*node); !inputs.empty()) {
          // The ops touching a written input, or a value (not a graph input) that may alias one: the
          // result of an in-place op on it, a view made by an op.
          auto conflicts = [&](const torch::jit::ValueSet& touched) {
            for (const Value* v : touched) {
              for (const Value* input : inputs) {
                if (v == input) return true;
                if (v->node()->kind() != c10::prim::Param && alias_db.mayAlias(v, input)) return true;
              }
            }
            return false;
          };
          for (int32_t other = 0; other < n; ++other) {
            if (other == writer || !conflicts(touched_[static_cast<size_t>(other)])) continue;
            AddEdge(std::min(writer, other), std::max(writer, other), EdgeKind::kOrder);
          }
          continue;
        }
        for (int32_t other = 0; other < n; ++other) {
          if (other == writer || !alias_db.writesToAlias(node, touched_[static_cast<size_t>(other)])) continue;
          AddEdge(std::min(writer, other), std::max(writer, other), EdgeKind::kOrder);
        }
      }
      return OkStatus();
    } catch (const std::exception& e) {
      return Internal(model_.path + ": alias analysis of the frozen graph failed: " + TorchMessage(e));
    }
  }

  Status NoOpsError() const {
    std::string kinds;
    for (const std::string& kind : folded_kinds_) kinds += (kinds.empty() ? "" : ", ") + kind;
    return FailedPrecondition(model_.path + ": no ops that launch GPU work in the frozen graph (it holds only " +
                              (kinds.empty() ? std::string("its inputs") : kinds) + "); there is nothing to schedule");
  }

  LoadedModel::Impl& model_;
  const ShapeRun& run_;
  OpGraph graph_;
  std::unordered_map<const Node*, NodeRole> roles_;
  std::unordered_set<const Value*> host_values_;  // numbers from tensor metadata, computed on the host
  std::unordered_map<const Value*, std::vector<int32_t>> producers_;  // sorted op ids a value waits for
  std::vector<torch::jit::ValueSet> touched_;                         // per op id
  std::map<std::pair<int32_t, int32_t>, EdgeKind> edges_;             // sorted, so no duplicates
  std::set<std::string> folded_kinds_;
};

}  // namespace

StatusOr<OpGraph> ExtractOpGraph(LoadedModel::Impl& model, const ShapeRun& run) {
  return Extractor(model, run).Extract();
}

}  // namespace nimble::accelerate
