#include "nimble/accelerate/eager_runner.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/jit/ir/ir.h>

#include <chrono>
#include <unordered_map>

#include "loaded_model_impl.h"
#include "node_names.h"
#include "shape_run.h"
#include "torch_errors.h"

// The eager run executes nodes exactly as the shape run does (RunFrozenNode); what it adds is the
// plan of op brackets, inputs that live across iterations, and the wait for the device.

namespace nimble::accelerate {
namespace {

using c10::IValue;
using torch::jit::Node;
using torch::jit::Value;

void CollectTensors(const IValue& value, std::vector<at::Tensor>& out) {
  if (value.isTensor()) out.push_back(value.toTensor());
  if (value.isList()) for (const IValue& v : value.toList().vec()) CollectTensors(v, out);
  if (value.isTuple()) for (const IValue& v : value.toTupleRef().elements()) CollectTensors(v, out);
}

// owner[i]: the op whose bracket graph node i runs in. Ops are numbered in node order, so the owner of
// a node is the first op at or after it; nodes after the last op go to the last op.
StatusOr<std::vector<OpId>> PlanBrackets(const LoadedModel::Impl& model, size_t num_ops) {
  if (num_ops == 0 || model.op_nodes.size() != num_ops) {
    return FailedPrecondition(model.path + ": no ops that launch GPU work to run (the graph has " +
                              std::to_string(model.op_nodes.size()) + " op nodes)");
  }
  std::unordered_map<const Node*, int32_t> op_of;
  for (size_t i = 0; i < model.op_nodes.size(); ++i) op_of[model.op_nodes[i]] = static_cast<int32_t>(i);
  std::vector<const Node*> nodes(model.graph->nodes().begin(), model.graph->nodes().end());
  std::vector<OpId> owner(nodes.size());
  OpId next(static_cast<int32_t>(num_ops) - 1);
  for (size_t i = nodes.size(); i-- > 0;) {
    if (auto it = op_of.find(nodes[i]); it != op_of.end()) next = OpId(it->second);
    owner[i] = next;
  }
  for (size_t i = 1; i < owner.size(); ++i) {
    if (owner[i] < owner[i - 1]) return Internal(model.path + ": ops are not numbered in graph order");
  }
  return owner;
}

int64_t NsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

struct EagerRunner::Impl {
  LoadedModel model;
  const torch::jit::Graph* graph = nullptr;
  ValueEnv inputs;                                    // module and input tensors, shared by iterations
  std::vector<OpId> owner;                            // by node position
  std::vector<int32_t> nodes_per_op;
  std::unordered_map<const Value*, size_t> last_use;  // by node position
  std::vector<IValue> last_outputs;                   // of the last iteration
  bool on_cuda = false;

  Status RunNodes(OpObserver* observer, ValueEnv& env);
  Status Synchronize() const;
};

Status EagerRunner::Impl::RunNodes(OpObserver* observer, ValueEnv& env) {
  const LoadedModel::Impl& m = model.impl();
  OpId open;
  size_t index = 0;
  for (const Node* node : graph->nodes()) {
    if (owner[index] != open) {
      if (observer != nullptr && open.valid()) observer->OnOpEnd(open);
      open = owner[index];
      if (observer != nullptr) observer->OnOpBegin(open);
    }
    std::vector<IValue> outputs;
    try {
      std::vector<IValue> args;
      args.reserve(node->inputs().size());
      for (const Value* input : node->inputs()) args.push_back(env.at(input));
      outputs = RunFrozenNode(*node, std::move(args));
    } catch (const std::exception& e) {
      if (observer != nullptr) observer->OnOpEnd(open);
      return Internal(m.path + ": eager run: " + DescribeNode(*node) + " failed: " + TorchMessage(e));
    }
    for (size_t k = 0; k < outputs.size() && k < node->outputs().size(); ++k) {
      if (node->outputs()[k]->hasUses()) env[node->outputs()[k]] = std::move(outputs[k]);
    }
    for (const Value* input : node->inputs()) {
      if (last_use.at(input) == index) env.erase(input);
    }
    ++index;
  }
  if (observer != nullptr && open.valid()) observer->OnOpEnd(open);
  return OkStatus();
}

Status EagerRunner::Impl::Synchronize() const {
  if (!on_cuda) return OkStatus();
  try {
    c10::cuda::device_synchronize();
    return OkStatus();
  } catch (const std::exception& e) {
    return Internal(model.path() + ": waiting for the GPU at the end of an iteration failed: " + TorchMessage(e));
  }
}

EagerRunner::EagerRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EagerRunner::~EagerRunner() = default;

StatusOr<std::unique_ptr<EagerRunner>> EagerRunner::Create(const ModelGraph& model, const EagerOptions& options) {
  if (model.model.empty()) return FailedPrecondition("eager run: no model loaded");
  const LoadedModel::Impl& m = model.model.impl();
  auto impl = std::make_unique<Impl>();
  impl->model = model.model;
  impl->graph = m.graph.get();
  NIMBLE_RETURN_IF_ERROR(CheckInputShapes(*impl->graph, m));
  NIMBLE_ASSIGN_OR_RETURN(impl->owner, PlanBrackets(m, model.graph.ops.size()));
  impl->nodes_per_op.assign(model.graph.ops.size(), 0);
  for (OpId op : impl->owner) ++impl->nodes_per_op[static_cast<size_t>(op.value())];
  impl->last_use = LastUseIndex(*impl->graph);
  impl->on_cuda = c10::Device(m.device).is_cuda();
  try {
    c10::InferenceMode no_autograd;
    at::manual_seed(options.seed);
    impl->inputs = MakeRandomInputs(*impl->graph, m);
  } catch (const std::exception& e) {
    return Internal(m.path + ": making random inputs on " + m.device + " failed: " + TorchMessage(e));
  }
  NIMBLE_RETURN_IF_ERROR(impl->Synchronize());
  return std::unique_ptr<EagerRunner>(new EagerRunner(std::move(impl)));
}

StatusOr<int64_t> EagerRunner::RunIteration(OpObserver* observer) {
  Impl& impl = *impl_;
  c10::InferenceMode no_autograd;
  const auto start = std::chrono::steady_clock::now();
  ValueEnv env = impl.inputs;  // tensor handles: the inputs themselves are not copied
  NIMBLE_RETURN_IF_ERROR(impl.RunNodes(observer, env));
  NIMBLE_RETURN_IF_ERROR(impl.Synchronize());
  const int64_t wall_ns = NsSince(start);
  impl.last_outputs.clear();
  for (const Value* output : impl.graph->outputs()) {
    auto it = env.find(output);
    impl.last_outputs.push_back(it != env.end() ? it->second : torch::jit::toIValue(output).value_or(IValue()));
  }
  return wall_ns;
}

StatusOr<double> EagerRunner::MaxDifferenceFromForward() {
  Impl& impl = *impl_;
  const LoadedModel::Impl& m = impl.model.impl();
  if (impl.last_outputs.empty()) return FailedPrecondition(m.path + ": no eager iteration ran yet");
  std::vector<at::Tensor> ours, theirs;
  try {
    c10::InferenceMode no_autograd;
    std::vector<IValue> args;
    for (size_t i = 1; i < impl.graph->inputs().size(); ++i) args.push_back(impl.inputs.at(impl.graph->inputs()[i]));
    const IValue expected = impl.model.impl().module.forward(std::move(args));
    for (const IValue& v : impl.last_outputs) CollectTensors(v, ours);
    CollectTensors(expected, theirs);
    if (ours.size() != theirs.size()) {
      return Internal(m.path + ": the eager run produced " + std::to_string(ours.size()) +
                      " output tensors where forward produces " + std::to_string(theirs.size()));
    }
    double max_diff = 0;
    for (size_t i = 0; i < ours.size(); ++i) {
      if (ours[i].sizes() != theirs[i].sizes()) return Internal(m.path + ": output " + std::to_string(i) + " differs in shape");
      if (ours[i].numel() == 0) continue;
      const at::Tensor diff = (ours[i].to(at::kDouble) - theirs[i].to(at::kDouble)).abs().max();
      max_diff = std::max(max_diff, diff.item<double>());
    }
    return max_diff;
  } catch (const std::exception& e) {
    return Internal(m.path + ": comparing with forward failed: " + TorchMessage(e));
  }
}

int32_t EagerRunner::num_ops() const { return static_cast<int32_t>(impl_->nodes_per_op.size()); }
const std::vector<int32_t>& EagerRunner::nodes_per_op() const { return impl_->nodes_per_op; }
const LoadedModel& EagerRunner::model() const { return impl_->model; }

}  // namespace nimble::accelerate
